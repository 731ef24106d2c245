/* Linear (flat tree) algorithms: the root talks to every rank itself, in
 * virtual-rank order. Sequential = one peer per round, as Open MPI's
 * basic_linear does; otherwise every message is posted at once (MPICH). */
#include "base.h"

static int is_gather(cx_coll c)
{
    return !(cx_coll_shape(c) & CX_SEND_AT_ROOT);
}

int cx_build_linear_rooted(const cx_args *a, cx_sched *s, int sequential)
{
    int err = MPI_SUCCESS, gather = is_gather(a->coll);
    if (a->rank != a->root) {
        cx_piece own = cx_own_piece(a);
        return gather ? cx_sched_send(s, own.buf, own.count, own.type, a->root)
                      : cx_sched_recv(s, own.buf, own.count, own.type, a->root);
    }
    /* its own round: the one-peer rounds after it can then be reordered
     * at run time (cx_sched_sort_rounds) */
    if (!(err = cx_sched_own_block(a, s)) && sequential)
        err = cx_sched_barrier(s);
    for (int v = 1; v < a->size && !err; v++) {
        int r = cx_rank_of(a, v);
        cx_piece b = cx_all_block(a, r);
        err = gather ? cx_sched_recv(s, b.buf, b.count, b.type, r)
                     : cx_sched_send(s, b.buf, b.count, b.type, r);
        if (sequential && !err)
            err = cx_sched_barrier(s);
    }
    return err;
}

int cx_base_linear_seq(const cx_args *a, cx_sched *s)
{
    return cx_build_linear_rooted(a, s, 1);
}

int cx_base_linear_all(const cx_args *a, cx_sched *s)
{
    return cx_build_linear_rooted(a, s, 0);
}

/* Linear synchronized gather: the root asks each rank in turn (a one-byte
 * token) and only then receives its block, so large blocks never arrive
 * all at once. */
int cx_base_linear_sync(const cx_args *a, cx_sched *s)
{
    static const char token;
    int err = MPI_SUCCESS;
    if (a->rank != a->root) {
        cx_piece own = cx_own_piece(a);
        char *got = cx_sched_alloc(s, 1);
        if (!got)
            return MPI_ERR_NO_MEM;
        if ((err = cx_sched_recv(s, got, 1, MPI_BYTE, a->root)) ||
            (err = cx_sched_barrier(s)))
            return err;
        return cx_sched_send(s, own.buf, own.count, own.type, a->root);
    }
    for (int v = 1; v < a->size && !err; v++) {
        int r = cx_rank_of(a, v);
        cx_piece b = cx_all_block(a, r);
        if (!(err = cx_sched_send(s, &token, 1, MPI_BYTE, r)) &&
            !(err = cx_sched_recv(s, b.buf, b.count, b.type, r)))
            err = cx_sched_barrier(s);
    }
    /* The root's own block last: the rounds before it never read the send
     * buffer, so PAP's background engines may start them early. */
    return err ? err : cx_sched_own_block(a, s);
}

int cx_base_bcast_linear(const cx_args *a, cx_sched *s)
{
    int err = MPI_SUCCESS;
    if (a->rank != a->root)
        return cx_sched_recv(s, a->rbuf, a->rcount, a->rtype, a->root);
    for (int v = 1; v < a->size && !err; v++)
        err = cx_sched_send(s, a->rbuf, a->rcount, a->rtype, cx_rank_of(a, v));
    return err;
}

