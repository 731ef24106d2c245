/* One path for every call: the selection decides (cx_decide_call), then
 * this runs the algorithm's schedule (or the MPI library's own call)
 * blocking or as a CX_Request, timing online tuning's trials. */
#include <stdlib.h>
#include "call.h"
#include "replay.h"
#include "../online/online.h"
#include "../engine/engine.h"

/* Where a call's result goes: nowhere else (blocking: both NULL), a
 * CX_Request, or an MPI_Request (the interposer's MPI_I<name>). */
typedef struct out {
    CX_Request *req;
    MPI_Request *mreq;
} out;

/* The MPI's own nonblocking call with arguments that die with this call
 * (a->scratch_arrays): posted at once from a schedule that keeps copies
 * of them, behind a generalized request. */
static int native_kept(cx_args *a, MPI_Request *mreq)
{
    int inter = 0, err;
    struct cx_request *r = cx_request_new(NULL);
    if (!r)
        return cx_error(a->comm, MPI_ERR_NO_MEM, "%s: out of memory",
                        cx_coll_mpi_name(a->coll));
    PMPI_Comm_rank(a->comm, &a->rank);
    PMPI_Comm_test_inter(a->comm, &inter);
    if (inter)   /* the arrays are as long as the remote group */
        PMPI_Comm_remote_size(a->comm, &a->size);
    else
        PMPI_Comm_size(a->comm, &a->size);
    cx_sched_init(&r->sched, a->comm, 0);
    if ((err = cx_hold_args(a, &r->sched)) ||
        (err = cx_sched_collective(&r->sched, a, NULL))) {
        cx_request_drop(r);
        return cx_error(a->comm, err, "%s: cannot keep the arguments",
                        cx_coll_mpi_name(a->coll));
    }
    return cx_request_start_mpi(r, mreq);
}

static int run_native(cx_args *a, const out *o)
{
    if (o->mreq)
        return a->scratch_arrays ? native_kept(a, o->mreq) : cx_native_start(a, o->mreq);
    if (!o->req)
        return cx_native_run(a);   /* never its nonblocking twin: they do not match */
    struct cx_request *r = cx_request_new(NULL);
    if (!r)
        return cx_error(a->comm, MPI_ERR_NO_MEM, "%s: out of memory",
                        cx_coll_mpi_name(a->coll));
    r->native = 1;
    int err = cx_native_start(a, &r->mpi);
    if (err) {
        free(r);
        return err;   /* MPI has called the error handler */
    }
    *o->req = r;
    return MPI_SUCCESS;
}

/* A blocking call that its algorithm's first step did not end: runs
 * the schedule kept from the last call with the same arguments
 * (replay.c), or builds into this thread's spare schedule, whose arrays
 * and arena stay from call to call: no allocation on the way. Apart
 * from run_blocking, so that a call the first step ends pays none of
 * this one's frame. */
static __attribute__((noinline)) int run_built(cx_args *a, const cx_algorithm *alg,
                                               cx_comm *c, int tag)
{
    int err, replayed = 0;
    cx_sched *s = cx_replay_take(c, a);
    if (s) {
        replayed = 1;
        cx_sched_plan_start(s, tag);
        CX_PHASE(CX_PH_BUILD);
        err = cx_sched_finish(s);
        CX_PHASE(CX_PH_RUN);
    } else {
        if (!(s = cx_sched_take_spare()))
            return cx_error(a->comm, MPI_ERR_NO_MEM, "%s: out of memory",
                            cx_coll_mpi_name(a->coll));
        cx_sched_reuse(s, c->priv, tag, a->coll);
        err = alg->build(a, s);
        CX_PHASE(CX_PH_BUILD);
        if (!err)
            err = cx_sched_run(s);
        CX_PHASE(CX_PH_RUN);
    }
    cx_comm_after_call(c);
    cx_replay_keep(c, a, s, replayed);
    CX_PHASE(CX_PH_DONE);
    return err ? cx_error(a->comm, err, "%s/%s failed", cx_coll_mpi_name(a->coll), alg->name)
               : err;
}

/* A blocking call ends in its algorithm's first step where that can
 * (alg->blocking_first: hier's small calls on one node), or goes on in
 * run_built. The tag is taken first, whichever way the call goes, so
 * every rank's count stays the same. c is a->cc: after the step, the
 * algorithm and c are read from a again (fewer registers kept across
 * the step, a shorter frame for the calls it ends). */
