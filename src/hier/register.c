/* The hierarchical family (Parsons & Pai 2014). */
#include "hier.h"

/* Blocking calls and CX_I... alike (queue.c). */
#define HIER_NEEDS CX_REQ_SHM

/* The family's one builder: every call runs in its communicator's order
 * of hierarchical calls (queue.c) and behind the node's size check
 * (guard.c), so a call whose sizes disagree returns an error instead of
 * hanging. Each algorithm's data: its builder, the node memory it uses
 * and, for v and w collectives, how the ranks agree on their sizes before
 * it is built (agree.c; a CX_I... call does that in steps). */
typedef struct hier_alg {
    hier_build_fn build;
    unsigned uses;
    hier_values_fn values;
} hier_alg;

static int hier_entry(const cx_args *a, cx_sched *s)
{
    const hier_alg *k = a->alg->family_data;
    return hier_call(a, s, k->build, k->uses, k->values);
}

#define SEG HIER_USES_SEGMENT
#define COLS (HIER_USES_SEGMENT | HIER_USES_COLUMNS)
#define BUILD(fn, uses, values) \
    .family_data = &(const hier_alg){fn, uses, values}, .blocking_first = hier_direct

static const cx_algorithm algorithms[] = {
    CX_ALG(BARRIER, "hier", hier_entry, 0,
           "node barrier, leaders' barrier, node barrier",
           BUILD(cx_hier_barrier, 0, NULL)),
    CX_ALG(BCAST, "hier", hier_entry, HIER_NEEDS,
           "root -> node segment, leaders' bcast, segment -> every rank",
           .shm_bytes = cx_hier_shm_bcast,
           BUILD(cx_hier_bcast, SEG, NULL)),
    CX_ALG(GATHER, "hier", hier_entry, HIER_NEEDS,
           "blocks -> node segment, leaders' gatherv into the root's node",
           .shm_bytes = cx_hier_shm_blocks,
           BUILD(cx_hier_gather, SEG, NULL)),
    CX_ALG(SCATTER, "hier", hier_entry, HIER_NEEDS,
           "root -> its node segment, leaders' scatterv, segment -> every rank",
           .shm_bytes = cx_hier_shm_blocks,
           BUILD(cx_hier_scatter, SEG, NULL)),
    CX_ALG(GATHERV, "hier", hier_entry, HIER_NEEDS,
           "sizes table + pieces -> node segment, leaders' gatherv into the root's node "
           "(native when a node's data exceeds COLLX_SHM_MAX)",
           BUILD(cx_hier_gatherv, SEG, cx_hier_gatherv_values)),
    CX_ALG(SCATTERV, "hier", hier_entry, HIER_NEEDS,
           "root -> its node segment, leaders' scatterv, segment -> every rank "
           "(native when a node's data exceeds COLLX_SHM_MAX)",
           BUILD(cx_hier_gatherv, SEG, cx_hier_gatherv_values)),
    CX_ALG(ALLGATHER, "hier", hier_entry, HIER_NEEDS,
           "blocks -> node segment, leaders' allgatherv in place, segment -> every rank "
           "(above COLLX_SHM_MAX in bands of local ranks)",
           .shm_bytes = cx_hier_shm_allgather,
           BUILD(cx_hier_allgather, SEG, NULL)),
    CX_ALG(ALLGATHERV, "hier", hier_entry, HIER_NEEDS,
           "blocks -> node segment, leaders' allgatherv in place, segment -> every rank "
           "(above COLLX_SHM_MAX in bands of local ranks)",
           .shm_bytes = cx_hier_shm_allgatherv,
           BUILD(cx_hier_allgather, SEG, NULL)),
    CX_ALG(REDUCE, "hier", hier_entry, HIER_NEEDS | CX_REQ_ORDER_KEPT,
           "node reduction in the segment, leaders' reduce, result -> root",
           .shm_bytes = cx_hier_shm_reduce,
           BUILD(cx_hier_reduce, SEG, NULL)),
    CX_ALG(ALLREDUCE, "hier", hier_entry, HIER_NEEDS | CX_REQ_ORDER_KEPT,
           "node reduction in the segment, leaders' allreduce, result -> every rank",
           .shm_bytes = cx_hier_shm_reduce,
           BUILD(cx_hier_allreduce, SEG, NULL)),
    CX_ALG(REDUCE_SCATTER, "hier", hier_entry, HIER_NEEDS | CX_REQ_ORDER_KEPT,
           "node reduction in the segment, leaders' reduce_scatter of the nodes' "
           "parts, block -> every rank",
           .shm_bytes = cx_hier_shm_reduce_scatter,
           BUILD(cx_hier_reduce_scatter, SEG, NULL)),
    CX_ALG(REDUCE_SCATTER_BLOCK, "hier", hier_entry, HIER_NEEDS | CX_REQ_ORDER_KEPT,
           "node reduction in the segment, leaders' reduce_scatter of the nodes' "
           "parts, block -> every rank",
           .shm_bytes = cx_hier_shm_reduce_scatter,
           BUILD(cx_hier_reduce_scatter, SEG, NULL)),
    CX_ALG(SCAN, "hier", hier_entry, HIER_NEEDS | CX_REQ_CONSECUTIVE,
           "node prefix in the segment, leaders' exscan of the node totals, "
           "combined on every rank", .shm_bytes = cx_hier_shm_scan,
           BUILD(cx_hier_scan, SEG, NULL)),
    CX_ALG(EXSCAN, "hier", hier_entry, HIER_NEEDS | CX_REQ_CONSECUTIVE,
           "node prefix in the segment, leaders' exscan of the node totals, "
           "combined on every rank", .shm_bytes = cx_hier_shm_scan,
           BUILD(cx_hier_scan, SEG, NULL)),
    CX_ALG(ALLTOALL, "hier", hier_entry, HIER_NEEDS,
           "blocks -> node segment by destination node, leaders' alltoallv, "
           "segment -> every rank", .shm_bytes = cx_hier_shm_alltoall,
           BUILD(cx_hier_alltoall, SEG, NULL)),
    CX_ALG(ALLTOALLV, "hier", hier_entry, HIER_NEEDS,
           "counts table + blocks -> node segment, leaders' alltoallv, segment -> "
           "every rank (native when a node's data exceeds COLLX_SHM_MAX)",
           BUILD(cx_hier_alltoall, SEG, cx_hier_alltoallv_values)),
    CX_ALG(ALLTOALLW, "hier", hier_entry, HIER_NEEDS,
           "as alltoallv, blocks packed by type signature",
           BUILD(cx_hier_alltoall, SEG, cx_hier_alltoallv_values)),
    /* Multiple senders per node: k columns run the inter-node phase on a
     * share each (COLLX_HIER_SENDERS=k). */
    CX_ALG(BCAST, "hier_ms", hier_entry, HIER_NEEDS,
           "as hier; k columns each bcast a share of the message",
           .shm_bytes = cx_hier_shm_bcast,
           BUILD(cx_hier_ms_bcast, COLS, NULL)),
    CX_ALG(ALLGATHER, "hier_ms", hier_entry, HIER_NEEDS,
           "as hier; k columns each allgatherv a share of every node's region",
           .shm_bytes = cx_hier_shm_allgather,
           BUILD(cx_hier_ms_allgather, COLS, NULL)),
    CX_ALG(ALLGATHERV, "hier_ms", hier_entry, HIER_NEEDS,
           "as hier; k columns each allgatherv a share of every node's region",
           .shm_bytes = cx_hier_shm_allgatherv,
           BUILD(cx_hier_ms_allgather, COLS, NULL)),
    CX_ALG(ALLREDUCE, "hier_ms", hier_entry, HIER_NEEDS | CX_REQ_ORDER_KEPT,
           "as hier; k columns each allreduce a slice of the node's vector",
           .shm_bytes = cx_hier_shm_reduce,
           BUILD(cx_hier_ms_allreduce, COLS, NULL)),
    CX_ALG(REDUCE_SCATTER, "hier_ms", hier_entry, HIER_NEEDS | CX_REQ_ORDER_KEPT,
           "as hier; k columns each reduce_scatter a share of every node's part",
           .shm_bytes = cx_hier_shm_reduce_scatter,
           BUILD(cx_hier_ms_reduce_scatter, COLS, NULL)),
    CX_ALG(REDUCE_SCATTER_BLOCK, "hier_ms", hier_entry, HIER_NEEDS | CX_REQ_ORDER_KEPT,
           "as hier; k columns each reduce_scatter a share of every node's part",
           .shm_bytes = cx_hier_shm_reduce_scatter,
           BUILD(cx_hier_ms_reduce_scatter, COLS, NULL)),
    CX_ALG(ALLTOALL, "hier_ms", hier_entry, HIER_NEEDS,
           "as hier; k columns each exchange a share of every node pair's data",
           .shm_bytes = cx_hier_shm_alltoall,
           BUILD(cx_hier_ms_alltoall, COLS, NULL)),
    CX_ALG(ALLTOALLV, "hier_ms", hier_entry, HIER_NEEDS,
           "as hier; k columns each exchange a share of every node pair's data",
           BUILD(cx_hier_ms_alltoall, COLS, cx_hier_alltoallv_values)),
    CX_ALG(ALLTOALLW, "hier_ms", hier_entry, HIER_NEEDS,
           "as hier; k columns each exchange a share of every node pair's data",
           BUILD(cx_hier_ms_alltoall, COLS, cx_hier_alltoallv_values)),
    CX_ALG_END};

const cx_family cx_hier_family = {
    .name = "hier",
    .algorithms = algorithms,
    .slot = &cx_hier_slot,
    .release = hier_release,
    .quiesce = hier_quiesce,
    /* a persistent call's schedule replays (queue.c): its turn, the real
     * schedule kept from the first start and renumbered */
    .replays = 1,
    /* node barriers and segment slots in call order (queue.c) */
    .takes_turns = 1};
