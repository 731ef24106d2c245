/* The leaders' step: which collective the node leaders (or, with
 * several senders, the columns) run among the nodes, the MPI's own or
 * collx's, with the built-in choices below; and the MPI's own call when
 * a call does not fit the segment. */
#include <limits.h>
#include <stdio.h>
#include "hier.h"

/* What runs instead of the MPI's own nonblocking all-to-all (NULL: it
 * does). The MPIs' are not trusted inside a schedule: Open MPI 4.1's
 * MPI_Ialltoallv among the leaders hung where some leaders have nothing
 * to exchange (an alltoallv's band, hier.bands.contract.a2a.p7) and
 * differs from its blocking call in place; MPICH 4.0's MPI_Ialltoallw
 * aborts in place (pmodels/mpich#6404). collx's pairwise is right there. */
static const cx_algorithm *instead_of_mpi_nonblocking(const cx_args *a)
{
    int a2a = a->coll == CX_COLL_ALLTOALL || a->coll == CX_COLL_ALLTOALLV ||
              a->coll == CX_COLL_ALLTOALLW;
    return a->nonblocking && a2a ? cx_algorithm_find(a->coll, "pairwise") : NULL;
}

int hier_run_native(hier *h, cx_sched *s, MPI_Aint need)
{
    const cx_args *a = h->a;
    const cx_algorithm *alg = instead_of_mpi_nonblocking(a);
    char why[160];
    snprintf(why, sizeof why, "needs %lld bytes of node-shared memory on a node, above "
             "COLLX_SHM_MAX=%lld or 2^31", (long long)need, (long long)cx_shm_max());
    cx_fall_back_in_build(a, s, alg, CX_REQ_SHM, why);
    cx_args native = *a;
    native.comm = a->pcomm;
    /* counted for what ran too */
    cx_count_call(alg ? alg : cx_native(a->coll), a);
    return cx_sched_collective(s, &native, alg);
}

/* Whether the leaders' native collective of a blocking call is the MPI's
 * blocking one (COLLX_HIER_NATIVE=blocking, the default) or its
 * nonblocking twin (=nonblocking): see src/core/select/subcoll.c. */
static int native_nonblocking(const hier *h, const cx_args *inter)
{
    return h->a->nonblocking || inter->nonblocking ||
           cx_knob_call_int(h->a->params, CX_KNOB_HIER_NATIVE) == 1;
}

/* From this many nodes on, the leaders' allgatherv is collx's Bruck (log
 * depth whatever the sizes) rather than the MPI's own, which in SMPI's
 * Open-MPI-like selection is a ring or gather+bcast for node regions of
 * 256 B-1 MiB: fattree-256x16, docs/results/hier/README.md (16 nodes: the
 * MPI's own 4-21 % faster; 64 and 256 nodes: Bruck up to 2-5x faster). */
#define HIER_BRUCK_NODES 64

/* Below this many bytes among fewer than HIER_RD_NODES nodes, the
 * leaders' allreduce is collx's recursive doubling: Open MPI 4.1's tuned
 * table (which SMPI's selector copies) runs a ring there (2-7 ranks,
 * under 8-16 B) or a segmented ring (16-63 ranks, under 64-128 B), whose
 * n - 1 steps made hier 1.17-1.33x slower than the best flat allreduce at
 * 8 B (fattree-256x16, p = 64 and 256; docs/results/hier/README.md). */
#define HIER_RD_BYTES 64
#define HIER_RD_NODES 64

/* Above this many bytes a nonblocking call's leaders reduce with
 * Rabenseifner's algorithm. From HIER_NB_PIPE bytes on they broadcast by
 * a pipelined binary tree in segments of about HIER_NB_SEGMENT bytes (2 to
 * 32 of them): fattree-256x16, hier bcast, leaders' time with each
 * algorithm (bench/hier_nb_leaders.sh bcast): 16 nodes, 32 KiB 27.6 us
 * against the MPI's blocking bcast's 42.5 and binomial's 42.5, 64 KiB
 * 44.9 / 43.8 / 58.9, 1 MiB 507.6 / 574.5 / 897.0; 64 nodes, 1 MiB 602.0 / 763.5;
 * scatter_allgather was slower at every one of these points. */
