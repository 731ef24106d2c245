/* The leaders' step: which collective the node leaders (or, with
 * several senders, the columns) run among the nodes, the MPI's own or
 * collx's, as the family's built-in rules pick; and the MPI's own call
 * when a call does not fit the segment. */
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

/* The leaders' algorithm for the collective inter among n nodes, and its
 * params: COLLX_HIER_INTER=<name> (the call's rule may set it) where the
 * collective has one (native, or a name it does not have: the MPI's own);
 * else collx's own where the MPI's nonblocking call is not trusted; else
 * what the family's built-in rules pick (leaders_blocking.rules.json,
 * leaders_nonblocking.rules.json: the selection evaluates them as it does
 * a rules file, once per communicator and class of sizes). NULL: the
 * MPI's own (its nonblocking call when inter->nonblocking). */
static const cx_algorithm *inter_alg(const hier *h, cx_args *inter, int n, int *err)
{
    *err = MPI_SUCCESS;
    const char *v = cx_knob_call_str(h->a->params, CX_KNOB_HIER_INTER);
    if (v)
        return cx_algorithm_find(inter->coll, v);
    const cx_algorithm *own = instead_of_mpi_nonblocking(inter);
    if (own)
        return own;
    const cx_knob_params *params;
    inter->rank = h->c->my_node;   /* as on the leaders: their sizes */
    inter->size = n;
    own = cx_select_builtin(h->a->nonblocking ? CX_BUILTIN_RULES_HIER_LEADERS_NONBLOCKING
                                              : CX_BUILTIN_RULES_HIER_LEADERS_BLOCKING,
                            inter, h->c, n, &params, err);
    if (!inter->params)   /* the call's own (its rule's) win, as a call's do */
        inter->params = params;
    return own == cx_native(inter->coll) ? NULL : own;
}

int hier_leaders(hier *h, cx_sched *s, cx_args *inter)
{
    if (h->c->leaders == MPI_COMM_NULL || h->c->nnodes < 2)
        return MPI_SUCCESS;
    inter->comm = h->c->leaders;
    inter->nonblocking = native_nonblocking(h, inter);
    inter->params = h->a->params;   /* the call's, for the leaders' algorithm too */
    int err;
    const cx_algorithm *alg = inter_alg(h, inter, h->c->nnodes, &err);
    if (!err)
        err = cx_sched_collective(s, inter, alg);
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
    const cx_algorithm *alg = inter_alg(h, inter, h->c->nnodes, &err);
    if (!err)
        err = cx_sched_collective(s, inter, alg);
    return err ? err : cx_sched_barrier(s);
}
