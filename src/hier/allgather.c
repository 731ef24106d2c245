/* Hierarchical allgather(v) and barrier. Every rank packs its block into
 * its node's region, the leaders exchange the regions in place
 * (allgatherv: nodes differ in size), and every rank unpacks all blocks. */
#include "hier.h"

MPI_Aint cx_hier_shm_allgatherv(const cx_args *a)
{
    MPI_Aint total = 0;
    for (int r = 0; r < a->size; r++)
        total += (MPI_Aint)cx_type_bytes(a->rcounts[r], a->rtype);
    return hier_shm_bytes(total);
}

/* Whether the slot holds the blocks exactly where a receive buffer at its
 * start would (plain type, blocks in rank order at their displacements). */
static int lands_in_place(const hier *h)
{
    const cx_args *a = h->a;
    if (!hier_plain_type(a->rtype))
        return 0;
    for (int r = 0; r < a->size; r++)
        if (cx_all_block(a, r).buf - (char *)a->rbuf != h->rank_off[r])
            return 0;
    return 1;
}

static int allgather(const cx_args *a, cx_sched *s, int ms)
{
    hier h;
    int p = a->size, err;
    /* Block sizes in bytes: every rank knows them all (v: from rcounts). */
    MPI_Aint *bytes = cx_sched_alloc(s, sizeof(MPI_Aint) * (size_t)p), total = 0;
    if (!bytes)
        return MPI_ERR_NO_MEM;
    for (int r = 0; r < p; r++) {
        cx_piece b = cx_all_block(a, r);
        total += bytes[r] = (MPI_Aint)cx_type_bytes(b.count, b.type);
    }
    if ((err = hier_begin(&h, a, s, bytes, 0, total)) || total == 0)
        return err;
    if (ms && (err = hier_choose_senders(&h, total)))
        return err;
    int n = h.c->nnodes, *counts = cx_sched_alloc(s, sizeof(int) * (size_t)n * 2);
    if (!counts)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {   /* my column's share of every node's region */
        MPI_Aint lo, len;
        hier_share(h.node_off[i + 1] - h.node_off[i], h.c->local_rank, h.senders, &lo, &len);
        counts[i] = (int)len;
        counts[n + i] = (int)(h.node_off[i] + lo);
    }
    cx_piece own = cx_own_piece(a);
    err = cx_sched_copy(s, own.buf, own.count, own.type, h.slot + h.rank_off[a->rank],
                        bytes[a->rank], MPI_PACKED);
    cx_args inter = {.coll = CX_COLL_ALLGATHERV, .sbuf = MPI_IN_PLACE, .rbuf = h.slot,
                     .rcounts = counts, .rdispls = counts + n, .rtype = MPI_BYTE};
    if (!err)
        err = hier_node_barrier(&h, s);
    if (!err)
        err = hier_columns(&h, s, &inter);
    if (!err)
        err = hier_node_barrier(&h, s);
    if (a->shared_out && lands_in_place(&h)) {
        *a->shared_out = h.slot;   /* the caller reads the segment */
        return err;
    }
    if (!err)
        err = hier_copy_blocks(&h, s, bytes, 0, 1, cx_own_in_place(a) ? a->rank : -1);
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
