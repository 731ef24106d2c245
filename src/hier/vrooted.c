/* Hierarchical gatherv and scatterv. A rank knows only its own count (the
 * root knows all), so every rank writes the bytes of its piece into a
 * table in the slot and the root writes every node's total; after a node
 * barrier each rank finds its place (a start step appends the rest).
 * Node regions hold their ranks' pieces in local order; on the root's
 * node the region holds every node's, node after node, and the leaders
 * run one gatherv / scatterv of the regions.
 *
 * A scattered region starts with a header, the root's size of it: a
 * leader compares it with its node's own counts, so a node whose ranks
 * expect other sizes than the root sends them returns MPI_ERR_TRUNCATE
 * whether or not the MPI's collective reports the truncation (MPICH's
 * MPI_Iscatterv does not). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "hier.h"

typedef struct vx {
    hier h;
    int scatter, root_node;
    MPI_Aint hdr;        /* bytes of a region's header (scatter only) */
    MPI_Aint *table;     /* [local rank] bytes of its piece */
    MPI_Aint *totals;    /* [node] bytes of its region (written by the root) */
    char *region;        /* this node's region (root's node: all regions) */
    /* Above the budget: band b = local ranks [band[b], band[b + 1]), each a
     * gatherv / scatterv of its own (the other ranks' counts 0). */
    const cx_args *orig;
    int *band, nb, b;
} vx;

static int band_step(vx *x, cx_sched *s);

static MPI_Aint align64(MPI_Aint b) { return (b + 63) / 64 * 64; }

/* Bytes of rank r's piece as the root sees it. */
static MPI_Aint root_bytes(const cx_args *a, int r)
{
    cx_piece b = cx_all_block(a, r);
    return (MPI_Aint)cx_type_bytes(b.count, b.type);
}

/* Offset of local rank l's piece in its node's region, from the table. */
static MPI_Aint local_offset(const vx *x, int l)
{
    MPI_Aint off = 0;
    for (int i = 0; i < l; i++)
        off += x->table[i];
    return off;
}

/* Offset of node n's region (its header) in the root node's region. */
static MPI_Aint node_offset(const vx *x, int n)
{
    MPI_Aint off = 0;
    for (int i = 0; i < n; i++)
        off += x->hdr + x->totals[i];
    return off;
}

/* The leaders' gatherv / scatterv of the regions (bytes). */
static int leaders(vx *x, cx_sched *s)
{
    cx_comm *c = x->h.c;
    int n = c->nnodes, me = c->my_node;
    if (c->leaders == MPI_COMM_NULL || n < 2)
        return MPI_SUCCESS;
    int *v = cx_sched_alloc(s, sizeof(int) * 2 * (size_t)n);
    if (!v)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        v[i] = (int)(x->hdr + x->totals[i]);
        v[n + i] = (int)node_offset(x, i);
    }
    MPI_Aint mine = x->hdr + local_offset(x, c->local_size);
    char *at = x->region + (me == x->root_node ? node_offset(x, me) : 0);
    cx_args inter = {.root = x->root_node};
    if (x->scatter)
        inter = (cx_args){.coll = CX_COLL_SCATTERV, .sbuf = x->region, .scounts = v,
                          .sdispls = v + n, .stype = MPI_BYTE, .rbuf = at,
                          .rcount = (int)mine, .rtype = MPI_BYTE, .root = x->root_node};
    else
        inter = (cx_args){.coll = CX_COLL_GATHERV, .sbuf = at, .scount = (int)mine,
                          .stype = MPI_BYTE, .rbuf = x->region, .rcounts = v,
                          .rdispls = v + n, .rtype = MPI_BYTE, .root = x->root_node};
    /* The regions' sizes come from the root's counts alone, so in an
     * erroneous call the leaders may disagree: the MPI's nonblocking
     * schedule completes such a call cleanly, where Open MPI 4.1's
     * blocking linear gatherv leaves the rest of its messages for the next
     * call (and hangs with rendezvous-sized ones). */
    inter.nonblocking = 1;
    if (me == x->root_node) {
        if (x->scatter)
            inter.rbuf = MPI_IN_PLACE;
        else
            inter.sbuf = MPI_IN_PLACE;
    }
    return hier_leaders(&x->h, s, &inter);
}

