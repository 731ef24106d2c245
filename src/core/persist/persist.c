/* Persistent collectives (persist.h): the plan made at init, its starts,
 * and its MPI face.
 *
 * Tags: init takes one of the communicator's call tags (init is
 * collective, in the same order everywhere). Starts are not ordered: MPI-4
 * lets processes start persistent collectives in different orders (only
 * the inits match by order; MPICH's test/mpi/coll/p_order.c), so a
 * start's tag comes from its plan, numbered at init, and how many times
 * this rank started it: START_WINDOW consecutive starts never share a
 * tag, even when a fast rank starts again while a slow one still finishes
 * the previous start. These tags lie above the ordered calls' (1..32000);
 * an MPI whose MPI_TAG_UB leaves no room gets the ordered tags (starts in
 * call order). The MPI's own call (MPI_I<name> at each start) runs on a
 * duplicate of the communicator made at init, for the same reason: the
 * MPI matches nonblocking collectives by call order per communicator.
 * A family whose calls take turns on a communicator (hier's node barriers
 * and segment slots) runs a persistent plan on a communicator of its own
 * (plan_comm.h), its turns then its own.
 *
 * The MPI face's receive from self: one private duplicate of
 * MPI_COMM_SELF (errors returned), one tag per live plan. The plan's end
 * sends it an empty message, or one byte when the schedule failed, which
 * the empty receive reports as MPI_ERR_TRUNCATE from the program's
 * completion call (MPI gives persistent requests no other channel for an
 * error). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "persist.h"
#include "../engine/engine.h"

#define SELF_TAGS 32768   /* MPI_TAG_UB is at least 32767 */
#define BUCKETS 256
#define START_TAGS_FROM 32768   /* above cx_comm_next_tag's */
#define START_WINDOW 64

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;   /* all below */
static MPI_Comm self_comm = MPI_COMM_NULL;
static unsigned char tag_used[SELF_TAGS / 8];
typedef struct owned {
    MPI_Request handle;
    struct cx_request *r;
    struct owned *next;
} owned;
static owned *bucket[BUCKETS];
static int nowned;   /* read without the lock on fast paths */

/* ---- the schedule each start runs ---- */
static int replays(const cx_algorithm *alg)
{
    int f = cx_algorithm_family(alg);
    return f >= 0 && cx_families[f]->replays;
}

static int takes_turns(const cx_algorithm *alg)
{
    int f = cx_algorithm_family(alg);
    return f >= 0 && cx_families[f]->takes_turns;
}

/* A family that takes turns: call a moved onto the plan's own
 * communicator, whose segment is sized for this call alone. */
static int own_turns(cx_args *a, const cx_algorithm *alg, cx_plan_comm **turns)
{
    *turns = NULL;
    if (!alg->build || !takes_turns(alg))
        return MPI_SUCCESS;
    cx_comm *cc;
    int err = cx_plan_comm_new(a->cc, a->comm, turns);
    if (!err && (err = cx_comm_get(cx_plan_comm_of(*turns), &cc))) {
        cx_plan_comm_retire(*turns);
        *turns = NULL;
    }
    if (err)
        return err;
    cc->plan_owned = 1;
    a->comm = cx_plan_comm_of(*turns);
    a->cc = cc;
    a->pcomm = cc->priv;
    return MPI_SUCCESS;
}

static int build(struct cx_request *r, int tag)
{
    cx_plan *p = r->plan;
    cx_sched_init_for(&r->sched, p->a.cc->priv, tag, p->a.coll);
    return p->alg->build(&p->a, &r->sched);
}

/* The plan's first start tag, numbered by its init (0: no room above
 * the ordered tags). */
static int start_tag_base(cx_comm *c, unsigned id)
{
    int *ub = NULL, flag = 0;
    if (PMPI_Comm_get_attr(c->priv, MPI_TAG_UB, &ub, &flag) || !flag || !ub)
        return 0;
    long long span = (long long)*ub - START_TAGS_FROM + 1;
    long long plans = span / START_WINDOW;
    if (plans < 1024)
        return 0;
    return (int)(START_TAGS_FROM + (long long)(id % (unsigned long long)plans) * START_WINDOW);
}

