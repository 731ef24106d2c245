/* Test-only LD_PRELOAD helper for MPICH ch4:ucx on oversubscribed machines.
 *
 * MPICH 4.0's ch4 device busy-polls in every blocking call and never yields
 * the CPU (MPIR_CVAR_POLLS_BEFORE_YIELD is read by ch3 only; NOLOCAL and the
 * UCX transports change nothing). With more ranks than cores every message
 * dependency then waits for the scheduler to preempt a spinning rank: the
 * contract test of gather at p=4 on 2 cores took 20 s instead of 0.5 s.
 * Like Open MPI's mpi_yield_when_idle, this yields whenever a UCX progress
 * call (made on every turn of MPICH's progress loop) finds nothing to do.
 * ./run preloads it for the MPICH test suite only, never for benchmarks. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <time.h>

typedef unsigned (*progress_fn)(void *worker);

/* Idle progress calls in a row on this thread. The first ones yield; a
 * longer wait naps (1, 2, 4 ... 64 us): with ranks and other jobs beyond
 * the cores, a yield hands the core to whoever is runnable, often another
 * spinning rank, and the rank with work to do waits for a time slice; a
 * nap frees the core for real (MPICH's sequence test at p = 7, two runs
 * at once on 2 cores: 62 s with yields only, 31 s with naps). */
static __thread unsigned idle;

unsigned ucp_worker_progress(void *worker)
{
    static progress_fn real;
    if (!real)
        real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
    if (!real)
        return 0;
    unsigned events = real(worker);
    if (events) {
        idle = 0;
    } else if (++idle <= 32) {
        sched_yield();
    } else {
        unsigned k = idle - 33;
        struct timespec t = {0, (k < 6 ? 1L << k : 64L) * 1000L};
        nanosleep(&t, NULL);
    }
    return events;
}
