/* Nonblocking hierarchical calls, and the order of all hierarchical calls
 * of a communicator.
 *
 * A hierarchical schedule is numbered when it is built: the slot of the
 * segment it uses, the node barriers it enters, its size check (guard.c).
 * The numbers mean the same on every rank of a node only if every rank
 * builds and runs its calls in the same order, one after the other.
 * Blocking calls do; a nonblocking call (CX_I...) running beside a later
 * call would not.
 *
 * So a nonblocking call is a small schedule of its own: wait for its turn
 * (every earlier nonblocking call of the communicator has finished here),
 * publish its sizes and wait for the node's (the size check), for v and w
 * collectives agree on their sizes (agree.c: nonblocking collectives of
 * the node and the leaders), build the real schedule and run it as a
 * child, count itself finished. A blocking
 * call waits until every nonblocking one in flight has finished before it
 * is built. The CX_I call itself waits for no other rank, except when it
 * is the communicator's first nonblocking hierarchical call: that one sets
 * up what would otherwise be set up collectively in the middle of a
 * schedule (node layout, control block, a segment of COLLX_SHM_MAX, the
 * column communicator), as collx's first call on any communicator sets up
 * its state. The segment is then never grown again (sparse memory: pages
 * are used as data goes through them).
 *
 * A persistent call is that small schedule too, built once at init and
 * replayed by every start: it takes its turn when started, and at its
 * first start checks the sizes, agrees and builds the real schedule as
 * above, logging what the build took from the numbering (hier.c). Later
 * starts skip the check and the agreement (a persistent call's sizes
 * never change) and replay the real schedule, renumbered in their turn
 * (hier_renumber); when the numbering moved otherwise (the other half of
 * the segment, a barrier more or less before a slot), it is built again,
 * and kept beside the first (kept). */
#include <string.h>
#include "hier.h"

/* A real schedule as a persistent call keeps it: it replays while what
 * its build took from the numbering can be taken again. Two are kept, so
 * that a call started again and again, alone, replays in either half of
 * the segment (each start takes the other half). */
typedef struct kept {
    cx_sched s;
    hier_log log;   /* what its build took from the numbering */
    int ops;        /* its steps once built (more after a run: it grew) */
    int ok;         /* built clean and ran unchanged: replays */
} kept;

typedef struct deferred {
    cx_args a;
    hier_build_fn build;
    hier_values_fn values;   /* v, w: what the call agrees on (else NULL) */
    hier_values v;
    hier_queue *q;
    unsigned long long ticket;
    hier_guard guard;
    int persistent;   /* real schedules are kept for later starts */
    int checked;      /* persistent: sizes checked and agreed for good */
    kept child[2];    /* [0] only unless persistent */
    int run;          /* the one running */
} deferred;

/* A persistent call's turn is taken when it is started. */
static int take_turn(cx_sched *s, void *ctx, MPI_Request *req)
{
    (void)s;
    deferred *x = ctx;
    *req = MPI_REQUEST_NULL;
    x->ticket = x->q->issued++;
    return MPI_SUCCESS;
}

static unsigned long long finished(hier_queue *q)
{
    return __atomic_load_n(&q->finished, __ATOMIC_ACQUIRE);
}

/* Waits until `until` nonblocking calls have finished, moving them on:
 * they may be waiting in the agent while this rank is in CX_Wait of a
 * later call, or in a blocking call. */
static int reached(hier_queue *q, unsigned long long until)
{
    if (finished(q) != until)
        cx_progress_poke();
    return finished(q) == until;
}

static int my_turn(cx_sched *s, void *ctx, int *done)
{
    (void)s;
    deferred *x = ctx;
    *done = reached(x->q, x->ticket);
    return MPI_SUCCESS;
}

static int publish(cx_sched *s, void *ctx, MPI_Request *req)
{
    deferred *x = ctx;
    int err;
    *req = MPI_REQUEST_NULL;
    if (x->checked) {   /* a persistent call's sizes never change */
        x->guard.gen = 0;
        return MPI_SUCCESS;
    }
    if (x->values && (err = x->values(&x->a, s, &x->v)))
        return err;
    return hier_guard_publish(&x->guard, &x->a);
}

