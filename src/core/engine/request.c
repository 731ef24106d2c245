/* collx's requests (request.h): CX_Test and CX_Wait, and the MPI face of
 * a schedule, a generalized request.
 *
 * A generalized request's memory is held twice: by collx until the agent
 * has called MPI_Grequest_complete, and by MPI until it calls free_fn.
 * The two come in either order: Open MPI calls free_fn at the completion
 * of a request the program freed with MPI_Request_free, MPICH at the
 * MPI_Request_free itself (the schedule then still runs to its end). The
 * last one to let go frees it; when that is free_fn, later: MPICH under
 * MPI_THREAD_MULTIPLE aborts on an MPI call (the schedule's
 * MPI_Type_free) from inside its callbacks, so the request waits on a
 * list that the next collx call or completion call empties. */
#include <stdlib.h>
#include "engine.h"
#include "request.h"

static int mpi_in_flight;   /* generalized requests not yet complete */

struct cx_request *cx_request_new(cx_comm *c)
{
    struct cx_request *r = calloc(1, sizeof *r);
    if (r)
        r->cc = c;
    return r;
}

void cx_request_drop(struct cx_request *r)
{
    cx_sched_free(&r->sched);
    free(r);
}

/* The schedule ended with err: the communicator may go (comm.c drains). */
static void note_finished(struct cx_request *r, int err)
{
    r->err = err;
    r->finished = 1;
    cx_comm_leave(r->cc);
}

/* Moves r's schedule on; *done once it finished. */
static int advance(struct cx_request *r, int *done)
{
    int err = cx_sched_progress(&r->sched, done);
    if (*done)
        note_finished(r, err);
    return err;
}

/* The agent's step. */
static int step(void *ctx)
{
    struct cx_request *r = ctx;
    int done = 0;
    advance(r, &done);
    return done;
}

void cx_request_launch(struct cx_request *r, void (*finish)(void *ctx))
{
    cx_comm_enter(r->cc);
    r->finished = 0;
    if (cx_progress_thread_wanted())
        cx_progress_thread();
    if (finish)
        cx_progress_hand_over(&r->job, step, finish, r);
    else
        cx_progress_add(&r->job, step, r);
}

int cx_request_start(struct cx_request *r, CX_Request *req)
{
    cx_sched_begin(&r->sched);
    cx_request_launch(r, NULL);
    *req = r;
    return MPI_SUCCESS;
}

/* ---- the MPI face ---- */
static struct cx_request *buried;   /* let go inside an MPI callback */

void cx_request_bury(void)
{
    if (!__atomic_load_n(&buried, __ATOMIC_RELAXED))
        return;
    struct cx_request *r = __atomic_exchange_n(&buried, NULL, __ATOMIC_ACQUIRE);
    while (r) {
        struct cx_request *next = r->next_buried;
        cx_request_drop(r);
        r = next;
    }
}

