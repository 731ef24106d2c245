/* One path for every call: select, check, then run the algorithm's
 * schedule (or the MPI library's own call) blocking or as a CX_Request.
 * Whatever collx cannot serve (an intercommunicator, a requirement that
 * does not hold) goes to the PMPI_ call, silently, with the reason under
 * COLLX_VERBOSE. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include "cx_internal.h"

struct cx_request {
    int native;
    MPI_Request mpi;      /* native nonblocking call */
    cx_sched sched;
    cx_job job;           /* on the progress agent while in flight */
    int err;              /* the schedule's result once the agent finished it */
    cx_stats_call *stats; /* COLLX_STATS: the call's record (heap), else NULL */
};

/* The agent's step for a request's schedule. */
static int request_step(void *ctx)
{
    struct cx_request *r = ctx;
    int done = 0, err = cx_sched_progress(&r->sched, &done);
    if (done)
        r->err = err;
    return done;
}

static int run_native(const cx_args *a, CX_Request *req)
{
    if (!req)
        return cx_native_run(a);
    struct cx_request *r = calloc(1, sizeof *r);
    if (!r)
        return cx_error(a->comm, MPI_ERR_NO_MEM, "%s: out of memory",
                        cx_coll_mpi_name(a->coll));
    r->native = 1;
    int err = cx_native_start(a, &r->mpi);
    if (err) {
        free(r);
        return err;   /* MPI has called the error handler */
    }
    *req = r;
    return MPI_SUCCESS;
}

static int run_schedule(cx_args *a, const cx_algorithm *alg, cx_comm *c,
                        CX_Request *req)
{
    const char *what = cx_coll_mpi_name(a->coll);
    struct cx_request *r = calloc(1, sizeof *r);
    if (!r)
        return cx_error(a->comm, MPI_ERR_NO_MEM, "%s: out of memory", what);
    cx_sched_init_for(&r->sched, c->priv, cx_comm_next_tag(c), a->coll);
    a->alg = alg;
    int err = alg->build(a, &r->sched);
    if (!err && req) {
        cx_sched_begin(&r->sched);
        if (cx_progress_thread_wanted())
            cx_progress_thread();
        cx_progress_add(&r->job, request_step, r);
        *req = r;
        return MPI_SUCCESS;
    }
    if (!err)
        err = cx_sched_run(&r->sched);
    if (!req)
        cx_comm_after_call(c);
    cx_sched_free(&r->sched);
    free(r);
    return err ? cx_error(a->comm, err, "%s/%s failed", what, alg->name) : err;
}

/* want: the algorithm the caller asks for (NULL: select one). */
static int dispatch(cx_args *a, CX_Request *req, const cx_algorithm *want)
{
    int err = MPI_SUCCESS, inter = 0;
    const char *what = cx_coll_mpi_name(a->coll);
    if (req)
        *req = CX_REQUEST_NULL;
    a->nonblocking = req != NULL;
    cx_progress_poke();   /* requests in flight move on in every collx call */
    if (a->comm == MPI_COMM_NULL)
        return cx_error(a->comm, MPI_ERR_COMM, "%s: MPI_COMM_NULL", what);
    /* Nothing selects anything for this collective: straight to MPI. */
    const cx_algorithm *alg = want ? want : cx_select_global(a->coll, &err);
    if (alg && !alg->build) {
        cx_count_call(alg, a);
        return run_native(a, req);
    }
    PMPI_Comm_rank(a->comm, &a->rank);
    PMPI_Comm_size(a->comm, &a->size);
    PMPI_Comm_test_inter(a->comm, &inter);
    if (inter) {
        if (alg && (err = cx_fell_back(a, alg, cx_native(a->coll), 0,
                                       "does not serve intercommunicators")))
            return cx_error(a->comm, err, "%s: %s does not serve intercommunicators",
                            what, alg->name);
        cx_count_call(cx_native(a->coll), a);
        return run_native(a, req);
    }
    if (err)
        return cx_error(a->comm, err, "%s: the environment (COLLX_<COLL>_ALGORITHM or "
                        "COLLX_RULES) names no usable algorithm; see the message above",
                        what);
    if ((err = cx_validate(a)))
        return cx_error(a->comm, err, "%s: invalid argument (root %d, p %d)", what,
                        a->root, a->size);
    cx_comm *c;
    if ((err = cx_comm_get(a->comm, &c)))
        return cx_error(a->comm, err, "%s: cannot set up communicator state", what);
    a->cc = c;
    a->pcomm = c->priv;
    const cx_knob_params *params = NULL;
    if (!alg && !(alg = cx_select(a, c, &params, &err)))
        return cx_error(a->comm, err, "%s: cannot select an algorithm", what);
    cx_decision d;
    if ((err = cx_decide(a, c, alg, params, &d)))
        return cx_error(a->comm, err, d.why ? "%s: %s %s (COLLX_FALLBACK=error)"
                        : "%s: cannot check what %s needs", what, alg->name, d.why);
    a->params = d.params;   /* the families read per-call knobs through it */
    cx_count_call(d.alg, a);
    if (!d.alg->build)
        return run_native(a, req);
    return run_schedule(a, d.alg, c, req);
}

