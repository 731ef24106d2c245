/* Hierarchical bcast, gather and scatter. The segment's slot holds packed
 * bytes (by type signature: derived and differing send/receive types
 * work): the whole message (bcast) or every rank's block, node by node. */
#include "hier.h"

/* Up to the budget: a message above it goes in chunks of whole elements. */
MPI_Aint cx_hier_shm_bcast(const cx_args *a)
{
    MPI_Aint bytes = (MPI_Aint)cx_type_bytes(a->rcount, a->rtype), most = hier_slot_budget();
    return hier_shm_bytes(bytes < most ? bytes : most);
}

/* Gather and scatter: p blocks of the block size every rank agrees on;
 * above the budget, bands of local ranks (one local rank's blocks on all
 * nodes must fit, else the call runs native). */
MPI_Aint cx_hier_shm_blocks(const cx_args *a)
{
    MPI_Aint bb = (MPI_Aint)cx_block_bytes(a), total = (MPI_Aint)a->size * bb;
    MPI_Aint most = hier_slot_budget();
    if (total <= most || !a->cc || !a->cc->nodes_ready)
        return hier_shm_bytes(total);
    MPI_Aint col = (MPI_Aint)a->cc->nnodes * bb;
    return hier_shm_bytes(col > most ? col : most);
}

/* Local ranks per band for blocks of bb bytes (all of them: one pass). */
static int band_width(const cx_comm *c, int p, MPI_Aint bb)
{
    MPI_Aint most = hier_slot_budget(), w;
    if ((MPI_Aint)p * bb <= most || bb == 0)
        return c->max_ranks_per_node;
    w = most / ((MPI_Aint)c->nnodes * bb);
    return w < 1 ? 1 : (int)w;
}

/* One chunk: elements [e0, e0 + k) of the message. */
static int bcast_chunk(hier *h, cx_sched *s, MPI_Aint e0, MPI_Aint k)
{
    const cx_args *a = h->a;
    MPI_Aint bytes = (MPI_Aint)cx_type_bytes(k, a->rtype);
    char *buf = (char *)a->rbuf + e0 * cx_type_extent(a->rtype);
    int root_node = h->c->node_of[a->root], err = MPI_SUCCESS;
    MPI_Aint lo, len;   /* my column's share of the chunk */
    hier_share(bytes, h->c->local_rank, h->senders, &lo, &len);
    cx_args inter = {.coll = CX_COLL_BCAST, .rbuf = h->slot + lo, .rcount = (int)len,
                     .rtype = MPI_BYTE, .root = root_node};
    if (a->rank == a->root)
        err = cx_sched_copy(s, buf, k, a->rtype, h->slot, bytes, MPI_PACKED);
    if (!err && h->c->my_node == root_node)   /* the root's data is in */
        err = hier_node_barrier(h, s);
    if (!err)
        err = hier_columns(h, s, &inter);
    if (!err)
        err = hier_node_barrier(h, s);
    if (a->shared_out && cx_type_plain(a->rtype) && a->rank != a->root && e0 == 0 &&
        k == a->rcount) {
        *a->shared_out = h->slot;   /* the caller reads the segment */
        return err;
    }
    if (!err && a->rank != a->root)
        err = cx_sched_copy(s, h->slot, bytes, MPI_PACKED, buf, k, a->rtype);
    return err;
}

static int bcast(const cx_args *a, cx_sched *s, int ms)
{
    hier h;
    MPI_Aint bytes = (MPI_Aint)cx_type_bytes(a->rcount, a->rtype);
    MPI_Aint esize = bytes / (a->rcount ? a->rcount : 1);
    MPI_Aint per = esize ? hier_slot_budget() / esize : 0;   /* elements per chunk */
    int err = hier_begin(&h, a, s, NULL, 0, bytes < per * esize ? bytes : per * esize);
    if (err || bytes == 0)
        return err;
    if (per < 1)
        return MPI_ERR_NO_MEM;   /* one element above COLLX_SHM_MAX / 2 */
    if (ms && (err = hier_choose_senders(&h, bytes, HIER_SENDER_BYTES)))
        return err;
    for (MPI_Aint e0 = 0; e0 < a->rcount && !err; e0 += per) {
        if (e0)
            err = hier_next_slot(&h, s);
        if (!err)
            err = bcast_chunk(&h, s, e0, a->rcount - e0 < per ? a->rcount - e0 : per);
    }
    return err;
}

int cx_hier_bcast(const cx_args *a, cx_sched *s) { return bcast(a, s, 0); }
int cx_hier_ms_bcast(const cx_args *a, cx_sched *s) { return bcast(a, s, 1); }

/* Counts and displacements (bytes) of the nodes' regions, as ints. */
static int node_counts(hier *h, cx_sched *s, int **counts, int **displs)
{
    int n = h->c->nnodes;
    *counts = cx_sched_alloc(s, sizeof(int) * (size_t)n * 2);
    if (!*counts)
        return MPI_ERR_NO_MEM;
    *displs = *counts + n;
    for (int i = 0; i < n; i++) {
        (*counts)[i] = (int)(h->node_off[i + 1] - h->node_off[i]);
        (*displs)[i] = (int)h->node_off[i];
    }
    return MPI_SUCCESS;
}

