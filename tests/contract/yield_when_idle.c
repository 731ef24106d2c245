/* Test-only LD_PRELOAD helper: how an idle MPI rank waits when the tests'
 * ranks (and maybe other jobs) outnumber the cores.
 *
 * Open MPI (mpi_yield_when_idle=1) calls sched_yield() whenever a progress
 * turn finds nothing to do; MPICH 4.0's ch4 device never yields
 * (MPIR_CVAR_POLLS_BEFORE_YIELD is read by ch3 only), so for MPICH the hook
 * is UCX's progress call, made on every turn of MPICH's progress loop.
 * Both come to wait_idle().
 *
 * A yield is the fastest wait while only the job's own ranks compete: the
 * core goes to a rank with work. Beside CPU-bound jobs it is the slowest:
 * Linux's EEVDF scheduler (6.6+) pushes a yielding task's deadline a slice
 * further per yield, so a rank that polls with yields gets a few percent of
 * a core (contract.sequence.p8 beside two busy loops: 270 s, 12 s of CPU).
 * A nap keeps the rank's lag and it runs as soon as it wakes. So: yield,
 * and when a yield came back after a whole time slice (somebody else held
 * the core) nap instead for the next 50 ms, 1 us and doubling to 64 us.
 * contract.sequence.p8 on 2 cores: quiet 5.1 s -> 6.4 s, beside two busy
 * loops 270 s -> 32 s (naps always: 24 s quiet, 74 s busy).
 * ./run preloads it for its test suites, never for benchmarks. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum {
    NEW_WAIT_GAP_NS = 20000,      /* a longer gap between idle turns: work */
    SLOW_YIELD_NS = 3000000,      /* a yield this long lost a whole slice */
    NAP_PERIOD_NS = 50000000,     /* how long naps replace yields after one */
    NAP_MAX_US = 64
};

static __thread long last_idle_ns, naps_until_ns, nap_us = 1;

static long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* nap_now: the caller knows the wait is a long one already. */
static void wait_idle(int nap_now)
{
    long now = now_ns();
    if (now - last_idle_ns > NEW_WAIT_GAP_NS)
        nap_us = 1;
    if (nap_now || now < naps_until_ns) {
        struct timespec t = {0, nap_us * 1000L};
        if (nap_us < NAP_MAX_US)
            nap_us *= 2;
        nanosleep(&t, NULL);
        last_idle_ns = now_ns();
        return;
    }
    syscall(SYS_sched_yield); /* the real one: sched_yield is ours below */
    last_idle_ns = now_ns();
    if (last_idle_ns - now > SLOW_YIELD_NS)
        naps_until_ns = last_idle_ns + NAP_PERIOD_NS;
}

/* Open MPI's opal_progress() yields only after a turn without events. */
int sched_yield(void)
{
    wait_idle(0);
    return 0;
}

typedef unsigned (*progress_fn)(void *worker);

/* UCX's idle progress calls in a row on this thread: MPICH napping after 32
 * even on a quiet machine was measured faster than yields alone (sequence
 * tests at p = 7 and 8: 14 and 17 s against 19 and 20 s), Open MPI slower
 * (5 s against 24 s at p = 8). */
static __thread unsigned idle_polls;

unsigned ucp_worker_progress(void *worker)
{
    static progress_fn real;
    if (!real)
        real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
    if (!real)
        return 0;
    unsigned events = real(worker);
    if (events)
        idle_polls = 0;
    else
        wait_idle(++idle_polls > 32);
    return events;
}