static int start_tag(cx_plan *p)
{
    if (!p->tag_base)
        return cx_comm_next_tag(p->a.cc);
    return p->tag_base + (int)(p->starts++ % START_WINDOW);
}

static void destroy(struct cx_request *r)
{
    cx_plan *p = r->plan;
    if (p->own != MPI_COMM_NULL)
        PMPI_Comm_free(&p->own);
    cx_sched_free(&r->sched);
    if (p->turns)   /* after its schedule: that may still hold its state */
        cx_plan_comm_retire(p->turns);
    if (p->keep) {
        cx_sched_free(p->keep);
        free(p->keep);
    }
    if (p->mpi) {
        pthread_mutex_lock(&mu);
        tag_used[p->tag / 8] &= (unsigned char)~(1u << (p->tag % 8));
        pthread_mutex_unlock(&mu);
    }
    free(p);
    free(r);
}

static void plan_completed(struct cx_request *r);

/* The plan of call a, decided (alg): types held, and for a family that
 * replays, the schedule built and its set-up run. */
static int plan_new(cx_args *a, const cx_algorithm *alg, struct cx_request **out)
{
    const char *what = cx_coll_mpi_name(a->coll);
    MPI_Comm own = MPI_COMM_NULL;   /* the MPI's own call runs on its own duplicate */
    MPI_Comm user = a->comm;
    cx_args call = *a;              /* as the plan runs it (perhaps on its own comm) */
    cx_plan_comm *turns = NULL;
    int err = alg->build ? own_turns(&call, alg, &turns) : PMPI_Comm_dup(a->comm, &own);
    int inter = 0;
    if (err)
        return cx_error(user, err, "%s_init: cannot duplicate the communicator", what);
    struct cx_request *r = cx_request_new(alg->build ? call.cc : NULL);
    cx_plan *p = r ? calloc(1, sizeof *p) : NULL;
    if (!p) {
        free(r);
        if (own != MPI_COMM_NULL)
            PMPI_Comm_free(&own);
        if (turns)
            cx_plan_comm_retire(turns);
        return cx_error(user, MPI_ERR_NO_MEM, "%s_init: out of memory", what);
    }
    r->plan = p;
    r->active = &p->active;
    r->completed = plan_completed;
    p->a = call;
    p->a.alg = alg;
    p->alg = alg;
    p->self = MPI_REQUEST_NULL;
    p->own = own;
    p->turns = turns;
    if (!alg->build) {   /* the MPI's own call: the rank and size hold needs */
        r->native = 1;
        r->mpi = MPI_REQUEST_NULL;
        PMPI_Comm_rank(a->comm, &p->a.rank);
        PMPI_Comm_test_inter(a->comm, &inter);
        if (inter)
            PMPI_Comm_remote_size(a->comm, &p->a.size);
        else
            PMPI_Comm_size(a->comm, &p->a.size);
    } else {
        p->tag_base = start_tag_base(call.cc, call.cc->plan_seq++);
    }
    if (!err && !(p->keep = calloc(1, sizeof *p->keep)))
        err = MPI_ERR_NO_MEM;
    if (!err) {
        cx_sched_init(p->keep, alg->build ? call.cc->priv : MPI_COMM_NULL, 0);
        err = cx_hold_args(&p->a, p->keep);
        p->replay = alg->build && replays(alg);
        if (!err && p->replay && !(err = build(r, cx_comm_next_tag(call.cc))))
            err = cx_sched_plan_run_setup(&r->sched);
    }
    if (err) {
        destroy(r);
        return cx_error(user, err, "%s_init/%s failed", what, alg->name);
    }
    *out = r;
    return MPI_SUCCESS;
}

/* Decides call a once: *alg. */
static int decide(cx_args *a, const cx_algorithm **alg)
{
    a->nonblocking = 1;   /* starts return at once */
    a->persistent = 1;
    cx_progress_poke();
    cx_request_bury();
    cx_stats_on();   /* COLLX_STATS watches the hand-overs before the first */
    return cx_decide_call(a, NULL, alg);
}

int cx_plan_init(cx_args *a, CX_Request *req)
{
    const cx_algorithm *alg;
    struct cx_request *r;
    *req = CX_REQUEST_NULL;
    int err = decide(a, &alg);
    if (!err && !(err = plan_new(a, alg, &r)))
        *req = r;
    return err;
}

