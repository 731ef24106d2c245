/* Inclusive and exclusive scan by recursive doubling (as in MPICH): in
 * round k rank r exchanges its partial result (the reduction of a
 * contiguous range of ranks ending at r) with r ^ 2^k. What comes from a
 * lower rank is folded in on the left, so non-commutative operations get
 * the canonical order. */
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

int cx_base_scan_rdoubling(const cx_args *a, cx_sched *s) { return scan(a, s, 0); }
int cx_base_exscan_rdoubling(const cx_args *a, cx_sched *s) { return scan(a, s, 1); }
