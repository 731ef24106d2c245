/* Executors of schedules: blocking, and step by step for requests and the
 * progress agent. A failed step records the first error and the schedule
 * runs on to its end, so no peer waits forever for a message of ours. */
#include <stdlib.h>
#include "sched.h"
#include "dtype.h"
#include "progress.h"
#include "spin.h"

int cx_grow(void **arr, int *cap, int need, size_t elem);

static void note(cx_sched *s, int err)
{
    if (err != MPI_SUCCESS && s->err == MPI_SUCCESS)
        s->err = err;
}

static int round_begin(const cx_sched *s, int r)
{
    return r == 0 ? 0 : s->round_end[r - 1];
}

/* Posts message op (one request slot per op of the round). */
static void post(cx_sched *s, const cx_op *op)
{
    MPI_Request *q = &s->reqs[s->nreqs];
    int err = op->kind == CX_OP_RECV
                  ? PMPI_Irecv(op->dst, (int)op->count, op->type, op->peer, op->tag,
                               op->comm, q)
                  : PMPI_Isend(op->src, (int)op->count, op->type, op->peer, op->tag,
                               op->comm, q);
    note(s, err);
    s->nreqs += err == MPI_SUCCESS;
}

/* Whether op is a message posted after the round's local steps. */
static int late_msg(const cx_op *op, cx_op_kind kind)
{
    return op->kind == kind && !(op->flags & CX_MSG_EARLY);
}

/* The simulated seconds of local step op (SMPI; a real MPI's run does
 * not even size it). */
#define CHARGED(seconds, op) \
    (CX_SIMULATED ? seconds(cx_type_bytes((op)->count, (op)->type)) : 0.0)

/* Runs local step i; the simulated time of copies and reductions adds up
 * in *pending, charged before anything another rank can see (a start
 * step's request, the round's messages). */
static void run_local(cx_sched *s, int i, double *pending)
{
    cx_op *op = &s->ops[i];
    if (op->kind == CX_OP_COPY) {
        note(s, cx_copy(op->src, op->count, op->type, op->dst, op->dcount, op->dtype));
        *pending += CHARGED(cx_copy_seconds, op);
    } else if (op->kind == CX_OP_REDUCE) {
        note(s, cx_reduce_local(op->src, op->dst, op->count, op->type, op->op));
        *pending += CHARGED(cx_reduce_seconds, op);
    } else if (op->kind == CX_OP_START) {
        cx_charge(pending);
        MPI_Request q = MPI_REQUEST_NULL;
        cx_start_fn fn = op->start;
        void *ctx = op->ctx;
        note(s, fn(s, ctx, &q));     /* may add ops: s->ops may move */
        note(s, cx_sched_barrier(s));
        if (q != MPI_REQUEST_NULL)
            s->reqs[s->nreqs++] = q;
    } else if (op->kind == CX_OP_POLL) {
        op->done = 0;
        s->npolls++;
    } else if (op->flags & CX_MSG_EARLY) {   /* a message, in order */
        cx_charge(pending);
        post(s, op);
    }
}

/* Runs the local steps of round r and posts its messages. */
static void start_round(cx_sched *s, int r)
{
    if (s->before_round)
        s->before_round(s, r);
    int b = round_begin(s, r), e = s->round_end[r];
    s->nreqs = 0;
    s->npolls = 0;
    if ((e - b > s->reqs_cap &&
         cx_grow((void **)&s->reqs, &s->reqs_cap, e - b, sizeof *s->reqs)) ||
        (e - b > s->stats_cap &&
         cx_grow((void **)&s->stats, &s->stats_cap, e - b, sizeof *s->stats))) {
        note(s, MPI_ERR_NO_MEM);
        return;
    }
    double pending = 0;
    for (int i = b; i < e; i++)
        run_local(s, i, &pending);
    cx_charge(&pending);
    /* Receives first, so an early sender finds them posted. */
    for (int i = b; i < e; i++)
        if (late_msg(&s->ops[i], CX_OP_RECV))
            post(s, &s->ops[i]);
    for (int i = b; i < e; i++)
        if (late_msg(&s->ops[i], CX_OP_SEND))
            post(s, &s->ops[i]);
}