/* A kept schedule that can replay now (renumbered), or -1. */
static int replayable(deferred *x)
{
    for (int i = 0; x->persistent && i < 2; i++)
        if (x->child[i].ok && hier_renumber(x->a.cc, &x->child[i].log))
            return i;
    return -1;
}

static int begin_child(cx_sched *s, void *ctx, MPI_Request *req)
{
    deferred *x = ctx;
    *req = MPI_REQUEST_NULL;
    int i = replayable(x);
    if (i >= 0) {   /* with the start's tag */
        x->run = i;
        return cx_sched_plan_start_all(&x->child[i].s, s->tag);
    }
    /* build into one not kept, else replace the one that ran less recently */
    if (x->persistent)
        x->run = !x->child[0].ok ? 0 : !x->child[1].ok ? 1 : 1 - x->run;
    kept *k = &x->child[x->run];
    if (k->ok)
        cx_sched_free(&k->s);
    k->ok = 0;
    /* the call's own tag, taken in call order when it was started */
    cx_sched_init_for(&k->s, s->comm, s->tag, x->a.coll);
    if (x->values && s->err)
        return MPI_SUCCESS;   /* no agreed sizes to build from; s fails */
    hier_values_for_build(x->a.cc, x->values ? &x->v : NULL);
    if (x->persistent)
        hier_log_begin(x->a.cc, &k->log, &k->s);
    int err = hier_guard_build(&x->guard, &x->a, &k->s, x->build);
    if (x->persistent)
        hier_log_end(x->a.cc);
    hier_values_for_build(x->a.cc, NULL);
    /* an erroneous call (the node disagreed) is checked at every start */
    k->ok = x->persistent && !err && !k->s.err && !k->log.broken;
    k->ops = k->s.nops;
    cx_sched_begin(&k->s);
    return err;
}

/* The real schedule ran to its end. */
static void child_ended(deferred *x, kept *k)
{
    /* A schedule that appended steps as it ran (gatherv's layout once the
     * sizes are in the segment) would append them again: not replayed. */
    k->ok = k->ok && !k->s.err && k->s.nops == k->ops;
    if (k->ok)
        x->checked = x->v.settled = 1;
    else
        cx_sched_free(&k->s);
}

static int child_done(cx_sched *s, void *ctx, int *done)
{
    (void)s;
    deferred *x = ctx;
    kept *k = &x->child[x->run];
    int err = cx_sched_progress(&k->s, done);
    if (*done)
        child_ended(x, k);
    return err;
}

/* The program waits for the call: run the real schedule as a blocking
 * call does. */
static int child_finish(cx_sched *s, void *ctx)
{
    (void)s;
    deferred *x = ctx;
    kept *k = &x->child[x->run];
    int err = cx_sched_finish(&k->s);
    child_ended(x, k);
    return err;
}

static void free_children(void *ctx)
{
    deferred *x = ctx;
    for (int i = 0; i < 2; i++)
        if (x->child[i].ok)
            cx_sched_free(&x->child[i].s);
}

