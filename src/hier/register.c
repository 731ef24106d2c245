/* The hierarchical family (Parsons & Pai 2014). */
#include "hier.h"

/* Blocking calls and CX_I... alike (queue.c). */
#define HIER_NEEDS CX_REQ_SHM

/* Every builder runs in its communicator's order of hierarchical calls
 * (queue.c) and behind the node's size check (guard.c): a call whose
 * sizes disagree returns an error instead of hanging. */
#define ENTRY_AS(name, fn, uses, values)                                       \
    static int name(const cx_args *a, cx_sched *s)                             \
    {                                                                          \
        return hier_call(a, s, fn, uses, values);                              \
    }
#define ENTRY(fn, uses) ENTRY_AS(entry_##fn, fn, uses, NULL)
/* v and w collectives agree on their sizes before they are built
 * (agree.c): with these values, a CX_I... call does it in steps. */
#define SEG HIER_USES_SEGMENT
#define COLS (HIER_USES_SEGMENT | HIER_USES_COLUMNS)
ENTRY(cx_hier_barrier, 0)
ENTRY(cx_hier_bcast, SEG)
ENTRY(cx_hier_gather, SEG)
ENTRY(cx_hier_scatter, SEG)
ENTRY_AS(entry_gatherv, cx_hier_gatherv, SEG, cx_hier_gatherv_values)
ENTRY(cx_hier_allgather, SEG)
ENTRY(cx_hier_reduce, SEG)
ENTRY(cx_hier_allreduce, SEG)
ENTRY(cx_hier_reduce_scatter, SEG)
ENTRY(cx_hier_scan, SEG)
ENTRY(cx_hier_alltoall, SEG)
ENTRY_AS(entry_alltoallv, cx_hier_alltoall, SEG, cx_hier_alltoallv_values)
ENTRY(cx_hier_ms_bcast, COLS)
ENTRY(cx_hier_ms_allgather, COLS)
ENTRY(cx_hier_ms_allreduce, COLS)
ENTRY(cx_hier_ms_alltoall, COLS)
ENTRY_AS(entry_ms_alltoallv, cx_hier_ms_alltoall, COLS, cx_hier_alltoallv_values)
ENTRY(cx_hier_ms_reduce_scatter, COLS)

