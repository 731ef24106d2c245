/* A node's doorbell on a real MPI (bell.h; SMPI's is bell.smpi.c): ranks
 * poll, nobody sleeps, so there is nothing to make or ring. The SMPI
 * side's functions are here only for a compiler that keeps a call
 * behind a constant false test (bell.h's inline ones never reach them). */
#include "bell.h"

void cx_bell_make(cx_comm *c)
{
    (void)c;
}

cx_bell_taken cx_bell_take(cx_comm *c)
{
    (void)c;
    return (cx_bell_taken){NULL, NULL};
}

void cx_bell_free(cx_bell_taken t)
{
    (void)t;
}

void cx_bell_ring(cx_comm *c)
{
    (void)c;
}

int cx_bell_sleepers(cx_comm *c)
{
    (void)c;
    return 0;
}

int cx_bell_sleep_until(cx_comm *c, cx_sched *s, cx_poll_fn fn, void *ctx)
{
    (void)s;
    return cx_wait_poll(c->priv, fn, ctx);
}

int cx_sched_poll_sleep(cx_sched *s, cx_comm *c, cx_poll_fn fn, void *ctx)
{
    (void)c;
    return cx_sched_poll(s, fn, ctx);
}
