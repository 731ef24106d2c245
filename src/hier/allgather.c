/* Hierarchical allgather(v) and barrier. Every rank packs its block into
 * its node's region, the leaders exchange the regions in place
 * (allgatherv: nodes differ in size), and every rank unpacks all blocks. */
#include <stdlib.h>
#include "hier.h"

/* Bytes of each local rank's blocks on all nodes together (col[l], nl
 * columns): data above the budget goes band of local ranks by band. */
static MPI_Aint *columns(const cx_args *a, const MPI_Aint *bytes, int *nl)
{
    cx_comm *c = a->cc;
    int n = 0;
    for (int r = 0; r < a->size; r++)
        n = c->local_of[r] + 1 > n ? c->local_of[r] + 1 : n;
    MPI_Aint *col = calloc((size_t)n, sizeof *col);
    for (int r = 0; col && r < a->size; r++)
        col[c->local_of[r]] += bytes ? bytes[r] : (MPI_Aint)cx_type_bytes(a->rcounts[r],
                                                                           a->rtype);
    *nl = n;
    return col;
}

/* Up to the budget; above it, bands of local ranks fill the segment (the
 * largest column must fit: else the call runs native). */
MPI_Aint cx_hier_shm_allgatherv(const cx_args *a)
{
    MPI_Aint total = (MPI_Aint)cx_counts_bytes(a->rcounts, a->size, a->rtype);
    MPI_Aint most = hier_slot_budget(), largest = 0;
    if (total <= most)
        return hier_shm_bytes(total);
    int nl;
    MPI_Aint *col = columns(a, NULL, &nl);
    if (!col)
        return hier_shm_bytes(total);
    for (int l = 0; l < nl; l++)
        largest = col[l] > largest ? col[l] : largest;
    free(col);
    return hier_shm_bytes(largest > most ? largest : most);
}

/* The same for allgather: p equal blocks. */
MPI_Aint cx_hier_shm_allgather(const cx_args *a)
{
    MPI_Aint total = (MPI_Aint)a->size * (MPI_Aint)cx_block_bytes(a), most = hier_slot_budget();
    if (total <= most)
        return hier_shm_bytes(total);
    MPI_Aint col = (MPI_Aint)cx_block_bytes(a) * a->cc->nnodes;   /* local rank 0's */
    return hier_shm_bytes(col > most ? col : most);
}

/* Whether the slot holds the blocks exactly where a receive buffer at its
 * start would (plain type, blocks in rank order at their displacements). */
static int lands_in_place(const hier *h)
{
    const cx_args *a = h->a;
    if (!cx_type_plain(a->rtype))
        return 0;
    for (int r = 0; r < a->size; r++)
        if (cx_all_block(a, r).buf - (char *)a->rbuf != h->rank_off[r])
            return 0;
    return 1;
}

/* One band: the blocks of local ranks [lo, hi) of every node (band bytes
 * in piece, others 0) through the slot. */
static int allgather_band(hier *h, cx_sched *s, const MPI_Aint *bytes, const MPI_Aint *piece,
                          int lo, int hi, int whole)
{
    const cx_args *a = h->a;
    int n = h->c->nnodes, me = h->c->local_rank, err;
    int *counts = cx_sched_alloc(s, sizeof(int) * (size_t)n * 2);
    if (!counts)
        return MPI_ERR_NO_MEM;
    if ((err = hier_layout(h, s, piece, 0)))
        return err;
    for (int i = 0; i < n; i++) {   /* my column's share of every node's region */
        MPI_Aint off, len;
        hier_share(h->node_off[i + 1] - h->node_off[i], me, h->senders, &off, &len);
        counts[i] = (int)len;
        counts[n + i] = (int)(h->node_off[i] + off);
    }
    err = MPI_SUCCESS;
    if (me >= lo && me < hi) {
        cx_piece own = cx_own_piece(a);
        err = cx_sched_copy(s, own.buf, own.count, own.type, h->slot + h->rank_off[a->rank],
                            bytes[a->rank], MPI_PACKED);
    }
    cx_args inter = {.coll = CX_COLL_ALLGATHERV, .sbuf = MPI_IN_PLACE, .rbuf = h->slot,
                     .rcounts = counts, .rdispls = counts + n, .rtype = MPI_BYTE};
    if (!err)
        err = hier_node_barrier(h, s);
    if (!err)
        err = hier_columns(h, s, &inter);
    if (!err)
        err = hier_node_barrier(h, s);
    if (whole && a->shared_out && lands_in_place(h)) {
        *a->shared_out = h->slot;   /* the caller reads the segment */
        return err;
    }
    if (!err)
        err = hier_copy_band(h, s, bytes, 0, 1, cx_own_in_place(a) ? a->rank : -1, lo, hi);
    return err;
}

static int allgather(const cx_args *a, cx_sched *s, int ms)
{
    hier h;
    int p = a->size, err, nl;
    /* Block sizes in bytes: every rank knows them all (v: from rcounts). */
    MPI_Aint *bytes = cx_sched_alloc(s, sizeof(MPI_Aint) * (size_t)p), total = 0;
    MPI_Aint *piece = cx_sched_alloc(s, sizeof(MPI_Aint) * (size_t)p);
    if (!bytes || !piece)
        return MPI_ERR_NO_MEM;
    for (int r = 0; r < p; r++) {
        cx_piece b = cx_all_block(a, r);
        total += bytes[r] = (MPI_Aint)cx_type_bytes(b.count, b.type);
    }
    if ((err = cx_comm_nodes(a->cc)))
        return err;
    /* Above the budget, bands of local ranks (the dispatcher checked that
     * the largest column fits). */
    MPI_Aint *col = columns(a, bytes, &nl), budget = hier_slot_budget();
    int *band = cx_sched_alloc(s, sizeof(int) * (size_t)(nl + 1)), nb = 1;
    if (!col || !band) {
        free(col);
        return MPI_ERR_NO_MEM;
    }
    band[0] = 0;
    band[1] = nl;
    MPI_Aint slot = total;
    if (total > budget) {
        nb = hier_bands(col, nl, budget, band);
        slot = budget;
    }
    free(col);
    if (nb == 0)
        return MPI_ERR_NO_MEM;   /* not reached: the dispatcher ran native */
    if ((err = hier_begin(&h, a, s, bytes, 0, slot)) || total == 0)
        return err;
    if (ms && (err = hier_choose_senders(&h, total < slot ? total : slot, HIER_SENDER_BYTES)))
        return err;
    for (int b = 0; b < nb && !err; b++) {
        for (int r = 0; r < p; r++)
            piece[r] = a->cc->local_of[r] >= band[b] && a->cc->local_of[r] < band[b + 1]
                           ? bytes[r] : 0;
        if (b)
            err = hier_next_slot(&h, s);
        if (!err)
            err = allgather_band(&h, s, bytes, piece, band[b], band[b + 1], nb == 1);
    }
    return err;
}

int cx_hier_allgather(const cx_args *a, cx_sched *s) { return allgather(a, s, 0); }
int cx_hier_ms_allgather(const cx_args *a, cx_sched *s) { return allgather(a, s, 1); }

int cx_hier_barrier(const cx_args *a, cx_sched *s)
{
    cx_comm *c = a->cc;
    int err = cx_comm_nodes(c);
    hier h = {.a = a, .c = c};
    cx_args inter = {.coll = CX_COLL_BARRIER};
    if (!err)
        err = hier_node_barrier(&h, s);
    if (!err)
        err = hier_leaders(&h, s, &inter);
    return err ? err : hier_node_barrier(&h, s);
}
