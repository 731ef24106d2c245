/* How a waiting rank gives its turn away in SMPI (sched.h; a real MPI's:
 * idle.mpi.c). Simulated time only moves in MPI calls and sleeps. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <time.h>
#include "sched.h"

/* After a probe (cx_sched_idle). Each probe moves the clock by 0.1 us;
 * after two, the rank sleeps simulated time instead: 0.25 us, or 1/32 of
 * the time it has waited so far, whichever is longer. A wait of T then
 * costs the simulator O(log T) steps instead of O(T / 0.25 us) (thousands
 * of ranks wait at every node barrier of a hierarchical collective), and
 * the poll is seen at most 0.25 us or 3 % of the wait late: finer than
 * the node's own synchronization, which the flag waits charge
 * (cx_charge_sync, calibrated: 0.1-0.3 us), where 1 us steps hid it. */
void cx_idle_turn(int spins, double *since)
{
    if (spins == 0)
        *since = PMPI_Wtime();
    if (spins > 2) {
        double d = (PMPI_Wtime() - *since) / 32;
        if (d < 2.5e-7)
            d = 2.5e-7;
        struct timespec t = {0, (long)(d * 1e9)};
        if (d >= 1) {
            t.tv_sec = (time_t)d;
            t.tv_nsec = (long)((d - (double)t.tv_sec) * 1e9);
        }
        nanosleep(&t, NULL);
    }
}

/* Sleeps from 1 us, each about 1/128 longer than the last (doubling every
 * 89), so they stay near 1/128 of the time waited: a wait of T costs the
 * simulator O(log T) steps, not T / 1 us (every rank of an RMA bcast
 * polls: at 72 ranks on GigE, minutes of host time for milliseconds
 * simulated), and is seen at most 1 us or ~1 % of the wait late (a
 * tree's levels add up: RMA bcasts at 32 ranks on gige-18x8 0.7-2.2 %
 * slower than with 1 us steps, 6 times cheaper to simulate). */
void cx_backoff(int *spins)
{
    int n = (*spins)++;
    if (n > 8) {
        int k = n - 9, twice = k / 89 < 20 ? k / 89 : 20;
        long ns = 1000L << twice;
        struct timespec t = {0, 0};
        ns += twice < 20 ? ns * (k % 89) / 89 : 0;
        t.tv_sec = ns / 1000000000L;
        t.tv_nsec = ns % 1000000000L;
        nanosleep(&t, NULL);
    }
}