#define HIER_NB_LARGE 4096
#define HIER_NB_PIPE 16384
#define HIER_NB_SEGMENT 8192

/* Above this many bytes per node on average (and below HIER_BRUCK_NODES
 * nodes) a nonblocking call's leaders allgather by neighbour exchange
 * (the ring for an odd node count), below it by Bruck: fattree-256x16,
 * hier allgather, leaders' time with each algorithm (bench/
 * hier_nb_leaders.sh allgather): 16 nodes, 32 KiB per node Bruck 144.8 us
 * = the MPI's own, neighbour exchange 150.7; 64 KiB 270.2 both; 256 KiB
 * neighbour exchange 1003.6 = the MPI's own, Bruck 1040.5; 15 nodes, 256
 * KiB ring 942.6, Bruck 977.4. */
#define HIER_NB_REGION 65536

/* Per-call values of COLLX_BCAST_SEGMENTS for the leaders' pipelined
 * bcast, 2^k segments (the call's own params, a rule's, win). */
static cx_knob_param segment_values[] = {
    {CX_KNOB_BCAST_SEGMENTS, {.set = 1, .i = 2, .r = 2}},
    {CX_KNOB_BCAST_SEGMENTS, {.set = 1, .i = 4, .r = 4}},
    {CX_KNOB_BCAST_SEGMENTS, {.set = 1, .i = 8, .r = 8}},
    {CX_KNOB_BCAST_SEGMENTS, {.set = 1, .i = 16, .r = 16}},
    {CX_KNOB_BCAST_SEGMENTS, {.set = 1, .i = 32, .r = 32}}};
#define SEGMENTS(k) {.n = 1, .p = &segment_values[k], .rule = -1}
static cx_knob_params segment_params[] = {SEGMENTS(0), SEGMENTS(1), SEGMENTS(2),
                                          SEGMENTS(3), SEGMENTS(4)};

static const cx_knob_params *leaders_segments(const cx_knob_params *call, MPI_Aint bytes)
{
    if (call)
        return call;
    int k = 0;
    while (k < 4 && (MPI_Aint)HIER_NB_SEGMENT << (k + 2) <= bytes)
        k++;
    return &segment_params[k];
}

/* A nonblocking call (CX_I..., MPI_I..., a start of a persistent one)
 * cannot run the MPI's blocking collective among the leaders, and the
 * MPI's nonblocking twin is often a linear schedule: SMPI's made a
 * started hier allreduce at p = 256 (16 nodes, fattree-256x16) 2.4 times
 * slower than the blocking call at 64 KiB, its bcast 2.3 times (the same
 * leaders' algorithm: the same time); Open MPI's libnbc moves only inside
 * MPI calls. So collx's own log-depth schedules, which collx's progress
 * moves: NULL where the MPI's own stays (gatherv, scatterv: linear
 * anyway). */
static const cx_algorithm *nonblocking_leaders(cx_args *inter, int n)
{
    const char *name = NULL;
    int commute = 1;
    switch (inter->coll) {
    case CX_COLL_ALLREDUCE:
        if (inter->op != MPI_OP_NULL)
            PMPI_Op_commutative(inter->op, &commute);
        name = commute && (MPI_Aint)cx_type_bytes(inter->rcount, inter->rtype) > HIER_NB_LARGE
                   ? "rabenseifner" : "recursive_doubling";
        break;
    case CX_COLL_ALLGATHERV:
        name = n < HIER_BRUCK_NODES && cx_counts_bytes(inter->rcounts, n, inter->rtype) >
                                           (MPI_Count)n * HIER_NB_REGION
                   ? "neighbor_exchange" : "bruck";
        break;
    case CX_COLL_BCAST: {
        MPI_Aint bytes = (MPI_Aint)cx_type_bytes(inter->rcount, inter->rtype);
        name = bytes >= HIER_NB_PIPE ? "pipeline_binary" : "binomial";
        if (bytes >= HIER_NB_PIPE)
            inter->params = leaders_segments(inter->params, bytes);
        break;
    }
    case CX_COLL_BARRIER:
        name = "dissemination";
        break;
    case CX_COLL_EXSCAN:
        name = "recursive_doubling";
        break;
    case CX_COLL_REDUCE_SCATTER:
        name = "ring";
        break;
    default:
        break;
    }
    return name ? cx_algorithm_find(inter->coll, name) : NULL;
}

