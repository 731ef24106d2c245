/* What every part of online tuning asks (online.h): whether it is on
 * (COLLX_TUNE_ONLINE, and the start did not fail), whether the start
 * succeeded everywhere and which collectives it tunes (its sites' size
 * classes are util's, cx_size_class). */
#include <stdatomic.h>
#include "online.h"

static atomic_int knob_on = -1;   /* asked on every call: read once (-1: not yet) */
static atomic_int off;            /* the start failed: off on every rank */
static atomic_int active;         /* started, and the end hooked */

int cx_online_on(void)
{
    int on = atomic_load_explicit(&knob_on, memory_order_relaxed);
    if (on < 0)
        atomic_store(&knob_on, on = cx_knob_int(CX_KNOB_TUNE_ONLINE) == 1);
    return on && !atomic_load_explicit(&off, memory_order_relaxed);
}

int cx_online_active(void)
{
    return atomic_load(&active);
}

void cx_online_set_started(int ok)
{
    atomic_store(ok ? &active : &off, 1);
}

int cx_online_coll(cx_coll c)
{
    return cx_coll_sized(c);
}
