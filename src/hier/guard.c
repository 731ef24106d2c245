/* Erroneous calls whose sizes disagree between the ranks of a node.
 *
 * A hierarchical call's structure follows the sizes a rank passes: the
 * segment it grows (collectively over the node), the chunks, the senders
 * per node, which node barriers it enters. When the sizes disagree (an
 * erroneous program: a root that posts fewer elements than the others
 * send), ranks of a node would build different schedules and wait for
 * each other forever, or write past a region another rank sized.
 *
 * So, before building, every rank publishes the block sizes its arguments
 * give in its line of the node's control block and reads its node's (one
 * shared-memory barrier of the node, no message). When they differ, every
 * rank of the node builds the call for the largest size (in a truncation,
 * the senders' size, which the other nodes use too), on scratch buffers
 * where its own arguments say otherwise, and returns MPI_ERR_TRUNCATE: the
 * node's schedules match each other and the other nodes', nothing is
 * written past a user's buffer, and every rank returns. A blocking call
 * waits for the node's sizes before it is built (hier_guarded); a
 * nonblocking one publishes and waits in steps of its schedule and is
 * built after them (queue.c). Nodes whose ranks
 * agree among themselves but not with another node meet in the leaders'
 * collective (the MPI's own by default), which reports or not as that MPI
 * does. v and w collectives are not checked here: their sizes differ
 * legitimately, and the node agrees on its need (agree.c). */
#include <limits.h>
#include <stdint.h>
#include "hier.h"

/* A rank's line holds, for each parity of the exchange number, the
 * number, the two sizes (send, receive) the rank sees and what it put in
 * its cell (small.c). Sizes and cell word are plain stores before the
 * number's release; readers load the number with acquire, then the rest. */
enum { W_GEN, W_SEND, W_RECV, W_CELL };

static int64_t *words(cx_comm *c, int local, unsigned long long gen)
{
    return (int64_t *)(void *)cx_comm_node_line(c, local) + (gen % 2) * HIER_GUARD_WORDS;
}

/* Block sizes in bytes from this rank's arguments (-1: the side is not
 * significant here). 0 when the collective is not checked. In a correct
 * call every significant size of every rank is the same. */
static int block_sizes(const cx_args *a, int64_t *send, int64_t *recv)
{
    unsigned sh = cx_coll_shape(a->coll);
    int root = a->rank == a->root;
    if (sh == 0 || (sh & (CX_SEND_V | CX_SEND_W | CX_RECV_V | CX_RECV_W)))
        return 0;
    *send = *recv = -1;
    if (sh & CX_REDUCTION) {   /* count and type are rcount and rtype */
        *recv = (int64_t)cx_type_bytes(a->rcount, a->rtype);
        return 1;
    }
    if ((sh & CX_SEND_ONE) && a->sbuf != MPI_IN_PLACE && (root || !(sh & CX_SEND_AT_ROOT)))
        *send = (int64_t)cx_type_bytes(a->scount, a->stype);
    if ((sh & CX_RECV_ONE) && a->rbuf != MPI_IN_PLACE && (root || !(sh & CX_RECV_AT_ROOT)))
        *recv = (int64_t)cx_type_bytes(a->rcount, a->rtype);
    return 1;
}

/* The exchange rank local last published among g and g + 2 (the words
 * of g's parity; g - 2 there: not yet). */
static inline unsigned long long reached(cx_comm *c, int local, unsigned long long g)
{
    return (unsigned long long)__atomic_load_n(&words(c, local, g)[W_GEN], __ATOMIC_ACQUIRE);
}

/* Whether every rank of the node published exchange g->gen (or, where
 * g->gen is an earlier one, the next of its parity; nothing charged: the
 * writer's check as well as the waiter's). */
static int all_published(const hier_guard *g)
{
    for (int l = 0; g->gen && l < g->c->local_size; l++)
        if (reached(g->c, l, g->gen) < g->gen)
            return 0;
    return 1;
}

/* Whether every rank of the node is known to have published exchange
 * gen (ex->seen, else a look at their words, kept in ex->seen). */