/* The root's copies between its buffer and the root node's region. */
static int root_copies(vx *x, cx_sched *s)
{
    const cx_args *a = x->h.a;
    cx_comm *c = x->h.c;
    const int *first, *members;
    int err = hier_members(&x->h, &first, &members);
    for (int n = 0; n < c->nnodes && !err; n++) {
        MPI_Aint off = node_offset(x, n);
        if (x->hdr)
            err = cx_sched_copy(s, &x->totals[n], x->hdr, MPI_BYTE, x->region + off, x->hdr,
                                MPI_BYTE);
        off += x->hdr;
        for (int k = first[n]; k < first[n + 1] && !err; k++) {
            int r = members[k];
            MPI_Aint b = root_bytes(a, r);
            cx_piece blk = cx_all_block(a, r);
            if (b && !(r == a->rank && cx_own_in_place(a)))
                err = x->scatter
                          ? cx_sched_copy(s, blk.buf, blk.count, blk.type, x->region + off, b,
                                          MPI_PACKED)
                          : cx_sched_copy(s, x->region + off, b, MPI_PACKED, blk.buf,
                                          blk.count, blk.type);
            off += b;
        }
    }
    return err;
}

/* Whether the pieces of the root's node, as its ranks' own counts give
 * them (the table), are what the root's counts say (an erroneous call
 * otherwise: its ranks return MPI_ERR_TRUNCATE; the leaders' collective
 * reports the other nodes'). Only the root's node has the totals. */
static int node_agrees(const vx *x)
{
    const cx_args *a = x->h.a;
    cx_comm *c = x->h.c;
    if (c->my_node != x->root_node)
        return 1;
    if (a->rank == a->root) {
        const int *first, *members;
        if (hier_members((hier *)&x->h, &first, &members))
            return 1;
        for (int l = 0; l < c->local_size; l++)
            if (x->table[l] != root_bytes(a, members[first[c->my_node] + l]))
                return 0;
    }
    return local_offset(x, c->local_size) == x->totals[c->my_node];
}

/* A leader off the root's node, before its region arrives: a header that
 * no region has, in case the MPI's truncated receive leaves it alone. */
static const MPI_Aint no_header = -1;

/* ... and after: whether the root's size of the region is the node's. */
static int check_header(cx_sched *s, void *ctx, MPI_Request *req)
{
    vx *x = ctx;
    MPI_Aint root_says;
    *req = MPI_REQUEST_NULL;
    memcpy(&root_says, x->region, sizeof root_says);
    if (root_says != local_offset(x, x->h.c->local_size))
        cx_sched_fail(s, MPI_ERR_TRUNCATE);
    return MPI_SUCCESS;
}

/* After the first node barrier: the table and the totals are in. */
static int rest(cx_sched *s, void *ctx, MPI_Request *req)
{
    vx *x = ctx;
    const cx_args *a = x->h.a;
    cx_comm *c = x->h.c;
    *req = MPI_REQUEST_NULL;
    int me = c->my_node, root = a->rank == a->root, err = MPI_SUCCESS;
    if (!node_agrees(x))
        cx_sched_fail(s, MPI_ERR_TRUNCATE);
    MPI_Aint at = (me == x->root_node ? node_offset(x, me) : 0) + x->hdr +
                  local_offset(x, c->local_rank);
    int header_leader = x->scatter && me != x->root_node && c->local_rank == 0 &&
                        c->nnodes > 1;
    cx_piece own = cx_own_piece(a);
    MPI_Aint bytes = x->table[c->local_rank];
    if (x->scatter) {
        if (root)
            err = root_copies(x, s);
        if (!err && me == x->root_node)
            err = hier_node_barrier(&x->h, s);
        if (!err && header_leader)
            err = cx_sched_copy(s, &no_header, x->hdr, MPI_BYTE, x->region, x->hdr, MPI_BYTE);
        if (!err)
            err = leaders(x, s);
        if (!err && header_leader)
            err = cx_sched_start(s, check_header, x);
        if (!err)
            err = hier_node_barrier(&x->h, s);
        if (!err && bytes && !cx_own_in_place(a))
            err = cx_sched_copy(s, x->region + at, bytes, MPI_PACKED, own.buf, own.count,
                                own.type);
        return err ? err : band_step(x, s);
    }
    if (bytes)
        err = cx_sched_copy(s, own.buf, own.count, own.type, x->region + at, bytes,
                            MPI_PACKED);
    if (!err)
        err = hier_node_barrier(&x->h, s);
    if (!err)
        err = leaders(x, s);
    if (!err && me == x->root_node)
        err = hier_node_barrier(&x->h, s);
    if (!err && root)
        err = root_copies(x, s);
    return err ? err : band_step(x, s);
}

