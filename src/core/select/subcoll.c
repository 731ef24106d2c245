/* A collective on another communicator as a step of a schedule, e.g. the
 * inter-node phase of a hierarchical algorithm on the leader communicator
 * (the paper's "unmodified, hierarchy-unaware collective"): natively, as a
 * start step, or with a collx algorithm, as a child schedule begun by a
 * start step and driven by a poll step.
 *
 * Natively, a call that is blocking (a->nonblocking == 0) runs the MPI's
 * blocking PMPI_<coll> inside the start step: that is the MPI's tuned
 * collective (Open MPI's coll/tuned, MPICH's and SMPI's selectors pick
 * log-depth algorithms by size), where its nonblocking twin is often a
 * plain linear schedule (libnbc, SMPI's Iallgatherv), and it is as robust
 * as the MPI is to an erroneous call (Open MPI's Ireduce hangs where its
 * Reduce returns MPI_ERR_TRUNCATE). Nonblocking calls post PMPI_I<coll>. */
#include <stdlib.h>
#include "select.h"

typedef struct subcoll {
    cx_args a;
    const cx_algorithm *alg;
    cx_sched child;
} subcoll;

static int start_native(cx_sched *s, void *ctx, MPI_Request *req)
{
    (void)s;
    return cx_native_start(&((subcoll *)ctx)->a, req);
}

static int run_native(cx_sched *s, void *ctx, MPI_Request *req)
{
    (void)s;
    *req = MPI_REQUEST_NULL;
    return cx_native_run(&((subcoll *)ctx)->a);
}

static int start_child(cx_sched *s, void *ctx, MPI_Request *req)
{
    subcoll *x = ctx;
    *req = MPI_REQUEST_NULL;
    /* The communicator is collx's own (node, leaders...), used by this
     * call only: the parent's tag keeps it apart from other calls. */
    cx_sched_init_for(&x->child, x->a.comm, s->tag, x->a.coll);
    int err = x->alg->build(&x->a, &x->child);
    cx_sched_begin(&x->child);
    return err;
}

static int poll_child(cx_sched *s, void *ctx, int *done)
{
    subcoll *x = ctx;
    (void)s;
    int err = cx_sched_progress(&x->child, done);
    if (*done)
        cx_sched_free(&x->child);
    return err;
}

static int finish_child(cx_sched *s, void *ctx)
{
    subcoll *x = ctx;
    (void)s;
    int err = cx_sched_finish(&x->child);
    cx_sched_free(&x->child);
    return err;
}

/* Whether the MPI's blocking call is known to crash on a correct one:
 * MPICH before 4.1.2 segfaults in MPI_Reduce with MPI_IN_PLACE at a root
 * other than 0 (pmodels/mpich#6540); its MPI_Ireduce is right. Every rank
 * must choose alike (a blocking call never matches a nonblocking one), so
 * any reduce to a root other than 0 takes the nonblocking call. */
static int blocking_crashes(const cx_args *a)
{
#if defined(MPICH_NUMVERSION)   /* SimGrid's mpi.h defines none */
    return MPICH_NUMVERSION < 40102300 && a->coll == CX_COLL_REDUCE && a->root != 0;
#else
    (void)a;
    return 0;
#endif
}

/* Whether alg can run on a communicator that has no collx state: only the
 * operation can be checked there. */
static int servable(const cx_algorithm *alg, const cx_args *a)
{
    if (alg->requires & ~(unsigned)CX_REQ_COMMUTATIVE)
        return 0;
    int commute = 1;
    if ((alg->requires & CX_REQ_COMMUTATIVE) && a->op != MPI_OP_NULL)
        PMPI_Op_commutative(a->op, &commute);
    return commute && !alg->check;
}

static subcoll *subcoll_of(cx_sched *s, const cx_args *a)
{
    subcoll *x = cx_sched_alloc(s, sizeof *x);
    if (!x)
        return NULL;
    x->a = *a;
    PMPI_Comm_rank(a->comm, &x->a.rank);
    PMPI_Comm_size(a->comm, &x->a.size);
    x->a.pcomm = a->comm;
    x->a.order = NULL;
    x->a.cc = NULL;
    return x;
}

static int mpi_step(cx_sched *s, subcoll *x)
{
    const cx_args *a = &x->a;
    if (!a->nonblocking && !blocking_crashes(a))
        return cx_sched_start(s, run_native, x);
    /* SimGrid 3.32's MPI_Iallreduce with MPI_IN_PLACE gives wrong
     * elements above ~10^4 ints (its blocking call and the
     * out-of-place one are right): reduce from a copy instead. */
    if (CX_SIMULATED && a->coll == CX_COLL_ALLREDUCE && a->sbuf == MPI_IN_PLACE &&
        a->rcount > 0) {
        void *in = cx_sched_alloc_typed(s, a->rcount, a->rtype);
        int err = in ? cx_sched_copy(s, a->rbuf, a->rcount, a->rtype, in, a->rcount,
                                     a->rtype) : MPI_ERR_NO_MEM;
        if (err || (err = cx_sched_barrier(s)))
            return err;
        x->a.sbuf = in;
    }
    return cx_sched_start(s, start_native, x);
}

int cx_sched_mpi_collective(cx_sched *s, const cx_args *a)
{
    subcoll *x = subcoll_of(s, a);
    return x ? mpi_step(s, x) : MPI_ERR_NO_MEM;   /* counted as the call */
}

int cx_sched_collective(cx_sched *s, const cx_args *a, const cx_algorithm *alg)
{
    subcoll *x = subcoll_of(s, a);
    if (!x)
        return MPI_ERR_NO_MEM;
    if (!alg)   /* the MPI's own: in SMPI a stand-in for a few (registry.c) */
        alg = cx_native(a->coll);
    /* one the call cannot serve (an operation that does not commute) runs
     * its fallback, as a call's own choice does (decide.c) */
    while (alg && alg->build && !servable(alg, &x->a))
        alg = alg->fallback ? cx_algorithm_find(a->coll, alg->fallback) : NULL;
    int own = alg && alg->build;
    cx_count_inner(own ? alg : cx_native(a->coll));
    if (!own)
        return mpi_step(s, x);
    x->alg = alg;
    x->a.alg = alg;
    int err = cx_sched_start(s, start_child, x);
    if (!err)
        err = cx_sched_barrier(s);
    return err ? err : cx_sched_poll_wait(s, poll_child, finish_child, x);
}