/* ---- starts ---- */
/* The agent's step for a start of the MPI's own call (MPI face only). */
static int native_step(void *ctx)
{
    struct cx_request *r = ctx;
    int flag = 0, err = PMPI_Test(&r->mpi, &flag, MPI_STATUS_IGNORE);
    if (err || flag)
        r->err = err;
    return err || flag;
}

static int start(struct cx_request *r, void (*finish)(void *ctx))
{
    cx_plan *p = r->plan;
    cx_count_call(p->alg, &p->a);
    if (!p->alg->build) {
        cx_args b = p->a;
        b.comm = p->own;
        int err = cx_native_start(&b, &r->mpi);
        if (!err && finish)
            cx_progress_hand_over(&r->job, native_step, finish, r);
        return err;
    }
    int tag = start_tag(p), err = MPI_SUCCESS;
    if (p->replay) {
        cx_sched_plan_start(&r->sched, tag);
    } else {
        cx_sched_free(&r->sched);
        if ((err = build(r, tag)))
            return cx_error(p->a.comm, err, "%s/%s failed", cx_coll_mpi_name(p->a.coll),
                            p->alg->name);
        cx_sched_begin(&r->sched);
    }
    cx_request_launch(r, finish);
    return MPI_SUCCESS;
}

int cx_plan_start(struct cx_request *r)
{
    cx_plan *p = r->plan;
    cx_progress_poke();
    if (p->active)
        return cx_error(p->a.comm, MPI_ERR_REQUEST, "CX_Start: the request is active");
    int err = start(r, NULL);
    p->active = !err;
    return err;
}

static void plan_completed(struct cx_request *r)
{
    r->plan->active = 0;
    if (!r->plan->replay)
        cx_sched_free(&r->sched);
}

/* ---- the MPI face ---- */
static unsigned hash(MPI_Request h)
{
    unsigned long long k = 0;
    memcpy(&k, &h, sizeof h < sizeof k ? sizeof h : sizeof k);
    return (unsigned)((k * 0x9E3779B97F4A7C15ull) >> 56) % BUCKETS;
}

/* The plan behind handle h (remove: and forget it); under mu. */
static struct cx_request *find(MPI_Request h, int remove)
{
    for (owned **o = &bucket[hash(h)]; *o; o = &(*o)->next)
        if ((*o)->handle == h) {
            struct cx_request *r = (*o)->r;
            if (remove) {
                owned *gone = *o;
                *o = gone->next;
                free(gone);
                __atomic_sub_fetch(&nowned, 1, __ATOMIC_RELEASE);
            }
            return r;
        }
    return NULL;
}

int cx_plan_owns(MPI_Request mreq)
{
    if (__atomic_load_n(&nowned, __ATOMIC_ACQUIRE) == 0)
        return 0;
    pthread_mutex_lock(&mu);
    int yes = find(mreq, 0) != NULL;
    pthread_mutex_unlock(&mu);
    return yes;
}