/* Bytes of this rank's own piece. */
static MPI_Aint own_bytes(const cx_args *a)
{
    cx_piece own = cx_own_piece(a);
    return cx_own_in_place(a) ? root_bytes(a, a->rank)
                              : (MPI_Aint)cx_type_bytes(own.count, own.type);
}

/* Bytes before the regions for a node of n ranks: the table of the
 * node's pieces, the totals. */
static MPI_Aint head_bytes(const cx_comm *c, int n)
{
    return align64((MPI_Aint)sizeof(MPI_Aint) * n) +
           align64((MPI_Aint)sizeof(MPI_Aint) * c->nnodes);
}

/* One call (or band) through the slot: the table and the root's totals,
 * a node barrier, then the rest (a start step). */
static int start_call(vx *x, cx_sched *s)
{
    const cx_args *a = x->h.a;
    cx_comm *c = x->h.c;
    int p = a->size, err, root = a->rank == a->root;
    x->table = (MPI_Aint *)(void *)x->h.slot;
    x->totals = (MPI_Aint *)(void *)(x->h.slot +
                                     align64((MPI_Aint)sizeof(MPI_Aint) * c->local_size));
    x->region = x->h.slot + head_bytes(c, c->local_size);
    MPI_Aint *row = cx_sched_alloc(s, sizeof(MPI_Aint) * (size_t)(1 + c->nnodes));
    if (!row)
        return MPI_ERR_NO_MEM;
    row[0] = own_bytes(a);
    err = cx_sched_copy(s, row, sizeof(MPI_Aint), MPI_BYTE, &x->table[c->local_rank],
                        sizeof(MPI_Aint), MPI_BYTE);
    if (!err && root) {   /* every node's total, from the root's counts */
        memset(row + 1, 0, sizeof(MPI_Aint) * (size_t)c->nnodes);
        for (int r = 0; r < p; r++)
            row[1 + c->node_of[r]] += root_bytes(a, r);
        err = cx_sched_copy(s, row + 1, (MPI_Aint)sizeof(MPI_Aint) * c->nnodes, MPI_BYTE,
                            x->totals, (MPI_Aint)sizeof(MPI_Aint) * c->nnodes, MPI_BYTE);
    }
    if (!err)
        err = hier_node_barrier(&x->h, s);
    /* (only the root's leader reads the totals: counts at the root) */
    if (!err)
        err = cx_sched_start(s, rest, x);
    return err ? err : cx_sched_barrier(s);
}

/* After a band (or the one call): the next band, if any, in the other
 * half of the segment, its arguments those of the call with every count
 * outside the band 0. */
static int band_step(vx *prev, cx_sched *s)
{
    if (!prev->band || prev->b + 1 >= prev->nb)
        return cx_sched_barrier(s);
    /* A band's own state: the previous band's later steps still read
     * theirs (check_header). */
    vx *x = cx_sched_alloc(s, sizeof *x);
    const cx_args *a = prev->orig;
    cx_args *sub = cx_sched_alloc(s, sizeof *sub);
    int *counts = cx_sched_alloc(s, sizeof(int) * (size_t)a->size);
    if (!x || !sub || !counts)
        return MPI_ERR_NO_MEM;
    *x = *prev;
    int lo = x->band[++x->b], hi = x->band[x->b + 1], p = a->size;
    *sub = *a;
    const int *all = x->scatter ? a->scounts : a->rcounts;
    for (int r = 0; r < p && a->rank == a->root; r++)
        counts[r] = x->h.c->local_of[r] >= lo && x->h.c->local_of[r] < hi ? all[r] : 0;
    int mine_in = x->h.c->local_rank >= lo && x->h.c->local_rank < hi;
    if (x->scatter) {
        sub->scounts = counts;
        if (!mine_in && a->rbuf != MPI_IN_PLACE)
            sub->rcount = 0;
    } else {
        sub->rcounts = counts;
        if (!mine_in && a->sbuf != MPI_IN_PLACE)
            sub->scount = 0;
    }
    x->h.a = sub;
    int err = x->b ? hier_next_slot(&x->h, s) : MPI_SUCCESS;
    return err ? err : start_call(x, s);
}

