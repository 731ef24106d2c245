/* A rank that waits in a blocking collective for much longer than
 * COLLX_WAIT_WARN seconds says so, once, while it keeps waiting (issue
 * 51): usually some rank never makes the call, or does not load collx,
 * or runs it with other settings, and the program would otherwise just
 * hang without a word.
 *
 * The calling thread only numbers its blocking calls (one relaxed store
 * at entry, one at return: the interposer's cost with nothing selected
 * stays where it was); a thread that never calls MPI samples the number
 * once a second and speaks when the same call is still in flight after
 * the limit. A call's number holds the thread's count of its calls, the
 * thread (10 bits of its id) and the collective (6 bits). Not in SMPI
 * (watchdog.smpi.c): there a thread cannot sleep outside the simulation. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include "engine.h"

#define COLL_BITS 6
#define THREAD_BITS 10
#define ONE_CALL (1ul << (COLL_BITS + THREAD_BITS))
_Static_assert(CX_COLL_COUNT <= 1 << COLL_BITS, "a call's number: 6 bits for its collective");

static atomic_ulong current;   /* the blocking call in flight (0: none) */
static _Thread_local unsigned long numbered;   /* this thread's last: its count and id */
static _Thread_local unsigned long in_flight;  /* this thread's call in flight (0: none) */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static double limit_s;
static int world_rank = -1;   /* read by the calling thread, at start */

static void *watch(void *unused)
{
    (void)unused;
    unsigned long seen = 0;
    int same = 0;
    for (;;) {
        struct timespec t = {1, 0};
        nanosleep(&t, NULL);
        unsigned long now = atomic_load_explicit(&current, memory_order_relaxed);
        same = now && now == seen ? same + 1 : 0;
        seen = now;
        if (same < limit_s)
            continue;
        fprintf(stderr, "collx: rank %d has waited %d s in %s for other ranks and keeps "
                "waiting: does every rank make this call, load collx and have the same "
                "COLLX_* settings? (this message: COLLX_WAIT_WARN)\n", world_rank, same,
                cx_coll_mpi_name((cx_coll)(now & ((1u << COLL_BITS) - 1))));
        return NULL;   /* once */
    }
}

static void start(void)
{
    limit_s = cx_knob_real(CX_KNOB_WAIT_WARN);
    if (limit_s <= 0)
        return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);   /* the watcher calls no MPI */
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 << 10);
    pthread_create(&t, &attr, watch, NULL);
    pthread_attr_destroy(&attr);
}

static unsigned long number(int coll)
{
    unsigned long was = in_flight;
    in_flight = (numbered += ONE_CALL) | (unsigned long)coll;
    atomic_store_explicit(&current, in_flight, memory_order_relaxed);
    return was;
}

/* A thread's first call: the watcher starts (once for the process), and
 * the thread's id is folded into its numbers. Apart, so that the calls
 * after it keep no registers. */
static __attribute__((noinline)) unsigned long first_call(int coll)
{
    pthread_once(&once, start);
    numbered = ((unsigned long)pthread_self() & ((1u << THREAD_BITS) - 1)) << COLL_BITS;
    return number(coll);
}

/* A call inside another (an algorithm's inner call) numbers itself, and
 * its return gives the number back to the outer call of its thread (the
 * thread's own, not whatever another thread stored since: a call that
 * returned is never watched again). */
unsigned long cx_watch_enter(int coll)
{
    return numbered ? number(coll) : first_call(coll);
}

void cx_watch_leave(unsigned long was)
{
    in_flight = was;
    atomic_store_explicit(&current, was, memory_order_relaxed);
}

unsigned long cx_watch_current(void)
{
    return atomic_load_explicit(&current, memory_order_relaxed);
}