/* The self receive of plan p and its registration (under mu). */
static int self_receive(struct cx_request *r)
{
    cx_plan *p = r->plan;
    int err = MPI_SUCCESS, tag = 0;
    if (self_comm == MPI_COMM_NULL &&
        !(err = PMPI_Comm_dup(MPI_COMM_SELF, &self_comm)))
        PMPI_Comm_set_errhandler(self_comm, MPI_ERRORS_RETURN);
    while (!err && tag < SELF_TAGS && (tag_used[tag / 8] & (1u << (tag % 8))))
        tag++;
    if (!err && tag == SELF_TAGS)
        err = MPI_ERR_INTERN;   /* 32768 persistent collectives alive */
    owned *o = err ? NULL : malloc(sizeof *o);
    if (!err && !o)
        err = MPI_ERR_NO_MEM;
    if (!err && (err = PMPI_Recv_init(&p->dummy, 0, MPI_BYTE, 0, tag, self_comm, &p->self)))
        free(o);
    if (err)
        return err;
    tag_used[tag / 8] |= (unsigned char)(1u << (tag % 8));
    p->tag = tag;
    p->mpi = 1;
    *o = (owned){p->self, r, bucket[hash(p->self)]};
    bucket[hash(p->self)] = o;
    __atomic_add_fetch(&nowned, 1, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

int cx_plan_init_mpi(cx_args *a, MPI_Info info, MPI_Request *mreq, cx_native_init_fn native_init)
{
    const cx_algorithm *alg;
    struct cx_request *r;
    *mreq = MPI_REQUEST_NULL;
    int err = decide(a, &alg);
    if (err)
        return err;
    if (!alg->build && native_init) {   /* the MPI's own persistent request */
        cx_count_call(alg, a);
        return native_init(a, info, mreq);
    }
    if ((err = plan_new(a, alg, &r)))
        return err;
    pthread_mutex_lock(&mu);
    err = self_receive(r);
    pthread_mutex_unlock(&mu);
    if (err) {
        destroy(r);
        return cx_error(a->comm, err, "%s_init: cannot make the persistent request",
                        cx_coll_mpi_name(a->coll));
    }
    *mreq = r->plan->self;
    return MPI_SUCCESS;
}

/* The agent's last word on a start (under its lock): the message that
 * completes the program's receive. */
static void mpi_finished(void *ctx)
{
    struct cx_request *r = ctx;
    cx_plan *p = r->plan;
    MPI_Request q;
    pthread_mutex_lock(&mu);
    int gone = p->free_when_done;
    p->active = 0;   /* before the message: the program may start again at once */
    if (!p->replay)
        cx_sched_free(&r->sched);
    if (PMPI_Isend(&p->dummy, r->err ? 1 : 0, MPI_BYTE, 0, p->tag, self_comm, &q) ==
        MPI_SUCCESS)
        PMPI_Request_free(&q);
    pthread_mutex_unlock(&mu);
    if (gone)
        destroy(r);
}

int cx_plan_start_mpi(MPI_Request *mreq)
{
    pthread_mutex_lock(&mu);
    struct cx_request *r = find(*mreq, 0);
    int busy = r && r->plan->active;
    if (r && !busy)
        r->plan->active = 1;
    pthread_mutex_unlock(&mu);
    if (!r)
        return PMPI_Start(mreq);
    cx_progress_poke();
    if (busy)
        return cx_error(r->plan->a.comm, MPI_ERR_REQUEST, "MPI_Start: the request is active");
    int err = PMPI_Start(&r->plan->self);
    if (!err)
        err = start(r, mpi_finished);
    if (err)
        r->plan->active = 0;
    return err;
}

static int same_request(const struct cx_request *r, const void *arg)
{
    return r == arg;
}

int cx_plan_wait_mpi(MPI_Request mreq)
{
    if (__atomic_load_n(&nowned, __ATOMIC_ACQUIRE) == 0)
        return 0;
    pthread_mutex_lock(&mu);
    struct cx_request *r = find(mreq, 0);
    int active = r && r->plan->active;
    pthread_mutex_unlock(&mu);
    return active && cx_request_wait_taken(same_request, r);
}

int cx_plan_free_mpi(MPI_Request *mreq)
{
    pthread_mutex_lock(&mu);
    struct cx_request *r = find(*mreq, 1);
    int later = r && r->plan->active;
    if (later)
        r->plan->free_when_done = 1;
    pthread_mutex_unlock(&mu);
    int err = PMPI_Request_free(mreq);   /* an active receive completes, then goes */
    if (r && !later)
        destroy(r);
    return err;
}

/* ---- public API ---- */
int CX_Start(CX_Request *request)
{
    struct cx_request *r = *request;
    if (!r || !r->plan)
        return cx_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "CX_Start: not a persistent request");
    return cx_plan_start(r);
}

int CX_Startall(int count, CX_Request requests[])
{
    int err = MPI_SUCCESS;
    for (int i = 0; i < count && !err; i++)
        err = CX_Start(&requests[i]);
    return err;
}

int CX_Request_free(CX_Request *request)
{
    struct cx_request *r = *request;
    int err = MPI_SUCCESS;
    if (!r)
        return MPI_SUCCESS;
    if (!r->plan)
        return cx_error(MPI_COMM_WORLD, MPI_ERR_REQUEST,
                        "CX_Request_free: complete nonblocking requests with CX_Wait");
    if (r->plan->active)
        err = CX_Wait(request);   /* collx's requests are freed once complete */
    destroy(r);
    *request = CX_REQUEST_NULL;
    return err;
}
