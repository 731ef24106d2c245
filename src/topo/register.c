/* The base algorithms on topology-mapped orders. The user's communicator,
 * ranks and buffers keep their meaning: only who talks to whom changes
 * (virtual rank v runs on rank order[v]); blocks land in user rank order.
 * One builder; each algorithm's data is its mapping and base schedule. */
#include "topo.h"
#include "../base/base.h"

typedef struct topo_alg {
    int mapping;          /* CX_TOPO_RING or CX_TOPO_RD */
    cx_build_fn base;
} topo_alg;

/* Runs the base schedule on the order of the mapping, from the root. */
static int mapped(const cx_args *a, cx_sched *s)
{
    const topo_alg *k = a->alg->family_data;
    cx_topo *t;
    int err = cx_topo_get(a->cc, &t);
    if (err)
        return err;
    cx_args b = *a;
    if (!(b.order = cx_topo_order(t, k->mapping, a->root)))
        return MPI_ERR_NO_MEM;
    return k->base(&b, s);
}

#define ON(mapping, base_fn) \
    .family_data = &(const topo_alg){CX_TOPO_##mapping, base_fn}

/* Trees: nodes kept together (the ring mapping from the root) make each
 * block cross the network once; the paper's rd mapping would put the
 * largest subtrees inside a node and the many small edges across nodes.
 * Reductions: the mapped order is the order of combination, so these need
 * a commutative operation (else their rank-order fallback runs). */
static const cx_algorithm algorithms[] = {
    CX_ALG(ALLGATHER, "ring_topo", mapped, 0,
           "ring on the topology ring mapping (Bhowmik & Bodele; COLLX_TOPO_MAP)",
           ON(RING, cx_build_ring_allgather)),
    CX_ALG(ALLGATHER, "rd_topo", mapped, 0,
           "recursive doubling on the topology rd mapping (Bhowmik & Bodele)",
           ON(RD, cx_base_allgather_rdoubling)),
    CX_ALG(ALLGATHERV, "ring_topo", mapped, 0,
           "ring on the topology ring mapping",
           ON(RING, cx_build_ring_allgather)),
    CX_ALG(BCAST, "binomial_topo", mapped, 0,
           "binomial tree on the topology ring mapping from the root",
           ON(RING, cx_base_bcast_binomial)),
    CX_ALG(GATHER, "binomial_topo", mapped, 0,
           "binomial tree on the topology ring mapping from the root",
           ON(RING, cx_build_binomial_rooted)),
    CX_ALG(SCATTER, "binomial_topo", mapped, 0,
           "binomial tree on the topology ring mapping from the root",
           ON(RING, cx_build_binomial_rooted)),
    CX_ALG(ALLREDUCE, "rd_topo", mapped, CX_REQ_COMMUTATIVE,
           "recursive doubling on the topology rd mapping",
           ON(RD, cx_base_allreduce_rdoubling_far),
           .fallback = "recursive_doubling"),
    CX_ALG(ALLREDUCE, "rabenseifner_topo", mapped, CX_REQ_COMMUTATIVE,
           "Rabenseifner (farthest partner first) on the topology rd mapping: largest halves stay close",
           ON(RD, cx_base_allreduce_rabenseifner_far),
           .fallback = "recursive_doubling"),
    CX_ALG(REDUCE_SCATTER, "ring_topo", mapped, CX_REQ_COMMUTATIVE,
           "ring on the topology ring mapping",
           ON(RING, cx_base_reduce_scatter_ring)),
    CX_ALG(REDUCE_SCATTER_BLOCK, "ring_topo", mapped, CX_REQ_COMMUTATIVE,
           "ring on the topology ring mapping",
           ON(RING, cx_base_reduce_scatter_ring)),
    CX_ALG_END};

const cx_family cx_topo_family = {
    .name = "topo",
    .algorithms = algorithms,
    .slot = &cx_topo_slot,
    .release = cx_topo_release,
    .replays = 1};   /* static schedules: persistent calls replay them */
