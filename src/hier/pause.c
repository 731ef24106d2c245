/* The test-only delay hook (COLLX_HIER_PAUSE=probability): at each step of
 * the node phase a rank may stop for up to 100 us, so that the orders of
 * arrival a 2-core machine rarely produces (a reader late in a cell its
 * writer is about to refill, a rank that arrives at barrier b + 1 before
 * another has seen b) happen in the sequence tests. Off: one load, inline
 * (hier.h), at each of a call's steps. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <time.h>
#include "hier.h"
#include "../core/engine/engine.h"

_Atomic(double) hier_pause_p = -1;
_Atomic int hier_pausing = 1;

void hier_pause_maybe(void)
{
    static _Thread_local unsigned long long rng;
    double p = atomic_load_explicit(&hier_pause_p, memory_order_relaxed);
    if (p < 0) {   /* the first step: the setting, read once */
        atomic_store_explicit(&hier_pause_p, p = cx_knob_real(CX_KNOB_HIER_PAUSE),
                              memory_order_relaxed);
        atomic_store_explicit(&hier_pausing, p > 0, memory_order_relaxed);
    }
    if (p <= 0)
        return;
    if (!rng)
        rng = (unsigned long long)cx_now_ns() | 1;
    rng ^= rng << 13;   /* xorshift64 */
    rng ^= rng >> 7;
    rng ^= rng << 17;
    if ((double)(rng % 1000000) >= p * 1e6)
        return;
    struct timespec t = {0, (long)(rng >> 20) % 100000};
    nanosleep(&t, NULL);
}
