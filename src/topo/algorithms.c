/* The base algorithms on topology-mapped orders. The user's communicator,
 * ranks and buffers keep their meaning: only who talks to whom changes
 * (virtual rank v runs on rank order[v]); blocks land in user rank order. */
#include "topo.h"
#include "../base/base.h"

/* Runs base on the order of mapping kind, starting at the root. */
static int mapped(const cx_args *a, cx_sched *s, int kind, cx_build_fn base)
{
    cx_topo *t;
    int err = cx_topo_get(a->cc, &t);
    if (err)
        return err;
    cx_args b = *a;
    if (!(b.order = cx_topo_order(t, kind, a->root)))
        return MPI_ERR_NO_MEM;
    return base(&b, s);
}

static int ring_topo(const cx_args *a, cx_sched *s)
{
    return mapped(a, s, CX_TOPO_RING, cx_build_ring_allgather);
}

static int rd_topo(const cx_args *a, cx_sched *s)
{
    return mapped(a, s, CX_TOPO_RD, cx_base_allgather_rdoubling);
}

/* Trees: nodes kept together (the ring mapping from the root) make each
 * block cross the network once; the paper's rd mapping would put the
 * largest subtrees inside a node and the many small edges across nodes. */
static int binomial_bcast_topo(const cx_args *a, cx_sched *s)
{
    return mapped(a, s, CX_TOPO_RING, cx_base_bcast_binomial);
}

static int binomial_rooted_topo(const cx_args *a, cx_sched *s)
{
    return mapped(a, s, CX_TOPO_RING, cx_build_binomial_rooted);
}

/* Reductions: the mapped order is the order of combination, so these
 * need a commutative operation (else their rank-order fallback runs). */
static int rs_ring_topo(const cx_args *a, cx_sched *s)
{
    return mapped(a, s, CX_TOPO_RING, cx_base_reduce_scatter_ring);
}

static int allreduce_rd_topo(const cx_args *a, cx_sched *s)
{
    return mapped(a, s, CX_TOPO_RD, cx_base_allreduce_rdoubling);
}

static int allreduce_rabenseifner_topo(const cx_args *a, cx_sched *s)
{
    return mapped(a, s, CX_TOPO_RD, cx_base_allreduce_rabenseifner);
}

const cx_algorithm cx_topo_algorithms[] = {
    CX_ALG(ALLGATHER, "ring_topo", ring_topo, 0,
           "ring on the topology ring mapping (Bhowmik & Bodele; COLLX_TOPO_MAP)"),
    CX_ALG(ALLGATHER, "rd_topo", rd_topo, 0,
           "recursive doubling on the topology rd mapping (Bhowmik & Bodele)"),
    CX_ALG(ALLGATHERV, "ring_topo", ring_topo, 0,
           "ring on the topology ring mapping"),
    CX_ALG(BCAST, "binomial_topo", binomial_bcast_topo, 0,
           "binomial tree on the topology ring mapping from the root"),
    CX_ALG(GATHER, "binomial_topo", binomial_rooted_topo, 0,
           "binomial tree on the topology ring mapping from the root"),
    CX_ALG(SCATTER, "binomial_topo", binomial_rooted_topo, 0,
           "binomial tree on the topology ring mapping from the root"),
    CX_ALG(ALLREDUCE, "rd_topo", allreduce_rd_topo, CX_REQ_COMMUTATIVE,
           "recursive doubling on the topology rd mapping",
           .fallback = "recursive_doubling"),
    CX_ALG(ALLREDUCE, "rabenseifner_topo", allreduce_rabenseifner_topo,
           CX_REQ_COMMUTATIVE,
           "Rabenseifner on the topology rd mapping (largest halves stay close)",
           .fallback = "recursive_doubling"),
    CX_ALG(REDUCE_SCATTER, "ring_topo", rs_ring_topo, CX_REQ_COMMUTATIVE,
           "ring on the topology ring mapping"),
    CX_ALG(REDUCE_SCATTER_BLOCK, "ring_topo", rs_ring_topo, CX_REQ_COMMUTATIVE,
           "ring on the topology ring mapping"),
    CX_ALG_END};