static void let_go(struct cx_request *r, int in_callback)
{
    if (__atomic_sub_fetch(&r->holds, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    if (!in_callback) {
        cx_request_drop(r);
        return;
    }
    r->next_buried = __atomic_load_n(&buried, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&buried, &r->next_buried, r, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
        ;
}

/* The status of a completed collective: empty (MPI leaves source and
 * tag undefined; the MPIs' own nonblocking collectives give these). */
static int query_fn(void *extra, MPI_Status *status)
{
    struct cx_request *r = extra;
    PMPI_Status_set_elements_x(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    return r->err;
}

static int free_fn(void *extra)
{
    let_go(extra, 1);
    return MPI_SUCCESS;
}

/* A collective cannot be cancelled (MPI: erroneous); it runs on. */
static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

/* The agent's last word on a finished schedule (under its lock). */
static void complete(void *ctx)
{
    struct cx_request *r = ctx;
    __atomic_sub_fetch(&mpi_in_flight, 1, __ATOMIC_RELEASE);
    PMPI_Grequest_complete(r->greq);   /* may call free_fn (Open MPI) */
    let_go(r, 0);
}

int cx_request_start_mpi(struct cx_request *r, MPI_Request *mreq)
{
    int err = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, r, &r->greq);
    if (err) {
        cx_request_drop(r);
        return err;
    }
    r->holds = 2;
    *mreq = r->greq;
    __atomic_add_fetch(&mpi_in_flight, 1, __ATOMIC_RELEASE);
    cx_sched_begin(&r->sched);
    cx_request_launch(r, complete);
    return MPI_SUCCESS;
}

struct taking {
    int (*match)(const struct cx_request *r, const void *arg);
    const void *arg;
};

static int takes(const cx_job *job, const void *arg)
{
    const struct taking *t = arg;
    return job->step == step && t->match(job->ctx, t->arg);
}

int cx_request_wait_taken(int (*match)(const struct cx_request *r, const void *arg),
                          const void *arg)
{
    struct taking t = {match, arg};
    cx_job *job = cx_progress_take(takes, &t);
    if (!job)
        return 0;
    struct cx_request *r = job->ctx;
    note_finished(r, cx_sched_finish(&r->sched));
    job->finish(r);   /* may free r */
    return 1;
}

static int same_greq(const struct cx_request *r, const void *arg)
{
    return r->greq == *(const MPI_Request *)arg;
}

int cx_request_wait_mpi(MPI_Request mreq)
{
    /* cheap for the program's own requests while no generalized one runs */
    return mreq != MPI_REQUEST_NULL && cx_request_mpi_in_flight() &&
           cx_request_wait_taken(same_greq, &mreq);
}

int cx_request_mpi_in_flight(void)
{
    return __atomic_load_n(&mpi_in_flight, __ATOMIC_ACQUIRE) > 0;
}

void cx_request_drain_mpi(void)
{
    for (int spins = 0; cx_request_mpi_in_flight(); cx_backoff(&spins))
        cx_progress_poke();
    cx_request_bury();
}

/* ---- CX_Request ---- */
/* A completed CX_Request: its call is counted (COLLX_STATS), it is freed. */
static void release(CX_Request *request)
{
    struct cx_request *r = *request;
    if (r->timer)
        r->timer->end(r->clock);
    if (!r->native)
        cx_sched_free(&r->sched);
    free(r);
    *request = CX_REQUEST_NULL;
}

/* A completed request: freed, or (persistent) made inactive. */
static void completed(CX_Request *request)
{
    if ((*request)->completed)
        (*request)->completed(*request);
    else
        release(request);
}

/* The program completes r: 0 when there is nothing to complete (no
 * request, or a persistent one not started); else r's clock runs again. */
static int taken_up(struct cx_request *r)
{
    if (!r || (r->active && !*r->active))
        return 0;
    if (r->timer)
        r->timer->resume(r->clock);
    return 1;
}

int CX_Test(CX_Request *request, int *flag)
{
    int err = MPI_SUCCESS, polling = 0;
    struct cx_request *r = *request;
    *flag = 1;
    if (!taken_up(r))
        return MPI_SUCCESS;
    if (r->native) {
        err = PMPI_Test(&r->mpi, flag, MPI_STATUS_IGNORE);
        *flag |= err != MPI_SUCCESS;
    } else if (cx_progress_remove(&r->job)) {
        err = r->err;                      /* the agent finished it */
    } else {
        err = advance(r, flag);
        polling = !*flag && r->sched.npolls > 0;   /* read before the agent has it */
        if (!*flag)
            cx_progress_add(&r->job, step, r);
    }
    cx_progress_poke();
    if (polling) {
        /* A round that waits on shared-memory flags makes no MPI call: let
         * MPI progress and the ranks that set the flags run, as MPI_Test
         * would, or a CX_Test loop spins them off the CPU. */
        double since = 0;
        cx_sched_idle(&r->sched, 0, &since);
    }
    if (*flag)
        completed(request);
    else if (r->timer)
        r->timer->pause(r->clock);
    return err;
}

int CX_Wait(CX_Request *request)
{
    int err;
    struct cx_request *r = *request;
    if (!taken_up(r))
        return MPI_SUCCESS;
    if (r->native) {
        err = PMPI_Wait(&r->mpi, MPI_STATUS_IGNORE);
    } else if (cx_progress_remove(&r->job)) {
        err = r->err;
    } else {
        err = cx_sched_finish(&r->sched);
        note_finished(r, err);
    }
    completed(request);
    return err;
}
