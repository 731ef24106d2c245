/* What every part of online tuning asks (online.h): whether it is on
 * (COLLX_TUNE_ONLINE, and the start did not fail), whether the start
 * succeeded everywhere, which collectives it tunes and the size classes
 * of its sites. */
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
    unsigned v = CX_SEND_V | CX_SEND_W | CX_RECV_V | CX_RECV_W;
    return !(cx_coll_shape(c) & v);
}

int cx_online_class(long long m)
{
    return m <= 0 ? 0 : 64 - __builtin_clzll((unsigned long long)m);
}

void cx_online_class_range(int cls, long long *lo, long long *hi)
{
    unsigned long long l = cls ? 1ull << (cls - 1) : 0;
    *lo = (long long)l;
    *hi = cls ? (long long)(2 * l - 1) : 0;
}
