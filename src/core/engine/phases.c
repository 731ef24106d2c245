/* The phase timers of phases.h (only with -DCOLLX_PHASES=ON). The time
 * stamp counter where there is one (a few ns a read, calibrated against
 * the monotonic clock once), the clock otherwise. Per thread, summed at
 * exit over the process's threads. */
#include "phases.h"
#ifdef CX_PHASES
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "spin.h"
#if defined(__x86_64__)
#include <x86intrin.h>
#define STAMP() __rdtsc()
#else
#define STAMP() ((unsigned long long)cx_now_ns())
#endif

static _Atomic unsigned long long total[CX_PH_COUNT], calls;
static _Thread_local unsigned long long last;
static double ns_per_tick = 1;
static int rank = -1;

static void report(void)
{
    unsigned long long n = atomic_load(&calls);
    if (!n)
        return;
    fprintf(stderr, "collx phases: rank %d, %llu blocking calls; ns per call:", rank, n);
    static const char *names[CX_PH_COUNT] = {"select", "build", "node-publish", "node-wait",
                                             "node-read", "run", "done"};
    for (int i = 0; i < CX_PH_COUNT; i++)
        fprintf(stderr, " %s %.0f", names[i], atomic_load(&total[i]) * ns_per_tick / n);
    fprintf(stderr, "\n");
}

static void calibrate(void)
{
#if defined(__x86_64__)
    int64_t t0 = cx_now_ns();
    unsigned long long s0 = STAMP();
    while (cx_now_ns() - t0 < 20000000)
        ;
    ns_per_tick = (double)(cx_now_ns() - t0) / (double)(STAMP() - s0);
#endif
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    atexit(report);
}

void cx_phase_start(void)
{
    static atomic_int once;
    if (!atomic_exchange(&once, 1))
        calibrate();
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    last = STAMP();
}

void cx_phase_mark(int phase)
{
    unsigned long long now = STAMP();
    atomic_fetch_add_explicit(&total[phase], now - last, memory_order_relaxed);
    last = now;
}
#endif
