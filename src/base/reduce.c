/* Binomial-tree reduce, correct for non-commutative operations: the tree is
 * built on ranks in their natural order (rank 0 at the top), so every inner
 * rank combines contiguous rank ranges, lower ranks on the left; the result
 * then takes one more hop to the root. With a commutative operation the
 * tree is rotated to put the root at the top instead (no extra hop).
 *
 * Also: allreduce as binomial reduce + binomial bcast, one schedule. */
#include "base.h"

int cx_op_commutative(MPI_Op op)
{
    int commute = 1;
    if (op != MPI_OP_NULL)
        PMPI_Op_commutative(op, &commute);
    return commute;
}

const void *cx_reduce_input(const cx_args *a)
{
    return a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
}

/* Adds the tree to s; the result lands in *out at virtual rank 0 (whose
 * rank is top). Returns the vrank base (the rank at the top). */
static int reduce_tree(const cx_args *a, cx_sched *s, int top, char **out)
{
    int p = a->size, v = (a->rank - top + p) % p, err;
    MPI_Aint n = a->rcount;
    MPI_Datatype t = a->rtype;
    char *acc = cx_sched_alloc_typed(s, n, t), *in = cx_sched_alloc_typed(s, n, t);
    if (!acc || !in)
        return MPI_ERR_NO_MEM;
    if ((err = cx_sched_copy(s, cx_reduce_input(a), n, t, acc, n, t)))
        return err;
    for (int m = 1; m < p; m <<= 1) {
        if (v & m)   /* my subtree [v, v + m) is complete: up to the parent */
            return cx_sched_send(s, acc, n, t, (v - m + top) % p);
        if (v + m >= p)
            continue;
        /* [v + m, v + 2m) arrives; acc = acc op in, i.e. in = acc op in */
        if ((err = cx_sched_recv(s, in, n, t, (v + m + top) % p)) ||
            (err = cx_sched_barrier(s)) ||
            (err = cx_sched_reduce(s, acc, in, n, t, a->op)))
            return err;
        char *x = acc;
        acc = in;
        in = x;
    }
    *out = acc;
    return MPI_SUCCESS;
}

/* Reduce of a to a->root, with the result written to the root's rbuf. */
static int reduce_to_root(const cx_args *a, cx_sched *s)
{
    int commute = cx_op_commutative(a->op), top = commute ? a->root : 0, err;
    char *res = NULL;
    if ((err = reduce_tree(a, s, top, &res)))
        return err;
    if (a->rank == top && top == a->root)
        return cx_sched_copy(s, res, a->rcount, a->rtype, a->rbuf, a->rcount, a->rtype);
    if (a->rank == top)
        return cx_sched_send(s, res, a->rcount, a->rtype, a->root);
    if (a->rank == a->root) {
        if ((err = cx_sched_barrier(s)))
            return err;
        return cx_sched_recv(s, a->rbuf, a->rcount, a->rtype, top);
    }
    return MPI_SUCCESS;
}

int cx_base_reduce_binomial(const cx_args *a, cx_sched *s)
{
    return reduce_to_root(a, s);
}

int cx_base_allreduce_reduce_bcast(const cx_args *a, cx_sched *s)
{
    cx_args b = *a;
    b.root = 0;
    int err = reduce_to_root(&b, s);
    if (!err)
        err = cx_sched_barrier(s);
    /* The bcast part reads and writes rbuf only. */
    b.coll = CX_COLL_BCAST;
    b.order = NULL;
    return err ? err : cx_base_bcast_binomial(&b, s);
}