/* Lays out band [lo, hi) of local ranks (bb bytes each) and the nodes'
 * regions as the leaders' v-collective sees them. */
static int band_layout(hier *h, cx_sched *s, MPI_Aint bb, int lo, int hi, int **counts,
                       int **displs)
{
    const cx_args *a = h->a;
    MPI_Aint *piece = cx_sched_alloc(s, sizeof(MPI_Aint) * (size_t)a->size);
    if (!piece)
        return MPI_ERR_NO_MEM;
    for (int r = 0; r < a->size; r++)
        piece[r] = h->c->local_of[r] >= lo && h->c->local_of[r] < hi ? bb : 0;
    int err = hier_layout(h, s, piece, 0);
    return err ? err : node_counts(h, s, counts, displs);
}

static int in_band(const hier *h, int lo, int hi)
{
    return h->c->local_rank >= lo && h->c->local_rank < hi;
}

/* Gather, one band: its ranks' blocks -> the segment, leaders' gatherv of
 * the nodes' regions into the root's node, the root takes them. */
static int gather_band(hier *h, cx_sched *s, MPI_Aint bb, int lo, int hi)
{
    const cx_args *a = h->a;
    int *counts, *displs, err = band_layout(h, s, bb, lo, hi, &counts, &displs);
    if (err)
        return err;
    int root_node = h->c->node_of[a->root], me = h->c->my_node;
    if (in_band(h, lo, hi)) {
        cx_piece own = cx_own_piece(a);
        err = cx_sched_copy(s, own.buf, own.count, own.type, h->slot + h->rank_off[a->rank],
                            bb, MPI_PACKED);
    }
    /* Leaders send their node's region to the root's node, in place. */
    cx_args inter = {.coll = CX_COLL_GATHERV, .sbuf = h->slot + h->node_off[me],
                     .scount = counts[me], .stype = MPI_BYTE, .rbuf = h->slot,
                     .rcounts = counts, .rdispls = displs, .rtype = MPI_BYTE,
                     .root = root_node};
    if (me == root_node)
        inter.sbuf = MPI_IN_PLACE;
    if (!err)
        err = hier_node_barrier(h, s);
    if (!err)
        err = hier_leaders(h, s, &inter);
    if (err || me != root_node)
        return err;
    if ((err = hier_node_barrier(h, s)) || a->rank != a->root)
        return err;
    return hier_copy_band(h, s, NULL, bb, 1, cx_own_in_place(a) ? a->rank : -1, lo, hi);
}

/* Scatter, one band: the root puts its ranks' blocks in, leaders'
 * scatterv of the regions, every rank of the band takes its block. */
static int scatter_band(hier *h, cx_sched *s, MPI_Aint bb, int lo, int hi)
{
    const cx_args *a = h->a;
    int *counts, *displs, err = band_layout(h, s, bb, lo, hi, &counts, &displs);
    if (err)
        return err;
    int root_node = h->c->node_of[a->root], me = h->c->my_node;
    if (a->rank == a->root)
        err = hier_copy_band(h, s, NULL, bb, 0, -1, lo, hi);
    cx_args inter = {.coll = CX_COLL_SCATTERV, .sbuf = h->slot, .scounts = counts,
                     .sdispls = displs, .stype = MPI_BYTE,
                     .rbuf = h->slot + h->node_off[me], .rcount = counts[me],
                     .rtype = MPI_BYTE, .root = root_node};
    if (me == root_node)
        inter.rbuf = MPI_IN_PLACE;
    if (!err && me == root_node)
        err = hier_node_barrier(h, s);
    if (!err)
        err = hier_leaders(h, s, &inter);
    if (!err)
        err = hier_node_barrier(h, s);
    if (!err && in_band(h, lo, hi) && !cx_own_in_place(a)) {
        cx_piece own = cx_own_piece(a);
        err = cx_sched_copy(s, h->slot + h->rank_off[a->rank], bb, MPI_PACKED, own.buf,
                            own.count, own.type);
    }
    return err;
}

static int rooted_blocks(const cx_args *a, cx_sched *s,
                         int (*band)(hier *h, cx_sched *s, MPI_Aint bb, int lo, int hi))
{
    hier h;
    MPI_Aint bb = (MPI_Aint)cx_block_bytes(a);
    int err = cx_comm_nodes(a->cc);
    if (err)
        return err;
    int w = band_width(a->cc, a->size, bb);
    MPI_Aint slot = (MPI_Aint)w * a->cc->nnodes * bb, all = (MPI_Aint)a->size * bb;
    if ((err = hier_begin(&h, a, s, NULL, bb, slot < all ? slot : all)) || bb == 0)
        return err;
    for (int lo = 0; lo < a->cc->max_ranks_per_node && !err; lo += w) {
        if (lo)
            err = hier_next_slot(&h, s);
        if (!err)
            err = band(&h, s, bb, lo, lo + w);
    }
    return err;
}

int cx_hier_gather(const cx_args *a, cx_sched *s) { return rooted_blocks(a, s, gather_band); }
int cx_hier_scatter(const cx_args *a, cx_sched *s) { return rooted_blocks(a, s, scatter_band); }
