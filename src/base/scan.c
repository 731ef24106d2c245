/* Inclusive and exclusive scan, by recursive doubling or by a chain. What
 * comes from a lower rank is folded in on the left, so non-commutative
 * operations get the canonical order.
 * Recursive doubling (as in MPICH): in round k rank r exchanges its
 * partial result (the reduction of a contiguous range of ranks ending at
 * r) with r ^ 2^k. */
#include "base.h"

static int scan(const cx_args *a, cx_sched *s, int exclusive)
{
    int p = a->size, r = a->rank, err, have = !exclusive;
    MPI_Aint n = a->rcount;
    MPI_Datatype t = a->rtype;
    /* partial: reduction of the ranks heard of (sent on); res: of ranks
     * <= r (or < r); in: what arrives. */
    char *partial = cx_sched_alloc_typed(s, n, t), *in = cx_sched_alloc_typed(s, n, t);
    char *res = exclusive ? cx_sched_alloc_typed(s, n, t) : a->rbuf;
    if (!partial || !in || (exclusive && !res))   /* rbuf may be MPI_BOTTOM */
        return MPI_ERR_NO_MEM;
    if ((err = cx_sched_copy(s, cx_reduce_input(a), n, t, partial, n, t)) ||
        (!exclusive && a->sbuf != MPI_IN_PLACE &&
         (err = cx_sched_copy(s, a->sbuf, n, t, res, n, t))))
        return err;
    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = r ^ mask;
        if (peer >= p)
            continue;
        if ((err = cx_sched_send(s, partial, n, t, peer)) ||
            (err = cx_sched_recv(s, in, n, t, peer)) || (err = cx_sched_barrier(s)))
            return err;
        if (peer < r) {   /* in covers ranks below mine */
            err = have ? cx_sched_reduce(s, in, res, n, t, a->op)
                       : cx_sched_copy(s, in, n, t, res, n, t);
            have = 1;
            if (!err)
                err = cx_sched_reduce(s, in, partial, n, t, a->op);
        } else {          /* partial = partial op in */
            err = cx_sched_reduce(s, partial, in, n, t, a->op);
            char *x = partial;
            partial = in;
            in = x;
        }
        if (err)
            return err;
    }
    /* Exclusive: rank 0's result is undefined and left alone. */
    if (exclusive && have)
        return cx_sched_copy(s, res, n, t, a->rbuf, n, t);
    return MPI_SUCCESS;
}

/* The chain (Open MPI's coll/basic scan and exscan): rank r waits for the
 * prefix of the ranks below it from r - 1, folds its own input in on the
 * right and passes the result to r + 1: p - 1 steps one after another,
 * one message per rank. */
static int chain(const cx_args *a, cx_sched *s, int exclusive)
{
    int p = a->size, r = a->rank, err;
    MPI_Aint n = a->rcount;
    MPI_Datatype t = a->rtype;
    const void *mine = cx_reduce_input(a);
    if (!exclusive && a->sbuf != MPI_IN_PLACE &&
        (err = cx_sched_copy(s, a->sbuf, n, t, a->rbuf, n, t)))
        return err;
    if (r == 0)   /* exscan: rank 0's result is undefined and left alone */
        return p > 1 ? cx_sched_send(s, mine, n, t, 1) : MPI_SUCCESS;
    char *in = cx_sched_alloc_typed(s, n, t);
    if (!in)
        return MPI_ERR_NO_MEM;
    if ((err = cx_sched_recv(s, in, n, t, r - 1)) || (err = cx_sched_barrier(s)))
        return err;
    if (!exclusive) {   /* rbuf = prefix op mine */
        if ((err = cx_sched_reduce(s, in, a->rbuf, n, t, a->op)))
            return err;
        return r < p - 1 ? cx_sched_send(s, a->rbuf, n, t, r + 1) : MPI_SUCCESS;
    }
    if (r < p - 1) {    /* the next rank's prefix, before rbuf (maybe mine) changes */
        char *next = cx_sched_alloc_typed(s, n, t);
        if (!next)
            return MPI_ERR_NO_MEM;
        if ((err = cx_sched_copy(s, mine, n, t, next, n, t)) ||
            (err = cx_sched_reduce(s, in, next, n, t, a->op)) ||
            (err = cx_sched_send(s, next, n, t, r + 1)))
            return err;
    }
    return cx_sched_copy(s, in, n, t, a->rbuf, n, t);
}

int cx_base_scan_rdoubling(const cx_args *a, cx_sched *s) { return scan(a, s, 0); }
int cx_base_exscan_rdoubling(const cx_args *a, cx_sched *s) { return scan(a, s, 1); }
int cx_base_scan_linear(const cx_args *a, cx_sched *s) { return chain(a, s, 0); }
int cx_base_exscan_linear(const cx_args *a, cx_sched *s) { return chain(a, s, 1); }
