/* Binomial trees on virtual ranks (root = virtual rank 0). Inner nodes keep
 * their subtree's blocks packed in virtual-rank order; the root receives or
 * sends a child's range in place when it maps to consecutive ranks, and
 * goes through a packed buffer (one copy per block) when it does not. */
#include "base.h"

static int root_gather(const cx_args *a, cx_sched *s, MPI_Aint bb)
{
    int err = MPI_SUCCESS, p = a->size;
    char *packed[32] = {0};   /* per child (indexed by log2 m) when not in place */
    err = cx_sched_own_block(a, s);
    for (int m = 1, k = 0; m < p && !err; m <<= 1, k++) {
        int n = cx_binomial_subtree(m, p);
        if (cx_vrange_contiguous(a, m, n)) {
            cx_piece b = cx_all_block(a, cx_rank_of(a, m));
            err = cx_sched_recv(s, b.buf, (MPI_Aint)n * b.count, b.type, cx_rank_of(a, m));
            continue;
        }
        if (!(packed[k] = cx_sched_alloc(s, (size_t)(n * bb))))
            return MPI_ERR_NO_MEM;
        err = cx_sched_recv(s, packed[k], n * bb, MPI_PACKED, cx_rank_of(a, m));
    }
    /* Unpacking waits for the receives: it goes in the next round. */
    if (!err)
        err = cx_sched_barrier(s);
    for (int m = 1, k = 0; m < p && !err; m <<= 1, k++)
        for (int j = 0; packed[k] && j < cx_binomial_subtree(m, p) && !err; j++) {
            cx_piece b = cx_all_block(a, cx_rank_of(a, m + j));
            err = cx_sched_copy(s, packed[k] + j * bb, bb, MPI_PACKED, b.buf,
                                b.count, b.type);
        }
    return err;
}

static int inner_gather(const cx_args *a, cx_sched *s, int v, MPI_Aint bb)
{
    int p = a->size, n = cx_binomial_subtree(v, p);
    int parent = cx_rank_of(a, v - cx_binomial_span(v, p)), err;
    cx_piece own = cx_own_piece(a);
    if (n == 1)
        return cx_sched_send(s, own.buf, own.count, own.type, parent);
    char *tmp = cx_sched_alloc(s, (size_t)(n * bb));
    if (!tmp)
        return MPI_ERR_NO_MEM;
    err = cx_sched_copy(s, own.buf, own.count, own.type, tmp, bb, MPI_PACKED);
    for (int m = 1; v + m < p && m < cx_binomial_span(v, p) && !err; m <<= 1) {
        int c = v + m;
        err = cx_sched_recv(s, tmp + m * bb, cx_binomial_subtree(c, p) * bb,
                            MPI_PACKED, cx_rank_of(a, c));
    }
    if (!err)
        err = cx_sched_barrier(s);
    return err ? err : cx_sched_send(s, tmp, n * bb, MPI_PACKED, parent);
}

static int root_scatter(const cx_args *a, cx_sched *s, MPI_Aint bb)
{
    int err = MPI_SUCCESS, p = a->size;
    int top = cx_binomial_span(0, p);
    for (int m = top >> 1; m >= 1 && !err; m >>= 1) {  /* largest subtree first */
        if (m >= p)
            continue;
        int n = cx_binomial_subtree(m, p);
        if (cx_vrange_contiguous(a, m, n)) {
            cx_piece b = cx_all_block(a, cx_rank_of(a, m));
            err = cx_sched_send(s, b.buf, (MPI_Aint)n * b.count, b.type, cx_rank_of(a, m));
            continue;
        }
        char *tmp = cx_sched_alloc(s, (size_t)(n * bb));
        if (!tmp)
            return MPI_ERR_NO_MEM;
        for (int j = 0; j < n && !err; j++) {
            cx_piece b = cx_all_block(a, cx_rank_of(a, m + j));
            err = cx_sched_copy(s, b.buf, b.count, b.type, tmp + j * bb, bb,
                                MPI_PACKED);
        }
        if (!err)
            err = cx_sched_send(s, tmp, n * bb, MPI_PACKED, cx_rank_of(a, m));
    }
    return err ? err : cx_sched_own_block(a, s);
}

static int inner_scatter(const cx_args *a, cx_sched *s, int v, MPI_Aint bb)
{
    int p = a->size, n = cx_binomial_subtree(v, p), span = cx_binomial_span(v, p);
    int parent = cx_rank_of(a, v - span), err;
    cx_piece own = cx_own_piece(a);
    if (n == 1)
        return cx_sched_recv(s, own.buf, own.count, own.type, parent);
    char *tmp = cx_sched_alloc(s, (size_t)(n * bb));
    if (!tmp)
        return MPI_ERR_NO_MEM;
    if ((err = cx_sched_recv(s, tmp, n * bb, MPI_PACKED, parent)) ||
        (err = cx_sched_barrier(s)))
        return err;
    for (int m = span >> 1; m >= 1 && !err; m >>= 1) {
        int c = v + m;
        if (c < p)
            err = cx_sched_send(s, tmp + m * bb, cx_binomial_subtree(c, p) * bb,
                                MPI_PACKED, cx_rank_of(a, c));
    }
    return err ? err : cx_sched_copy(s, tmp, bb, MPI_PACKED, own.buf, own.count,
                                     own.type);
}

int cx_build_binomial_rooted(const cx_args *a, cx_sched *s)
{
    int v = cx_vrank_of(a, a->rank);
    MPI_Aint bb = (MPI_Aint)cx_block_bytes(a);
    int scatter = a->coll == CX_COLL_SCATTER || a->coll == CX_COLL_SCATTERV;
    if (v == 0)
        return scatter ? root_scatter(a, s, bb) : root_gather(a, s, bb);
    return scatter ? inner_scatter(a, s, v, bb) : inner_gather(a, s, v, bb);
}

int cx_base_bcast_binomial(const cx_args *a, cx_sched *s)
{
    int p = a->size, v = cx_vrank_of(a, a->rank), span = cx_binomial_span(v, p);
    int err = MPI_SUCCESS;
    if (v) {
        err = cx_sched_recv(s, a->rbuf, a->rcount, a->rtype, cx_rank_of(a, v - span));
        if (!err)
            err = cx_sched_barrier(s);
    }
    for (int m = span >> 1; m >= 1 && !err; m >>= 1)
        if (v + m < p)
            err = cx_sched_send(s, a->rbuf, a->rcount, a->rtype, cx_rank_of(a, v + m));
    return err;
}