static int known_published(cx_comm *c, hier_exchanges *ex, unsigned long long gen)
{
    hier_guard g = {.c = c, .ex = ex, .gen = gen};
    if (ex->seen >= gen || !all_published(&g))
        return ex->seen >= gen;
    ex->seen = gen;
    return 1;
}

/* Waits until every rank of the node published exchange gen - 1, i.e.
 * finished reading gen - 2, whose words and cells gen's reuse: at once
 * after a call that waited for its node; after a small bcast it may not
 * have (its root leaves without waiting, its other ranks wait for the
 * root only). A nonblocking call polls for it first (hier_guard_free). */
static int previous_read(cx_comm *c, hier_exchanges *ex, unsigned long long gen)
{
    hier_guard prev = {.c = c, .ex = ex, .gen = gen - 1};
    if (known_published(c, ex, gen - 1))
        return MPI_SUCCESS;
    return cx_bell_wait(c, NULL, hier_guard_published, &prev);
}

int hier_guard_free(cx_sched *s, void *ctx, int *done)
{
    cx_comm *c = ctx;
    hier_exchanges *ex = hier_exchanges_of(c);
    (void)s;
    *done = !ex || known_published(c, ex, ex->made);
    return MPI_SUCCESS;
}

/* A small bcast on one node goes one way: its root, whose data are in
 * its cell, leaves once it published; the other ranks wait for the root
 * only, and follow its cell's word (one_way). */
static inline int one_way_root(const cx_args *a, const hier_guard *g)
{
    return a->coll == CX_COLL_BCAST && a->rank == a->root && g->cell == HIER_CELL_READY;
}

/* Publishes this rank's sizes (exchange g + 2 reuses g's words: a rank
 * reaches it only after every rank of its node published g + 1, i.e.
 * finished reading g: previous_read). */
int hier_guard_publish(hier_guard *g, const cx_args *a)
{
    /* (the node's layout and control block are there after the first
     * call: looked at inline before the calls that would find them so;
     * ctl_base is set once the block is made) */
    cx_comm *c = a->cc;
    char *ctl;
    int err;
    g->c = c;
    g->ex = NULL;
    g->gen = 0;
    g->cell = HIER_CELL_NO;
    if (!block_sizes(a, &g->send, &g->recv))
        return MPI_SUCCESS;
    if (!c->nodes_ready && (err = cx_comm_nodes(c)))
        return err;
    if (c->local_size == 1)
        return MPI_SUCCESS;
    if (!c->ctl_base && (err = cx_comm_node_ctl(c, &ctl)))
        return err;
    if (!(g->ex = hier_exchanges_of(c)))
        return MPI_ERR_NO_MEM;
    g->gen = ++g->ex->made;
    if ((err = previous_read(c, g->ex, g->gen)))
        return err;
    int64_t *mine = words(c, c->local_rank, g->gen);
    hier_pause();
    g->cell = a->nonblocking ? HIER_CELL_NO : hier_small_fill(a, g);
    hier_pause();
    mine[W_SEND] = g->send;
    mine[W_RECV] = g->recv;
    mine[W_CELL] = g->cell;
    __atomic_store_n(&mine[W_GEN], (int64_t)g->gen, __ATOMIC_RELEASE);
    /* SMPI: the last one wakes the node, a bcast's root its readers */
    if (cx_bell_wanted(c) && (all_published(g) || one_way_root(a, g)))
        cx_bell_ring(c);
    return MPI_SUCCESS;
}

int hier_guard_published(cx_sched *s, void *ctx, int *done)
{
    (void)s;
    hier_guard *g = ctx;
    *done = all_published(g);
    if (*done && g->gen) {
        cx_charge_sync(g->c->local_size);
        if (g->ex->seen < g->gen)
            g->ex->seen = g->gen;
    }
    return MPI_SUCCESS;
}

/* The range of the sizes the node published; 1 when every rank put its
 * data in its cell (small.c). */
static int node_range(const hier_guard *g, int64_t *least, int64_t *most)
{
    int ready = 1;
    *least = INT64_MAX;
    *most = -1;
    for (int l = 0; l < g->c->local_size; l++) {
        const int64_t *w = words(g->c, l, g->gen);
        for (int k = W_SEND; k <= W_RECV; k++) {
            if (w[k] >= 0 && w[k] < *least)
                *least = w[k];
            if (w[k] > *most)
                *most = w[k];
        }
        ready &= w[W_CELL] == HIER_CELL_READY;
    }
    return ready;
}