/* After a multiple completion call failed with MPI_ERR_IN_STATUS: records
 * the failures, forgets every request that is finished; *pending = how
 * many are still active. */
static void settle(cx_sched *s, const MPI_Status *st, int *pending)
{
    *pending = 0;
    for (int i = 0; i < s->nreqs; i++) {
        int e = st[i].MPI_ERROR;
        if (e == MPI_ERR_PENDING && s->reqs[i] != MPI_REQUEST_NULL) {
            (*pending)++;
            continue;
        }
        note(s, e);
        s->reqs[i] = MPI_REQUEST_NULL;
    }
}

/* SMPI's MPI_Testall and MPI_Test return success over a truncated
 * receive (the error is in MPI_Test's status only): there the requests
 * are tested one by one. */
static void test_each(cx_sched *s, int *flag)
{
    for (int i = 0; i < s->nreqs; i++) {
        int done = 1;
        if (s->reqs[i] == MPI_REQUEST_NULL)
            continue;
        MPI_Status st;
        st.MPI_ERROR = MPI_SUCCESS;   /* SMPI sets it, returning success */
        int err = PMPI_Test(&s->reqs[i], &done, &st);
        if (!err && done)
            err = st.MPI_ERROR;
        if (err) {
            note(s, err);
            s->reqs[i] = MPI_REQUEST_NULL;
        } else if (!done) {
            *flag = 0;
        }
    }
    if (*flag)
        s->nreqs = 0;
}

/* Tests the round's requests; *flag = 1 when none is active. */
static void test_reqs(cx_sched *s, int *flag)
{
    *flag = 1;
    if (!s->nreqs)
        return;
    if (CX_SIMULATED) {
        test_each(s, flag);
        return;
    }
    int err = PMPI_Testall(s->nreqs, s->reqs, flag, s->stats);
    if (err == MPI_ERR_IN_STATUS) {
        int pending;
        settle(s, s->stats, &pending);
        *flag = pending == 0;
    } else if (err) {
        note(s, err);   /* the requests themselves are broken: give up on them */
        *flag = 1;
    }
    if (*flag)
        s->nreqs = 0;
}

/* Waits for the round's requests. SMPI's MPI_Waitall is a loop of
 * MPI_Waitany, O(n^2) simulator work (a linear gather root at p=560 took
 * 0.7 s of host time per call); waiting in order completes the same set in
 * the same simulated time. */
static void wait_reqs(cx_sched *s)
{
    int n = s->nreqs, err = MPI_SUCCESS;
    if (n == 0)
        return;   /* a round of local steps: no trip into MPI's progress */
    if (!CX_SIMULATED)
        err = PMPI_Waitall(n, s->reqs, s->stats);
    if (err == MPI_ERR_IN_STATUS) {
        int pending;
        settle(s, s->stats, &pending);
        err = MPI_SUCCESS;
    }
    note(s, err);
    for (int i = 0; i < n; i++)
        if (s->reqs[i] != MPI_REQUEST_NULL) {
            note(s, PMPI_Wait(&s->reqs[i], MPI_STATUS_IGNORE));
            s->reqs[i] = MPI_REQUEST_NULL;
        }
    s->nreqs = 0;
}

/* Whether every poll step of the current round holds. */
static int polls_hold(cx_sched *s)
{
    if (!s->npolls)
        return 1;
    int b = round_begin(s, s->cur), e = s->round_end[s->cur];
    for (int i = b; i < e; i++) {
        cx_op *op = &s->ops[i];
        if (op->kind != CX_OP_POLL || op->done)
            continue;
        int done = 0, err = op->poll(s, op->ctx, &done);
        note(s, err);
        if (done || err) {   /* a failed poll cannot become true: move on */
            op->done = 1;
            s->npolls--;
        }
    }
    return s->npolls == 0;
}

/* Whether the round's requests are done and each poll step left has a
 * blocking twin; if so, waits for them in turn (cx_sched_poll_wait). */
static int waited_polls(cx_sched *s)
{
    int b = round_begin(s, s->cur), e = s->round_end[s->cur];
    if (s->nreqs)
        return 0;
    for (int i = b; i < e; i++)
        if (s->ops[i].kind == CX_OP_POLL && !s->ops[i].done && !s->ops[i].wait)
            return 0;
    for (int i = b; i < e; i++) {
        cx_op *op = &s->ops[i];
        if (op->kind != CX_OP_POLL || op->done)
            continue;
        note(s, op->wait(s, op->ctx));
        op->done = 1;
        s->npolls--;
    }
    return 1;
}