/* COLLX_STATS: the call timed on this rank from entry to return (a CX_I
 * call: also inside CX_Test and CX_Wait until it completes) and counted
 * for the algorithm that ran it. */
static int dispatch_measured(cx_args *a, CX_Request *req, const cx_algorithm *want)
{
    cx_stats_call here, *k = req ? malloc(sizeof *k) : &here;
    if (!k)   /* not measured, still served */
        return dispatch(a, req, want);
    cx_stats_report_at_finalize();
    cx_stats_begin(k, a, req != NULL);
    a->stats = k;
    int err = dispatch(a, req, want);
    if (req && *req) {   /* the request keeps measuring */
        cx_stats_pause(k);
        (*req)->stats = k;
        return err;
    }
    cx_stats_end(k);
    if (k != &here)
        free(k);
    return err;
}

static int dispatch_call(cx_args *a, CX_Request *req, const cx_algorithm *want)
{
    return cx_stats_on() ? dispatch_measured(a, req, want) : dispatch(a, req, want);
}

int cx_dispatch(cx_args *a, CX_Request *req)
{
    return dispatch_call(a, req, NULL);
}

int cx_dispatch_as(cx_args *a, const cx_algorithm *alg)
{
    return dispatch_call(a, NULL, alg);
}

/* A request completed: its call is counted (COLLX_STATS) and it is freed. */
static void request_done(struct cx_request *r)
{
    if (r->stats) {
        cx_stats_end(r->stats);
        free(r->stats);
    }
    free(r);
}

int CX_Test(CX_Request *request, int *flag)
{
    int err = MPI_SUCCESS, polling = 0;
    struct cx_request *r = *request;
    *flag = 1;
    if (!r)
        return MPI_SUCCESS;
    if (r->stats)
        cx_stats_resume(r->stats);
    if (r->native) {
        err = PMPI_Test(&r->mpi, flag, MPI_STATUS_IGNORE);
        *flag |= err != MPI_SUCCESS;
    } else if (cx_progress_remove(&r->job)) {
        err = r->err;                      /* the agent finished it */
    } else {
        err = cx_sched_progress(&r->sched, flag);
        polling = !*flag && r->sched.npolls > 0;   /* read before the agent has it */
        if (!*flag)
            cx_progress_add(&r->job, request_step, r);
    }
    cx_progress_poke();
    if (polling) {
        /* A round that waits on shared-memory flags makes no MPI call: let
         * MPI progress and the ranks that set the flags run, as MPI_Test
         * would, or a CX_Test loop spins them off the CPU. */
        double since = 0;
        cx_sched_idle(&r->sched, 0, &since);
    }
    if (*flag) {
        if (!r->native)
            cx_sched_free(&r->sched);
        request_done(r);
        *request = CX_REQUEST_NULL;
    } else if (r->stats) {
        cx_stats_pause(r->stats);
    }
    return err;
}

int CX_Wait(CX_Request *request)
{
    int err;
    struct cx_request *r = *request;
    if (!r)
        return MPI_SUCCESS;
    if (r->stats)
        cx_stats_resume(r->stats);
    if (r->native) {
        err = PMPI_Wait(&r->mpi, MPI_STATUS_IGNORE);
    } else {
        err = cx_progress_remove(&r->job) ? r->err : cx_sched_finish(&r->sched);
        cx_sched_free(&r->sched);
    }
    request_done(r);
    *request = CX_REQUEST_NULL;
    return err;
}