/* What the ranks agree on before building (agree.c): [0] a rank's need
 * (its piece; the root: every piece and the totals; a leader: the node's
 * head), the node's sum and its largest over the nodes; then, summed over
 * the communicator, for the bands above the budget, [1 + j] the bytes of
 * local rank j's pieces by the ranks' own sizes and [1 + L + j] by the
 * root's (they differ in an erroneous call, where the root's node lays
 * the earlier nodes out by the root's sizes and its own ranks by theirs:
 * the sum bounds both). */
int cx_hier_gatherv_values(const cx_args *a, cx_sched *s, hier_values *v)
{
    cx_comm *c = a->cc;
    int L = c->max_ranks_per_node, root = a->rank == a->root;
    int err = hier_values_alloc(s, v, 1 + 2 * L, 1);
    if (err)
        return err;
    MPI_Aint hdr = a->coll == CX_COLL_SCATTERV ? (MPI_Aint)sizeof(MPI_Aint) : 0;
    MPI_Aint total = hdr * (root ? c->nnodes : 1);
    for (int r = 0; root && r < a->size; r++) {
        MPI_Aint b = root_bytes(a, r);
        total += b;
        v->mine[1 + L + c->local_of[r]] += b;
    }
    v->mine[1 + c->local_rank] = own_bytes(a);
    v->mine[0] = own_bytes(a) + total + (c->local_rank ? 0 : head_bytes(c, c->local_size));
    return MPI_SUCCESS;
}

/* Bands of local ranks for a call above the budget, from the agreed
 * column sizes (alike everywhere). 0: not even one local rank fits. */
static int gatherv_bands(vx *x, cx_sched *s, const hier_values *v, MPI_Aint room)
{
    int L = x->h.c->max_ranks_per_node;
    MPI_Aint *col = cx_sched_alloc(s, sizeof(MPI_Aint) * (size_t)L);
    x->band = cx_sched_alloc(s, sizeof(int) * (size_t)(L + 1));
    if (!col || !x->band)
        return -1;
    for (int j = 0; j < L; j++)
        col[j] = (MPI_Aint)(v->all[1 + j] + v->all[1 + L + j]);
    room = room < INT_MAX ? room : INT_MAX;   /* leaders' counts are int */
    x->nb = room > 0 ? hier_bands(col, L, room, x->band) : 0;
    return x->nb;
}

int cx_hier_gatherv(const cx_args *a, cx_sched *s)
{
    vx *x = cx_sched_alloc(s, sizeof *x);
    cx_comm *c = a->cc;
    const hier_values *v;
    int err;
    if (!x)
        return MPI_ERR_NO_MEM;
    memset(x, 0, sizeof *x);
    if ((err = cx_comm_nodes(c)))
        return err;
    x->scatter = a->coll == CX_COLL_SCATTERV;
    x->hdr = x->scatter ? (MPI_Aint)sizeof(MPI_Aint) : 0;
    x->orig = a;
    x->root_node = c->node_of[a->root];
    x->h.a = a;
    x->h.c = c;
    if ((err = hier_agreed(a, s, cx_hier_gatherv_values, &v)))
        return err;
    MPI_Aint need = hier_agreed_slot(v), largest = (MPI_Aint)v->all[0];
    if (!hier_need_fits(largest)) {   /* in bands of local ranks, if one fits */
        /* (from the largest node: every node must cut the same bands) */
        MPI_Aint room = hier_slot_budget() - head_bytes(c, c->max_ranks_per_node) -
                        x->hdr * c->nnodes - 64;
        int nb = gatherv_bands(x, s, v, room);
        if (nb < 0)
            return MPI_ERR_NO_MEM;
        if (nb == 0)
            return hier_run_native(&x->h, s, largest);
        x->b = -1;
    }
    if ((err = hier_begin(&x->h, a, s, NULL, 0, need)))
        return err;
    return x->band ? band_step(x, s) : start_call(x, s);
}
