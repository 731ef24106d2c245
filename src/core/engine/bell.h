/* A node's doorbell: in SMPI a rank that waits for its node's flags
 * sleeps until the rank that completes what it waits for rings, instead
 * of polling. Every poll is a simulator step among all the job's ranks
 * (hier at 1024 ranks on eth10g-ft-64x16: 960 ranks polling through each
 * leaders' phase, 8 times native's host time at 256 ranks); a sleeper
 * costs two. On a real MPI these are the plain polls and waits, and the
 * writers' checks compile away.
 *
 * The rule: a rank that stores a flag others may wait for, and whose
 * store may complete what they wait for, asks cx_bell_wanted (SMPI: some
 * rank of the node sleeps) and if so, once its check says the waiters'
 * condition holds, calls cx_bell_ring. A wait whose condition holds only
 * after a ring that never comes still ends: sleeps are bounded (at least
 * 1 ms of simulated time, then as long as it has waited), and
 * COLLX_VERBOSE says a ring was missed. The bell lives in the node's
 * control block (comm.h, CX_NODE_BELL). */
#ifndef CX_BELL_H
#define CX_BELL_H

#include "comm.h"
#include "sched.h"

typedef struct cx_bell_taken {
    void *mutex, *cond;
} cx_bell_taken;

/* Sets up c's bell (shm.c: local rank 0, before the node uses the
 * control block). A rank just woken may still hold the bell when the
 * program frees the communicator: local rank 0 takes it out before the
 * block's window is freed (which waits for the node) and frees it after. */
void cx_bell_make(cx_comm *c);
cx_bell_taken cx_bell_take(cx_comm *c);
void cx_bell_free(cx_bell_taken t);
void cx_bell_ring(cx_comm *c);

/* SMPI's side (bell.smpi.c; never called on a real MPI): whether some rank
 * of c's node sleeps on the bell; a wait asleep between rings; a poll
 * step that sleeps on the bell when its round has nothing else left. */
int cx_bell_sleepers(cx_comm *c);
int cx_bell_sleep_until(cx_comm *c, cx_sched *s, cx_poll_fn fn, void *ctx);
int cx_sched_poll_sleep(cx_sched *s, cx_comm *c, cx_poll_fn fn, void *ctx);

/* Whether a writer must ring: some rank of c's node sleeps on the bell
 * (on a real MPI never, and the writer's check compiles away). */
static inline int cx_bell_wanted(cx_comm *c)
{
    return CX_SIMULATED && cx_bell_sleepers(c);
}
/* Blocks until fn (a poll step, asked with s, which may be NULL) holds:
 * on a real MPI as cx_wait_poll; in SMPI asleep between rings (polling
 * while nonblocking schedules are in flight: they need this rank). fn
 * must be a condition on the node's memory. */
static inline int cx_bell_wait(cx_comm *c, cx_sched *s, cx_poll_fn fn, void *ctx)
{
    return CX_SIMULATED ? cx_bell_sleep_until(c, s, fn, ctx) : cx_wait_poll(c->priv, fn, ctx);
}
/* A poll step on c's node memory whose writers ring: in SMPI, when its
 * round has nothing else left, the rank sleeps on the bell
 * (cx_sched_poll_wait); elsewhere cx_sched_poll. */
static inline int cx_sched_poll_rung(cx_sched *s, cx_comm *c, cx_poll_fn fn, void *ctx)
{
    return CX_SIMULATED ? cx_sched_poll_sleep(s, c, fn, ctx) : cx_sched_poll(s, fn, ctx);
}

#endif
