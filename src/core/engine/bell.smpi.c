/* A node's doorbell (bell.h; SMPI build only, a real MPI's is
 * bell.mpi.c). In SMPI every rank is an actor of one
 * process, run in turn: no other actor runs between two simulator calls
 * of one. So a sleeper that counts itself before it asks its condition,
 * and a writer that asks whether anyone sleeps after its store, never
 * miss each other; the sleeper's simulator call that begins its sleep
 * (taking the mutex) comes before the writer's notify (under the mutex);
 * the ring count covers a condition that makes a simulator call. */
#include "bell.h"
#include "progress.h"

#include <simgrid/cond.h>
#include <simgrid/mutex.h>

/* The wait without the bell: asked, then the executors' polite wait. */
static int polled(cx_comm *c, cx_sched *s, cx_poll_fn fn, void *ctx)
{
    if (!s)
        return cx_wait_poll(c->priv, fn, ctx);
    double since = 0;
    for (int spins = 0;; spins++) {
        int done = 0, err = fn(s, ctx, &done);
        if (err || done)
            return err;
        cx_progress_poke();
        cx_sched_idle(s, spins, &since);
    }
}

typedef struct bell {
    sg_mutex_t mutex;
    sg_cond_t cond;
    int sleepers;           /* ranks inside cx_bell_sleep_until */
    unsigned long rings;
} bell;

_Static_assert(sizeof(bell) <= 64, "the bell is one line of the control block");

static bell *bell_of(cx_comm *c)
{
    return (bell *)(void *)(c->ctl_base + CX_NODE_BELL);
}

void cx_bell_make(cx_comm *c)
{
    bell *b = bell_of(c);
    b->mutex = sg_mutex_init();
    b->cond = sg_cond_init();
}

cx_bell_taken cx_bell_take(cx_comm *c)
{
    cx_bell_taken t = {NULL, NULL};
    if (c->ctl_base && c->local_rank == 0) {
        t.mutex = bell_of(c)->mutex;
        t.cond = bell_of(c)->cond;
    }
    return t;
}

void cx_bell_free(cx_bell_taken t)
{
    if (t.cond)
        sg_cond_destroy(t.cond);
    if (t.mutex)
        sg_mutex_destroy(t.mutex);
}

int cx_bell_sleepers(cx_comm *c)
{
    return c->ctl_base && __atomic_load_n(&bell_of(c)->sleepers, __ATOMIC_RELAXED) > 0;
}

void cx_bell_ring(cx_comm *c)
{
    bell *b = bell_of(c);
    __atomic_add_fetch(&b->rings, 1, __ATOMIC_RELAXED);
    sg_mutex_lock(b->mutex);
    sg_cond_notify_all(b->cond);
    sg_mutex_unlock(b->mutex);
}

/* A sleep that ended by its time while the condition held: a writer did
 * not ring (a bug: the wait was seen late); said once per rank. */
static void missed(void)
{
    static int said;   /* per rank: SMPI privatizes collx's globals */
    if (!said++ && cx_verbose() > 0)
        cx_say("internal: a node wait ended by its time, not by a ring: "
               "simulated time may be late (please report)");
}

int cx_bell_sleep_until(cx_comm *c, cx_sched *s, cx_poll_fn fn, void *ctx)
{
    int done = 0, err = fn(s, ctx, &done);
    if (err || done)
        return err;
    if (!c->ctl_base || cx_progress_pending())
        return polled(c, s, fn, ctx);
    bell *b = bell_of(c);
    double began = PMPI_Wtime(), nap = 1e-3;
    int late = 0;
    __atomic_add_fetch(&b->sleepers, 1, __ATOMIC_RELAXED);
    for (;;) {
        unsigned long seen = __atomic_load_n(&b->rings, __ATOMIC_RELAXED);
        if ((err = fn(s, ctx, &done)) || done)
            break;
        /* sg_cond_wait_for takes the mutex itself (SimGrid 3.32-4.0):
         * a ring's notify, under the mutex, comes after the sleep began */
        late = __atomic_load_n(&b->rings, __ATOMIC_RELAXED) == seen &&
               sg_cond_wait_for(b->cond, b->mutex, nap);
        double waited = PMPI_Wtime() - began;
        nap = waited > nap ? waited : nap;
    }
    __atomic_sub_fetch(&b->sleepers, 1, __ATOMIC_RELAXED);
    cx_bench_drop();
    if (late && done)
        missed();
    return err;
}

/* A rung poll step: its condition and its wait on the bell. */
typedef struct rung {
    cx_comm *c;
    cx_poll_fn fn;
    void *ctx;
} rung;

static int rung_poll(cx_sched *s, void *ctx, int *done)
{
    rung *r = ctx;
    return r->fn(s, r->ctx, done);
}

static int rung_wait(cx_sched *s, void *ctx)
{
    rung *r = ctx;
    return cx_bell_sleep_until(r->c, s, r->fn, r->ctx);
}

int cx_sched_poll_sleep(cx_sched *s, cx_comm *c, cx_poll_fn fn, void *ctx)
{
    rung *r = cx_sched_alloc(s, sizeof *r);
    if (!r)
        return MPI_ERR_NO_MEM;
    r->c = c;
    r->fn = fn;
    r->ctx = ctx;
    return cx_sched_poll_wait(s, rung_poll, rung_wait, r);
}
