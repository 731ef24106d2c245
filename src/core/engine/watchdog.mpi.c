/* A rank that waits in a blocking collective for much longer than
 * COLLX_WAIT_WARN seconds says so, once, while it keeps waiting (issue
 * 51): usually some rank never makes the call, or does not load collx,
 * or runs it with other settings, and the program would otherwise just
 * hang without a word.
 *
 * The calling thread only numbers its blocking calls (two relaxed stores
 * per call: the interposer's cost with nothing selected stays where it
 * was); a thread that never calls MPI samples the number once a second
 * and speaks when the same call is still in flight after the limit. Not
 * in SMPI (watchdog.smpi.c): there a thread cannot sleep outside the
 * simulation. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include "engine.h"

static atomic_ulong current;   /* the blocking call in flight (0: none) */
static atomic_int current_coll;
static _Thread_local int depth;
static _Thread_local unsigned long numbered;   /* this thread's calls, 1024 apart + its id */
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
                cx_coll_mpi_name((cx_coll)atomic_load(&current_coll)));
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

/* Two stores a call: the watcher starts at a thread's first call (once
 * for the process), and the thread's id is folded into its count then. */
void cx_watch_enter(int coll)
{
    if (depth++)
        return;
    if (!numbered) {
        pthread_once(&once, start);
        numbered = (unsigned long)pthread_self() & 1023;
    }
    atomic_store_explicit(&current_coll, coll, memory_order_relaxed);
    atomic_store_explicit(&current, numbered += 1024, memory_order_relaxed);
}

void cx_watch_leave(void)
{
    if (--depth == 0)
        atomic_store_explicit(&current, 0, memory_order_relaxed);
}