/* The leaders' algorithm for the collective inter among n nodes:
 * COLLX_HIER_INTER=<name> (the call's rule may set it) where the
 * collective has one (native, or a name it does not have: the MPI's own),
 * else the rules above; NULL: the MPI's own (its nonblocking call when
 * inter->nonblocking). */
static const cx_algorithm *inter_alg(const hier *h, cx_args *inter, int n)
{
    const char *v = cx_knob_call_str(h->a->params, CX_KNOB_HIER_INTER);
    if (v)
        return cx_algorithm_find(inter->coll, v);
    const cx_algorithm *own = instead_of_mpi_nonblocking(inter);
    if (!own && h->a->nonblocking)
        own = nonblocking_leaders(inter, n);
    if (own)
        return own;
    if (inter->coll == CX_COLL_ALLGATHERV && n >= HIER_BRUCK_NODES)
        return cx_algorithm_find(inter->coll, "bruck");
    if (inter->coll == CX_COLL_ALLREDUCE && n < HIER_RD_NODES &&
        cx_type_bytes(inter->rcount, inter->rtype) < HIER_RD_BYTES)
        return cx_algorithm_find(inter->coll, "recursive_doubling");
    return NULL;
}

int hier_leaders(hier *h, cx_sched *s, cx_args *inter)
{
    if (h->c->leaders == MPI_COMM_NULL || h->c->nnodes < 2)
        return MPI_SUCCESS;
    inter->comm = h->c->leaders;
    inter->nonblocking = native_nonblocking(h, inter);
    inter->params = h->a->params;   /* the call's, for the leaders' algorithm too */
    int err = cx_sched_collective(s, inter, inter_alg(h, inter, h->c->nnodes));
    return err ? err : cx_sched_barrier(s);
}

int hier_choose_senders(hier *h, MPI_Aint bytes, MPI_Aint per_sender)
{
    int given = cx_knob_call_given(h->a->params, CX_KNOB_HIER_SENDERS);
    MPI_Aint k = given ? (MPI_Aint)cx_knob_call_int(h->a->params, CX_KNOB_HIER_SENDERS)
                       : bytes / per_sender;
    if (k > 8 && !given)
        k = 8;
    if (k > h->c->min_ranks_per_node)
        k = h->c->min_ranks_per_node;
    h->senders = k < 1 ? 1 : (int)k;
    MPI_Comm col;   /* set up now, on every rank: later it may be mid-schedule */
    return h->senders > 1 ? cx_comm_column(h->c, &col) : MPI_SUCCESS;
}

void hier_share(MPI_Aint n, int l, int k, MPI_Aint *lo, MPI_Aint *len)
{
    if (k <= 1 || l >= k)   /* one sender (or none: unused) */
        l = 0, k = 1;
    *lo = n * l / k;
    *len = n * (l + 1) / k - *lo;
}

int hier_columns(hier *h, cx_sched *s, cx_args *inter)
{
    cx_comm *c = h->c;
    MPI_Comm col;
    if (h->senders <= 1)
        return hier_leaders(h, s, inter);
    int err = cx_comm_column(c, &col);
    if (err || c->local_rank >= h->senders || c->nnodes < 2)
        return err;
    inter->comm = col;
    inter->nonblocking = native_nonblocking(h, inter);
    inter->params = h->a->params;
    err = cx_sched_collective(s, inter, inter_alg(h, inter, h->c->nnodes));
    return err ? err : cx_sched_barrier(s);
}