/* Lets other ranks (SMPI actors, oversubscribed processes) and MPI's
 * progress engine run while a poll step waits: a probe, then the turn
 * given away (idle.mpi.c / idle.smpi.c say how). */
void cx_sched_idle(cx_sched *s, int spins, double *since)
{
    int flag;
    if (s->backoff) {
        cx_backoff(&spins);
        return;
    }
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, s->comm, &flag, MPI_STATUS_IGNORE);
    cx_idle_turn(spins, since);
}

/* The rounds to run: all, or while a plan's set-up runs, those before
 * its mark (all of them until the mark is known). */
static int last_round(const cx_sched *s)
{
    if (s->plan_setup && s->plan_state == CX_PLAN_MARKED)
        return s->plan_from < s->nrounds ? s->plan_from : s->nrounds;
    if (s->plan_setup && s->plan_state == CX_PLAN_NO_SETUP)
        return 0;
    return s->nrounds;
}

static void next_round(cx_sched *s)
{
    if (++s->cur < last_round(s))
        start_round(s, s->cur);
}

int cx_sched_begin(cx_sched *s)
{
    if (s->started)
        return MPI_SUCCESS;   /* started early (PAP background): continue it */
    note(s, cx_sched_barrier(s));
    s->started = 1;
    s->cur = 0;
    s->nreqs = 0;
    if (s->nrounds)
        start_round(s, 0);
    return MPI_SUCCESS;
}

int cx_sched_progress(cx_sched *s, int *done)
{
    *done = 0;
    while (s->cur < last_round(s)) {
        int flag;
        test_reqs(s, &flag);
        if (!flag || !polls_hold(s))
            return MPI_SUCCESS;
        next_round(s);
    }
    *done = 1;
    return s->err;
}

/* Spins until held(arg), for up to the spin budget; 1 once it held. Not
 * while nonblocking schedules are in flight (they move on in the polite
 * wait). Every 256 turns one MPI probe on comm lets the MPI progress what
 * the program has in flight (a peer's rendezvous may wait for it). */
static int spin_until(int (*held)(void *), void *arg, MPI_Comm comm)
{
    int64_t budget = cx_spin_budget_ns(), deadline = 0;
    if (budget <= 0 || cx_progress_pending())
        return 0;
    for (unsigned turn = 0;; turn++) {
        if (held(arg))
            return 1;
        cx_cpu_relax();
        if (turn % 256 == 255) {
            int any;
            PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &any, MPI_STATUS_IGNORE);
            int64_t now = cx_now_ns();
            if (!deadline)
                deadline = now + budget;
            else if (now > deadline)
                return 0;
        }
    }
}

/* The current round is done: its requests tested, its polls asked. */
static int round_held(void *p)
{
    cx_sched *s = p;
    int flag = 1;
    if (s->nreqs)
        test_reqs(s, &flag);
    return flag && polls_hold(s);
}

/* Spins on the current round; not for polls that make their own MPI
 * calls (s->backoff). */
static int spun(cx_sched *s)
{
    return !s->backoff && spin_until(round_held, s, s->comm);
}

/* cx_wait_poll's condition, asked without a schedule. */
typedef struct asked {
    cx_poll_fn fn;
    void *ctx;
    int err;
} asked;

static int asked_held(void *p)
{
    asked *q = p;
    int done = 0;
    q->err = q->fn(NULL, q->ctx, &done);
    return done || q->err;
}

/* Asked once, then spun on, with no schedule: most waits of a node's
 * ranks end there (the stand-in schedule's set-up was a tenth of a small
 * hierarchical call's own instructions). */
