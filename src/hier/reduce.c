/* Hierarchical reduce and allreduce. Every rank copies its vector into its
 * own region of the slot (typed: reductions need the type's layout); the
 * leader combines its node's regions in local order, the leaders reduce
 * across nodes in node order, and the result is copied out. Node order is
 * rank order when every node's ranks are consecutive, which a
 * non-commutative operation needs (hier_check_order). */
#include "hier.h"

/* Bytes of one typed vector of count elements of t, as laid out. */
static MPI_Aint span(MPI_Aint count, MPI_Datatype t)
{
    MPI_Aint lb, ext, tlb, text;
    PMPI_Type_get_extent(t, &lb, &ext);
    PMPI_Type_get_true_extent(t, &tlb, &text);
    return count ? (count - 1) * ext + text : 0;
}

MPI_Aint cx_hier_shm_reduce(const cx_args *a)
{
    cx_comm *c = a->cc;
    int most = c && c->nodes_ready ? c->max_ranks_per_node : a->size;
    return hier_shm_bytes((MPI_Aint)most * (span(a->rcount, a->rtype) + 64));
}

/* The node's result: region of the last local rank, after the leader
 * folded every region into it. *out: where it is (typed). */
static int node_reduce(hier *h, cx_sched *s, const void *input, char **out)
{
    const cx_args *a = h->a;
    cx_comm *c = h->c;
    MPI_Aint n = a->rcount, stride = (span(n, a->rtype) + 63) / 64 * 64;
    MPI_Aint lb, ext, tlb, text;
    PMPI_Type_get_extent(a->rtype, &lb, &ext);
    PMPI_Type_get_true_extent(a->rtype, &tlb, &text);
    /* region l starts at slot + l * stride; typed pointers shift by -tlb */
    char *mine = h->slot + c->local_rank * stride - tlb;
    int err = cx_sched_copy(s, input, n, a->rtype, mine, n, a->rtype);
    if (!err)
        err = hier_node_barrier(h, s);
    for (int l = 1; l < c->local_size && c->local_rank == 0 && !err; l++)
        err = cx_sched_reduce(s, h->slot + (l - 1) * stride - tlb,
                              h->slot + l * stride - tlb, n, a->rtype, a->op);
    *out = h->slot + (c->local_size - 1) * stride - tlb;
    return err ? err : cx_sched_barrier(s);
}

static int hier_reduce_any(const cx_args *a, cx_sched *s, int all)
{
    hier h;
    MPI_Aint n = a->rcount;
    int err = hier_begin(&h, a, s, NULL, 0, cx_hier_shm_reduce(a) / 2);
    char *res;
    if (err || n == 0)
        return err;
    const void *input = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    if ((err = node_reduce(&h, s, input, &res)))
        return err;
    int root_node = all ? 0 : h.c->node_of[a->root];
    cx_args inter = {.coll = all ? CX_COLL_ALLREDUCE : CX_COLL_REDUCE,
                     .sbuf = MPI_IN_PLACE, .rbuf = res, .rcount = a->rcount,
                     .rtype = a->rtype, .op = a->op, .root = root_node};
    if (!all && h.c->my_node != root_node)
        inter.sbuf = res, inter.rbuf = NULL;   /* MPI_IN_PLACE only at the root */
    if ((err = hier_leaders(&h, s, &inter)))
        return err;
    if (!all && h.c->my_node != root_node)
        return MPI_SUCCESS;
    if ((err = hier_node_barrier(&h, s)))
        return err;
    if (all || a->rank == a->root)
        err = cx_sched_copy(s, res, n, a->rtype, a->rbuf, n, a->rtype);
    return err;
}

int cx_hier_reduce(const cx_args *a, cx_sched *s) { return hier_reduce_any(a, s, 0); }
int cx_hier_allreduce(const cx_args *a, cx_sched *s) { return hier_reduce_any(a, s, 1); }