/* a as the rest of the node sees it: blocks of r bytes, on scratch
 * buffers the size of p blocks (a itself where its sizes are r). */
static const cx_args *as_node_sees(const cx_args *a, cx_sched *s, int64_t r, int64_t send,
                                   int64_t recv)
{
    if ((send < 0 || send == r) && (recv < 0 || recv == r))
        return a;
    cx_args *b = cx_sched_alloc(s, sizeof *b);
    if (!b)
        return NULL;
    *b = *a;
    b->shared_out = NULL;
    if (cx_coll_shape(a->coll) & CX_REDUCTION) {
        MPI_Count ts = cx_type_bytes(1, a->rtype);
        b->rcount = ts ? (int)(r / ts) : 0;
        if (a->sbuf != MPI_IN_PLACE)
            b->sbuf = cx_sched_alloc_typed(s, (MPI_Aint)b->rcount * a->size, a->rtype);
        b->rbuf = cx_sched_alloc_typed(s, (MPI_Aint)b->rcount * a->size, a->rtype);
    } else {
        b->scount = b->rcount = (int)r;
        b->stype = b->rtype = MPI_BYTE;
        if (a->sbuf != MPI_IN_PLACE)
            b->sbuf = cx_sched_alloc(s, (size_t)r * (size_t)a->size + 1);
        if (a->rbuf != MPI_IN_PLACE)
            b->rbuf = cx_sched_alloc(s, (size_t)r * (size_t)a->size + 1);
    }
    return (b->sbuf || a->sbuf == MPI_IN_PLACE) && b->rbuf ? b : NULL;
}

/* Whether every rank of the node put its data in its cell and their
 * significant sizes (>= 0) are one (node_range's ready and least ==
 * most), read line by line until one says no. */
static int agreed_lines(const hier_guard *g)
{
    int64_t size = -1;
    for (int l = 0; l < g->c->local_size; l++) {
        const int64_t *w = words(g->c, l, g->gen);
        if (w[W_CELL] != HIER_CELL_READY)
            return 0;
        for (int k = W_SEND; k <= W_RECV; k++) {
            if (w[k] < 0)
                continue;   /* not significant on that rank */
            if (size >= 0 && w[k] != size)
                return 0;
            size = w[k];
        }
    }
    return size >= 0;
}

/* Whether a size a rank published is not significant or is size. */
static inline int fits(int64_t published, int64_t size)
{
    return published < 0 || published == size;
}

/* agreed_lines with this rank's own line known (g: what it published):
 * when its cell is not ready or its sizes differ, no; when one of its
 * sizes is significant, every other line is compared with that size. */
int hier_small_agreed(const hier_guard *g)
{
    int64_t size = g->send >= 0 ? g->send : g->recv;
    const cx_comm *c = g->c;
    if (!g->gen || g->cell != HIER_CELL_READY || !fits(g->recv, size))
        return 0;
    if (size < 0)
        return agreed_lines(g);   /* nothing significant here */
    for (int l = 0; l < c->local_size; l++) {
        const int64_t *w = words(g->c, l, g->gen);
        if (l != c->local_rank &&
            (w[W_CELL] != HIER_CELL_READY || !fits(w[W_SEND], size) || !fits(w[W_RECV], size)))
            return 0;
    }
    return 1;
}

int hier_guard_build(const hier_guard *g, const cx_args *a, cx_sched *s,
                     hier_build_fn build)
{
    int64_t least, most;
    if (!g->gen)
        return build(a, s);   /* not checked, or alone on its node */
    node_range(g, &least, &most);
    if (most < 0 || least == most || most > INT_MAX)
        return build(a, s);   /* the node agrees (or cannot be helped: 2^31) */
    if (cx_verbose() > 0 && g->c->local_rank == 0)
        cx_say("%s/hier: ranks of node %d disagree on the block size (%lld vs %lld "
               "bytes): an erroneous call; the node's ranks return MPI_ERR_TRUNCATE",
               cx_coll_mpi_name(a->coll), g->c->my_node, (long long)least, (long long)most);
    const cx_args *b = as_node_sees(a, s, most, g->send, g->recv);
    if (!b)
        return MPI_ERR_NO_MEM;
    int err = build(b, s);
    cx_sched_fail(s, MPI_ERR_TRUNCATE);
    return err;
}