const cx_algorithm cx_hier_algorithms[] = {
    CX_ALG(BARRIER, "hier", entry_cx_hier_barrier, 0,
           "node barrier, leaders' barrier, node barrier"),
    CX_ALG(BCAST, "hier", entry_cx_hier_bcast, HIER_NEEDS,
           "root -> node segment, leaders' bcast, segment -> every rank",
           .shm_bytes = cx_hier_shm_bcast),
    CX_ALG(GATHER, "hier", entry_cx_hier_gather, HIER_NEEDS,
           "blocks -> node segment, leaders' gatherv into the root's node",
           .shm_bytes = cx_hier_shm_blocks),
    CX_ALG(SCATTER, "hier", entry_cx_hier_scatter, HIER_NEEDS,
           "root -> its node segment, leaders' scatterv, segment -> every rank",
           .shm_bytes = cx_hier_shm_blocks),
    CX_ALG(GATHERV, "hier", entry_gatherv, HIER_NEEDS,
           "sizes table + pieces -> node segment, leaders' gatherv into the root's node "
           "(native when a node's data exceeds COLLX_SHM_MAX)"),
    CX_ALG(SCATTERV, "hier", entry_gatherv, HIER_NEEDS,
           "root -> its node segment, leaders' scatterv, segment -> every rank "
           "(native when a node's data exceeds COLLX_SHM_MAX)"),
    CX_ALG(ALLGATHER, "hier", entry_cx_hier_allgather, HIER_NEEDS,
           "blocks -> node segment, leaders' allgatherv in place, segment -> every rank "
           "(above COLLX_SHM_MAX in bands of local ranks)",
           .shm_bytes = cx_hier_shm_allgather),
    CX_ALG(ALLGATHERV, "hier", entry_cx_hier_allgather, HIER_NEEDS,
           "blocks -> node segment, leaders' allgatherv in place, segment -> every rank "
           "(above COLLX_SHM_MAX in bands of local ranks)",
           .shm_bytes = cx_hier_shm_allgatherv),
    CX_ALG(REDUCE, "hier", entry_cx_hier_reduce, HIER_NEEDS,
           "node reduction in the segment, leaders' reduce, result -> root",
           .shm_bytes = cx_hier_shm_reduce, .check = hier_check_order),
    CX_ALG(ALLREDUCE, "hier", entry_cx_hier_allreduce, HIER_NEEDS,
           "node reduction in the segment, leaders' allreduce, result -> every rank",
           .shm_bytes = cx_hier_shm_reduce, .check = hier_check_order),
    CX_ALG(REDUCE_SCATTER, "hier", entry_cx_hier_reduce_scatter, HIER_NEEDS,
           "node reduction in the segment, leaders' reduce_scatter of the nodes' "
           "parts, block -> every rank",
           .shm_bytes = cx_hier_shm_reduce_scatter, .check = hier_check_order),
    CX_ALG(REDUCE_SCATTER_BLOCK, "hier", entry_cx_hier_reduce_scatter, HIER_NEEDS,
           "node reduction in the segment, leaders' reduce_scatter of the nodes' "
           "parts, block -> every rank",
           .shm_bytes = cx_hier_shm_reduce_scatter, .check = hier_check_order),
    CX_ALG(SCAN, "hier", entry_cx_hier_scan, HIER_NEEDS | CX_REQ_CONSECUTIVE,
           "node prefix in the segment, leaders' exscan of the node totals, "
           "combined on every rank", .shm_bytes = cx_hier_shm_scan),
    CX_ALG(EXSCAN, "hier", entry_cx_hier_scan, HIER_NEEDS | CX_REQ_CONSECUTIVE,
           "node prefix in the segment, leaders' exscan of the node totals, "
           "combined on every rank", .shm_bytes = cx_hier_shm_scan),
    CX_ALG(ALLTOALL, "hier", entry_cx_hier_alltoall, HIER_NEEDS,
           "blocks -> node segment by destination node, leaders' alltoallv, "
           "segment -> every rank", .shm_bytes = cx_hier_shm_alltoall),
    CX_ALG(ALLTOALLV, "hier", entry_alltoallv, HIER_NEEDS,
           "counts table + blocks -> node segment, leaders' alltoallv, segment -> "
           "every rank (native when a node's data exceeds COLLX_SHM_MAX)"),
    CX_ALG(ALLTOALLW, "hier", entry_alltoallv, HIER_NEEDS,
           "as alltoallv, blocks packed by type signature"),
    /* Multiple senders per node: k columns run the inter-node phase on a
     * share each (COLLX_HIER_SENDERS=k). */
    CX_ALG(BCAST, "hier_ms", entry_cx_hier_ms_bcast, HIER_NEEDS,
           "as hier; k columns each bcast a share of the message",
           .shm_bytes = cx_hier_shm_bcast),
    CX_ALG(ALLGATHER, "hier_ms", entry_cx_hier_ms_allgather, HIER_NEEDS,
           "as hier; k columns each allgatherv a share of every node's region",
           .shm_bytes = cx_hier_shm_allgather),
    CX_ALG(ALLGATHERV, "hier_ms", entry_cx_hier_ms_allgather, HIER_NEEDS,
           "as hier; k columns each allgatherv a share of every node's region",
           .shm_bytes = cx_hier_shm_allgatherv),
    CX_ALG(ALLREDUCE, "hier_ms", entry_cx_hier_ms_allreduce, HIER_NEEDS,
           "as hier; k columns each allreduce a slice of the node's vector",
           .shm_bytes = cx_hier_shm_reduce, .check = hier_check_order),
    CX_ALG(REDUCE_SCATTER, "hier_ms", entry_cx_hier_ms_reduce_scatter, HIER_NEEDS,
           "as hier; k columns each reduce_scatter a share of every node's part",
           .shm_bytes = cx_hier_shm_reduce_scatter, .check = hier_check_order),
    CX_ALG(REDUCE_SCATTER_BLOCK, "hier_ms", entry_cx_hier_ms_reduce_scatter, HIER_NEEDS,
           "as hier; k columns each reduce_scatter a share of every node's part",
           .shm_bytes = cx_hier_shm_reduce_scatter, .check = hier_check_order),
    CX_ALG(ALLTOALL, "hier_ms", entry_cx_hier_ms_alltoall, HIER_NEEDS,
           "as hier; k columns each exchange a share of every node pair's data",
           .shm_bytes = cx_hier_shm_alltoall),
    CX_ALG(ALLTOALLV, "hier_ms", entry_ms_alltoallv, HIER_NEEDS,
           "as hier; k columns each exchange a share of every node pair's data"),
    CX_ALG(ALLTOALLW, "hier_ms", entry_ms_alltoallv, HIER_NEEDS,
           "as hier; k columns each exchange a share of every node pair's data"),
    CX_ALG_END};