static int run_blocking(cx_args *a, const cx_algorithm *alg, cx_comm *c, int noted)
{
    int err, done = 0, tag = cx_comm_next_tag(c);
    a->alg = alg;
    if (!alg->blocking_first)
        return run_built(a, alg, c, tag);
    if (!(err = alg->blocking_first(a, &done)) && !done)
        return run_built(a, a->alg, a->cc, tag);
    CX_PHASE(CX_PH_RUN);
    cx_comm_after_call(a->cc);
    if (!err && !noted)   /* noted: the decision kept is this one */
        cx_replay_note(a->cc, a);
    CX_PHASE(CX_PH_DONE);
    return err ? cx_error(a->comm, err, "%s/%s failed", cx_coll_mpi_name(a->coll),
                          a->alg->name)
               : err;
}

/* A blocking call decided before whose schedule was kept (k, on c): run
 * again, kept again. */
static int run_decided(cx_args *a, cx_kept *k, cx_comm *c)
{
    cx_sched *s = k->s;
    k->s = NULL;   /* a nested call on c finds none */
    cx_sched_plan_start(s, cx_comm_next_tag(c));
    CX_PHASE(CX_PH_BUILD);
    int err = cx_sched_finish(s);
    CX_PHASE(CX_PH_RUN);
    cx_comm_after_call(c);
    cx_replay_back(k, s);
    CX_PHASE(CX_PH_DONE);
    return err ? cx_error(a->comm, err, "%s/%s failed", cx_coll_mpi_name(a->coll),
                          k->alg->name)
               : err;
}

static int run_schedule(cx_args *a, const cx_algorithm *alg, cx_comm *c, const out *o)
{
    if (!o->req && !o->mreq)
        return run_blocking(a, alg, c, 0);
    const char *what = cx_coll_mpi_name(a->coll);
    struct cx_request *r = cx_request_new(c);
    if (!r)
        return cx_error(a->comm, MPI_ERR_NO_MEM, "%s: out of memory", what);
    cx_sched_init_for(&r->sched, c->priv, cx_comm_next_tag(c), a->coll);
    a->alg = alg;
    int err = cx_hold_args(a, &r->sched);
    if (!err)
        err = alg->build(a, &r->sched);
    if (!err && o->req)
        return cx_request_start(r, o->req);
    if (!err)
        return (err = cx_request_start_mpi(r, o->mreq))
                   ? cx_error(a->comm, err, "%s: cannot make a generalized request", what)
                   : MPI_SUCCESS;
    cx_request_drop(r);
    return cx_error(a->comm, err, "%s/%s failed", what, alg->name);
}

/* want: the algorithm the caller asks for (NULL: select one). */
static int dispatch_now(cx_args *a, const out *o, const cx_algorithm *want);

/* A call's bracket: a blocking call is watched from entry (its first
 * call on a communicator sets up collx's state there, collectively) to
 * return: watchdog.mpi.c; in SMPI every call is timed apart from the
 * program (cx_bench_enter). enter's value goes to leave. */
static inline unsigned long call_enter(const cx_args *a, int blocking)
{
    cx_bench_enter();
    if (!blocking)
        return 0;
    unsigned long watched = cx_watch_enter(a->coll);
    CX_PHASE_START();
    return watched;
}

static inline void call_leave(int blocking, unsigned long watched)
{
    if (blocking)
        cx_watch_leave(watched);
    cx_bench_leave();
}

static int dispatch(cx_args *a, const out *o, const cx_algorithm *want)
{
    int blocking = !o->req && !o->mreq;
    unsigned long watched = call_enter(a, blocking);
    int err = dispatch_now(a, o, want);
    call_leave(blocking, watched);
    return err;
}

static int dispatch_now(cx_args *a, const out *o, const cx_algorithm *want)
{
    const cx_algorithm *alg;
    if (o->req)
        *o->req = CX_REQUEST_NULL;
    if (o->mreq)
        *o->mreq = MPI_REQUEST_NULL;
    a->nonblocking = o->req || o->mreq;
    cx_progress_poke();   /* requests in flight move on in every collx call */
    cx_request_bury();
    if (cx_online_on() && !cx_online_active())
        cx_online_start();   /* a linked program's first call; once */
    int err = MPI_SUCCESS;
    if (!want && cx_decided_native(a))   /* a collective left to the MPI */
        alg = cx_native(a->coll);
    else if ((err = cx_decide_call(a, want, &alg)))
        return err;
    cx_count_call(alg, a);
    CX_PHASE(CX_PH_SELECT);
    cx_charge_call(alg->build != NULL);   /* SMPI: the work it does not see */
    double since = a->tune ? PMPI_Wtime() : 0;
    err = alg->build ? run_schedule(a, alg, a->cc, o) : run_native(a, o);
    if (a->tune)   /* a timed trial of online tuning */
        cx_online_timed(a, PMPI_Wtime() - since);
    return err;
}

