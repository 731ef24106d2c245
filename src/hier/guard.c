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

/* Whether every rank of the node published exchange g->gen (nothing
 * charged: the writer's check as well as the waiter's). */
static int all_published(const hier_guard *g)
{
    for (int l = 0; g->gen && l < g->c->local_size; l++)
        if ((unsigned long long)__atomic_load_n(&words(g->c, l, g->gen)[W_GEN],
                                                __ATOMIC_ACQUIRE) != g->gen)
            return 0;
    return 1;
}

/* Publishes this rank's sizes (exchange g + 2 reuses g's words: a rank
 * reaches it only after every rank of its node published g + 1, i.e.
 * finished reading g). */
int hier_guard_publish(hier_guard *g, const cx_args *a)
{
    /* (the node's layout and control block are there after the first
     * call: looked at inline before the calls that would find them so;
     * ctl_base is set once the block is made) */
    cx_comm *c = a->cc;
    char *ctl;
    int err;
    g->c = c;
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
    if (!(g->gen = hier_next_exchange(c)))
        return MPI_ERR_NO_MEM;
    int64_t *mine = words(c, c->local_rank, g->gen);
    hier_pause();
    g->cell = a->nonblocking ? HIER_CELL_NO : hier_small_fill(a, g);
    hier_pause();
    mine[W_SEND] = g->send;
    mine[W_RECV] = g->recv;
    mine[W_CELL] = g->cell;
    __atomic_store_n(&mine[W_GEN], (int64_t)g->gen, __ATOMIC_RELEASE);
    if (cx_bell_wanted(c) && all_published(g))   /* SMPI: the last one wakes */
        cx_bell_ring(c);
    return MPI_SUCCESS;
}

int hier_guard_published(cx_sched *s, void *ctx, int *done)
{
    (void)s;
    hier_guard *g = ctx;
    *done = all_published(g);
    if (*done && g->gen)
        cx_charge_sync(g->c->local_size);
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

/* Publishes this rank's sizes and waits for the node's: 1 when the call
 * was small and is done (*err its result), 0 to build it (*err set on
 * failure, g->gen == 0 when nothing is checked). */
static inline int exchanged(const cx_args *a, hier_guard *g, int *err)
{
    if ((*err = hier_guard_publish(g, a)) || !g->gen)
        return 0;
    CX_PHASE(CX_PH_NODE_PUBLISH);
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