int cx_wait_poll(MPI_Comm comm, cx_poll_fn fn, void *ctx)
{
    asked q = {fn, ctx, MPI_SUCCESS};
    if (asked_held(&q) || spin_until(asked_held, &q, comm))
        return q.err;
    cx_sched s;
    cx_sched_init(&s, comm, 0);
    cx_op op = {.kind = CX_OP_POLL, .poll = fn, .ctx = ctx};
    /* the round: this one poll step, on the stack */
    int end = 1;
    s.ops = &op;
    s.nops = 1;
    s.round_end = &end;
    s.nrounds = 1;
    s.npolls = 1;
    s.started = 1;
    double since = 0;
    for (int spins = 0; !polls_hold(&s); spins++) {
        cx_progress_poke();
        cx_sched_idle(&s, spins, &since);
    }
    return s.err;
}

int cx_sched_finish(cx_sched *s)
{
    while (s->cur < last_round(s)) {
        /* Nonblocking schedules in flight move on meanwhile: a peer may
         * wait for one of them before it serves this one. */
        if (!s->npolls && !cx_progress_pending()) {
            wait_reqs(s);
        } else if (!spun(s)) {
            int flag;
            double since = 0;
            for (int spins = 0;; spins++) {
                test_reqs(s, &flag);
                if (polls_hold(s) && flag)
                    break;
                if (flag && !cx_progress_pending() && waited_polls(s))
                    break;
                cx_progress_poke();
                cx_sched_idle(s, spins, &since);
            }
        }
        next_round(s);
    }
    return s->err;
}

void cx_sched_plan_setup(cx_sched *s)
{
    s->plan_state = CX_PLAN_SETUP_RUNNING;
}

void cx_sched_plan_here(cx_sched *s)
{
    cx_sched_barrier(s);   /* what follows goes into new rounds */
    s->plan_state = CX_PLAN_MARKED;
    s->plan_from = s->nrounds;
}

int cx_sched_plan_run_setup(cx_sched *s)
{
    int err = cx_sched_barrier(s);   /* the last round built is complete */
    if (err || s->plan_state == CX_PLAN_NO_SETUP)
        return err;
    s->plan_setup = 1;
    cx_sched_begin(s);
    err = cx_sched_finish(s);
    s->plan_setup = 0;
    if (!err && s->plan_state != CX_PLAN_MARKED)
        err = MPI_ERR_INTERN;   /* the set-up never said where starts begin */
    return err;
}

static int plan_start(cx_sched *s, int tag, int any_comm)
{
    int from = s->plan_state == CX_PLAN_MARKED ? s->plan_from : 0;
    int b = round_begin(s, from);
    for (int i = b; i < s->nops; i++) {
        cx_op *op = &s->ops[i];
        if ((op->kind == CX_OP_SEND || op->kind == CX_OP_RECV) &&
            (any_comm || op->comm == s->comm) && op->tag == s->tag)
            op->tag = tag;
    }
    s->tag = tag;
    s->started = 1;
    s->err = MPI_SUCCESS;
    s->nreqs = 0;
    s->npolls = 0;
    s->cur = from;
    if (from < s->nrounds)
        start_round(s, from);
    return MPI_SUCCESS;
}

int cx_sched_plan_start(cx_sched *s, int tag)
{
    return plan_start(s, tag, 0);
}

int cx_sched_plan_start_all(cx_sched *s, int tag)
{
    return plan_start(s, tag, 1);
}

int cx_sched_run(cx_sched *s)
{
    cx_sched_begin(s);
    return cx_sched_finish(s);
}

/* What a run leaves behind: cleanups, requests in flight, temporaries'
 * contents, derived types (the arrays stay). */
void cx_sched_release(cx_sched *s)
{
    for (cx_cleanup *c = s->cleanups; c; c = c->next)
        c->fn(c->ctx);
    s->cleanups = NULL;
    for (int i = 0; i < s->nreqs; i++)   /* abandoned mid-way: cancel */
        if (s->reqs[i] != MPI_REQUEST_NULL) {
            PMPI_Cancel(&s->reqs[i]);
            PMPI_Wait(&s->reqs[i], MPI_STATUS_IGNORE);
        }
    s->nreqs = 0;
    for (int i = 0; i < s->ntypes; i++)
        PMPI_Type_free(&s->types[i]);
    s->ntypes = 0;
}

void cx_sched_free(cx_sched *s)
{
    cx_sched_release(s);
    cx_sched_free_temps(s);
    free(s->types);
    free(s->ops);
    free(s->round_end);
    free(s->reqs);
    free(s->stats);
    *s = (cx_sched){0};
}