/* COLLX_STATS: the call timed on this rank from entry to return (a CX_I
 * call: also inside CX_Test and CX_Wait until it completes; an MPI_I call
 * through the interposer: its start only, MPI completes it) and counted
 * for the algorithm that ran it. */
static int measured_now(cx_args *a, const out *o, const cx_algorithm *want)
{
    cx_stats_call here, *k = o->req ? malloc(sizeof *k) : &here;
    if (!k)   /* not measured, still served */
        return dispatch(a, o, want);
    cx_stats_report_at_finalize();
    cx_stats_begin(k, a, o->req || o->mreq);
    a->ran = &k->ran;
    int err = dispatch(a, o, want);
    if (o->req && *o->req) {   /* the request keeps measuring */
        cx_stats_pause(k);
        (*o->req)->timer = &cx_stats_timer;
        (*o->req)->clock = k;
        return err;
    }
    cx_stats_end(k);
    if (k != &here)
        free(k);
    return err;
}

/* In SMPI the statistics' own work (COLLX_PROGRESS_FILE's writes among
 * it) is collx's, not the program's computation: inside the bench's
 * bracket too (PARPACK at two ranks: 68 ms simulated with the progress
 * file, 28 without, 24 on real cores). */
static int dispatch_measured(cx_args *a, const out *o, const cx_algorithm *want)
{
    cx_bench_enter();
    int err = measured_now(a, o, want);
    cx_bench_leave();
    return err;
}

/* COLLX_STATS is read before the decision, so that its watch sees the
 * first hand-over. */
static int dispatch_call(cx_args *a, const out *o, const cx_algorithm *want)
{
    return cx_stats_on() ? dispatch_measured(a, o, want) : dispatch(a, o, want);
}

/* The short path (issue 76): a blocking call decided before on its
 * communicator (k, on c: replay.c) and nothing measured (COLLX_STATS).
 * No settings, selection or checks: counted, then its kept schedule runs
 * again (none kept: the algorithm builds, hier's). Online tuning has
 * started, or is off, by then: the call that decided first started it
 * (dispatch_now), and its start's policy made every decision before it
 * stale. */
static int run_short(cx_args *a, cx_kept *k, cx_comm *c)
{
    unsigned long watched = call_enter(a, 1);
    cx_progress_poke();   /* requests in flight move on in every collx call */
    cx_request_bury();
    a->nonblocking = 0;
    a->alg = k->alg;
    a->params = k->params;   /* (COLLX_VERBOSE's line names them) */
    cx_count_unmeasured(k->index, k->alg, a);   /* (COLLX_STATS is off) */
    CX_PHASE(CX_PH_SELECT);
    cx_charge_call(1);
    int err;
    if (k->s) {
        err = run_decided(a, k, c);
    } else {
        cx_replay_decision(a, k, c);
        err = run_blocking(a, k->alg, c, 1);
    }
    call_leave(1, watched);
    return err;
}

/* Never inlined, link-time optimization or not: the entry that
 * bench/engine_instructions.sh counts from. */
__attribute__((noinline)) int cx_dispatch(cx_args *a, CX_Request *req)
{
    cx_kept *k;
    cx_comm *c;
    if (!req && !cx_stats_on() && (k = cx_replay_decided(a, &c)))
        return run_short(a, k, c);
    out o = {req, NULL};
    return dispatch_call(a, &o, NULL);
}

__attribute__((noinline)) int cx_dispatch_mpi(cx_args *a, MPI_Request *req)
{
    out o = {NULL, req};
    return dispatch_call(a, &o, NULL);
}

__attribute__((noinline)) int cx_dispatch_as(cx_args *a, const cx_algorithm *alg)
{
    out o = {NULL, NULL};
    return dispatch_call(a, &o, alg);
}