/* Runs even after an error (a schedule always runs to its end). */
static int count_finished(cx_sched *s, void *ctx, MPI_Request *req)
{
    (void)s;
    deferred *x = ctx;
    *req = MPI_REQUEST_NULL;
    __atomic_fetch_add(&x->q->finished, 1, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

static int all_finished(cx_sched *s, void *ctx, int *done)
{
    (void)s;
    hier_queue *q = ctx;
    *done = reached(q, q->issued);
    return MPI_SUCCESS;
}

static int drain(hier_queue *q, cx_comm *c)
{
    return finished(q) == q->issued ? MPI_SUCCESS : hier_wait(c, all_finished, q);
}

int hier_quiesce(cx_comm *c)
{
    hier_queue *q = hier_queue_of(c);
    return q ? drain(q, c) : MPI_ERR_NO_MEM;
}

/* The segment of a persistent plan's own communicator (no other plan
 * runs on it, core/plan_comm.h; set_up runs at init, collective): what
 * this call needs, the most of the node's ranks. A v or w call's need
 * depends on the other ranks' counts: they agree on it here as its build
 * will (agree.c; a persistent call's counts are fixed at init). */
static MPI_Aint plan_segment(const cx_args *a, hier_values_fn values)
{
    MPI_Aint mine, most = cx_shm_max();
    if (!a->alg->shm_bytes) {   /* v, w: agreed alike on the node */
        if (!values || hier_agreed_segment(a, values, &most))
            most = cx_shm_max();
    } else {
        mine = a->alg->shm_bytes(a);
        if (PMPI_Allreduce(&mine, &most, 1, MPI_AINT, MPI_MAX, a->cc->node))
            most = cx_shm_max();
    }
    return most < cx_shm_max() ? most : cx_shm_max();
}

/* The collective set-up a schedule built later must not do (see top);
 * the calls in flight finish first when there is any to do. The segment
 * is made at COLLX_SHM_MAX at once (so it never grows under a call in
 * flight), or a persistent plan's own at its size (grown at a later
 * plan's init if that one needs more: the plans before it are done). */
static int set_up(const cx_args *a, unsigned uses, hier_values_fn values)
{
    cx_comm *c = a->cc;
    char *base;
    MPI_Comm col;
    MPI_Aint want = cx_shm_max();
    int err = c->plan_owned ? cx_comm_nodes(c) : MPI_SUCCESS;
    if (!err && (uses & HIER_USES_SEGMENT) && c->plan_owned)   /* persistent: at init */
        want = plan_segment(a, values);
    int seg = (uses & HIER_USES_SEGMENT) && c->shm_size < want;
    int todo = !c->nodes_ready || (c->local_size > 1 && c->ctl_win == MPI_WIN_NULL) || seg ||
               ((uses & HIER_USES_COLUMNS) && !c->column_ready);
    if (!err && todo)
        err = cx_comm_quiesce(c);
    if (!err)
        err = cx_comm_nodes(c);
    if (!err && c->local_size > 1)
        err = cx_comm_node_ctl(c, &base);
    if (!err && seg)
        err = cx_comm_shm(c, want, &base);
    if (!err && (uses & HIER_USES_COLUMNS) && c->min_ranks_per_node > 1)
        err = cx_comm_column(c, &col);
    return err;
}

int hier_call(const cx_args *a, cx_sched *s, hier_build_fn build, unsigned uses,
              hier_values_fn values)
{
    hier_queue *q = hier_queue_of(a->cc);
    int err;
    if (!q)
        return MPI_ERR_NO_MEM;
    if (!a->nonblocking)
        return (err = drain(q, a->cc)) ? err : hier_guarded(a, s, build);
    deferred *x = cx_sched_alloc(s, sizeof *x);
    if (!x)
        return MPI_ERR_NO_MEM;
    memset(x, 0, sizeof *x);
    x->a = *a;
    x->build = build;
    x->values = values;
    x->q = q;
    x->persistent = a->persistent;
    if ((err = set_up(a, uses, values)) ||
        (x->persistent && ((err = cx_sched_on_free(s, free_children, x)) ||
                           (err = cx_sched_start(s, take_turn, x)))) ||
        (err = cx_sched_poll(s, my_turn, x)) ||
        (err = cx_sched_barrier(s)) || (err = cx_sched_poll(s, hier_guard_free, a->cc)) ||
        (err = cx_sched_barrier(s)) || (err = cx_sched_start(s, publish, x)) ||
        (err = cx_sched_poll(s, hier_guard_published, &x->guard)) ||
        (err = cx_sched_barrier(s)) ||
        (values && ((err = hier_agree_steps(s, a->cc, &x->v)) ||
                    (err = cx_sched_barrier(s)))) ||
        (err = cx_sched_start(s, begin_child, x)) ||
        (err = cx_sched_poll_wait(s, child_done, child_finish, x)) || (err = cx_sched_barrier(s)) ||
        (err = cx_sched_start(s, count_finished, x)))
        return err;
    if (!x->persistent)
        x->ticket = q->issued++;   /* only a schedule that will run takes a turn */
    return MPI_SUCCESS;
}