typedef struct hier_guard_root {
    const hier_guard *g;
    int root;   /* the root's local rank */
} hier_guard_root;

/* Whether the root of the bcast g published it (charged as one handoff). */
static int root_published(cx_sched *s, void *ctx, int *done)
{
    (void)s;
    const hier_guard_root *r = ctx;
    *done = reached(r->g->c, r->root, r->g->gen) >= r->g->gen;
    if (*done)
        cx_charge_sync(2);
    return MPI_SUCCESS;
}

/* A bcast's way (one_way_root): 1 when the call is done (*err its
 * result), 0 when the root's data are not in its cell and the node
 * exchanges as for any call. A rank whose size differs from the root's
 * (an erroneous call) returns MPI_ERR_TRUNCATE and takes nothing; the
 * root, gone already, does not know, as with the MPIs' own. */
static int one_way(const cx_args *a, hier_guard *g, int *err)
{
    if (a->rank == a->root)
        return one_way_root(a, g);
    cx_comm *c = g->c;
    hier_guard_root r = {.g = g, .root = c->local_of[a->root]};
    if ((*err = cx_bell_wait(c, NULL, root_published, &r)))
        return 1;
    const int64_t *w = words(c, r.root, g->gen);
    if (w[W_CELL] != HIER_CELL_READY)
        return 0;
    if (w[W_RECV] != g->recv) {
        if (cx_verbose() > 0)
            cx_say("MPI_Bcast/hier: rank %d posts %lld bytes, its root %d sends %lld: an "
                   "erroneous call; rank %d returns MPI_ERR_TRUNCATE", a->rank,
                   (long long)g->recv, a->root, (long long)w[W_RECV], a->rank);
        *err = MPI_ERR_TRUNCATE;
        return 1;
    }
    *err = hier_small_run(a, g);
    return 1;
}

/* Publishes this rank's sizes and waits for the node's: 1 when the call
 * was small and is done (*err its result), 0 to build it (*err set on
 * failure, g->gen == 0 when nothing is checked). */
static inline int exchanged(const cx_args *a, hier_guard *g, int *err)
{
    if ((*err = hier_guard_publish(g, a)) || !g->gen)
        return 0;
    CX_PHASE(CX_PH_NODE_PUBLISH);
    if (a->coll == CX_COLL_BCAST && g->c->nnodes == 1 && !a->nonblocking &&
        one_way(a, g, err)) {   /* (the root's line is on this node) */
        CX_PHASE(CX_PH_NODE_READ);
        return 1;
    }
    if (*err)
        return 0;
    *err = cx_bell_wait(a->cc, NULL, hier_guard_published, g);
    CX_PHASE(CX_PH_NODE_WAIT);
    if (*err || !hier_small_agreed(g))
        return 0;
    *err = hier_small_run(a, g);   /* done: no schedule */
    CX_PHASE(CX_PH_NODE_READ);
    return 1;
}

/* The nonblocking calls in flight finish first (queue.c), as the build
 * would have them; what the exchange decides is the same on every rank,
 * so either all ranks of the node end here or all build. */
int hier_direct(const cx_args *a, int *done)
{
    hier_guard g;
    int err;
    hier_queue *q = hier_forget_published(a->cc);
    if ((!q || !hier_queue_idle(q)) && (err = hier_quiesce(a->cc))) {
        *done = 1;
        return err;
    }
    *done = exchanged(a, &g, &err) || err;
    if (!*done && g.gen)
        hier_keep_published(a->cc, a, &g);
    return err;
}

int hier_guarded(const cx_args *a, cx_sched *s, hier_build_fn build)
{
    hier_guard g;
    int err = MPI_SUCCESS;
    if (!hier_take_published(a->cc, a, &g) && exchanged(a, &g, &err))
        return err;   /* done: the schedule stays empty */
    if (err || !g.gen)
        return err ? err : build(a, s);
    return hier_guard_build(&g, a, s, build);
}
