/* How a waiting rank gives its turn away on a real MPI (sched.h; SMPI's:
 * idle.smpi.c). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <sched.h>
#include <time.h>
#include "sched.h"

/* After a probe (cx_sched_idle): the CPU to others (oversubscribed
 * ranks). */
void cx_idle_turn(int spins, double *since)
{
    (void)spins;
    (void)since;
    sched_yield();
}

/* A few yields cover a wait of a few microseconds on an idle core; then
 * sleeps of 2..50 us: what is awaited is seen at most ~50 us (plus the
 * timer slack) late, and a waiting rank costs next to no CPU. */
void cx_backoff(int *spins)
{
    int n = (*spins)++;
    if (n < 32) {
        sched_yield();
    } else {
        long ns = 2000L << (n - 32 < 5 ? n - 32 : 5);
        struct timespec t = {0, ns < 50000 ? ns : 50000};
        nanosleep(&t, NULL);
    }
}
