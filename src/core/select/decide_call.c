/* A call's decision from its arguments, in one place: the settings check,
 * the selection (explicit, environment, rules), a registered policy's
 * pick (online tuning), the argument checks, then the requirements and
 * fallbacks (decide.c). Whatever collx cannot serve (an
 * intercommunicator, a requirement that does not hold) goes to the
 * MPI's own call, with the reason under COLLX_VERBOSE. */
#include <stdatomic.h>
#include "select.h"

/* Set once (online tuning's start), read by every call: one load when
 * none is set. */
static _Atomic(const cx_select_policy *) policy;

void cx_select_set_policy(const cx_select_policy *p)
{
    atomic_store_explicit(&policy, p, memory_order_release);
    cx_select_changed();
}

/* The policy set, for a blocking call (read once per call). */
static const cx_select_policy *policy_of(const cx_args *a)
{
    return a->nonblocking ? NULL : atomic_load_explicit(&policy, memory_order_acquire);
}

/* The policy p (policy_of(a)) if it looks at call a: blocking calls of
 * its collectives, unless the program or the environment names their
 * algorithm. */
static const cx_select_policy *policy_for(const cx_args *a, const cx_select_policy *p)
{
    return p && p->covers(a->coll) && !cx_select_forced(a->coll) ? p : NULL;
}

/* The policy's choice for a call whose usual one is alg: a pick that
 * cannot serve this call leaves it to alg, untimed. */
static const cx_algorithm *policy_pick(const cx_select_policy *pol, cx_args *a, cx_comm *c,
                                       const cx_algorithm *alg,
                                       const cx_knob_params **params, int *err)
{
    const cx_knob_params *p = *params;
    const cx_algorithm *pick = pol->pick(a, c, alg, &p, err);
    if (!pick || pick == alg) {
        *params = p;
        return pick;
    }
    if (!cx_decide_serves(a, c, pick, p, err)) {
        a->tune = NULL;   /* not the candidate's time: not a trial */
        return *err ? NULL : alg;
    }
    *params = p;
    return pick;
}

/* A call decided before (issue 76): the same collective on the same
 * communicator with the same counts, predefined types and operation,
 * root, use of MPI_IN_PLACE and blocking mode as the last call, nothing
 * chosen by the caller, no policy (online tuning) looking at it, and
 * nothing since that bumps the selection's generation (the settings
 * check's verdict, CX_Algorithm_set, a policy set): every input of the
 * selection, the argument checks
 * and the fallback walk is the same, so is their answer. Kept only for an
 * answer that needed no fallback and looks at nothing else of the call
 * (a v or w collective's arrays, a segment's size: decide.c's cache
 * says). */
static int in_place(const cx_args *a)
{
    return (a->sbuf == MPI_IN_PLACE) | (a->rbuf == MPI_IN_PLACE) << 1;
}

/* The collectives some communicator keeps a decision for: a call of any
 * other (the MPI's own, nothing chosen) does not look. */
static atomic_uint memo_any;
_Static_assert(CX_COLL_COUNT <= 32, "memo_any: a bit per collective");

static int memo_same(const cx_call_memo *m, const cx_args *a)
{
    return m->valid && m->generation == cx_select_generation() &&
           m->scount == a->scount && m->rcount == a->rcount && m->stype == a->stype &&
           m->rtype == a->rtype && m->op == a->op && m->root == a->root &&
           m->nonblocking == a->nonblocking && m->in_place == in_place(a);
}

static int memo_hit(cx_args *a, const cx_algorithm **run)
{
    cx_comm *c = cx_comm_recent(a->comm);
    cx_select_comm *st;
    if (!c || !(st = *cx_comm_room(c, CX_ROOM_SELECT)) || !memo_same(&st->memo[a->coll], a))
        return 0;
    const cx_call_memo *m = &st->memo[a->coll];
    a->rank = c->rank;
    a->size = c->size;
    a->cc = c;
    a->pcomm = c->priv;
    a->params = m->params;
    *run = m->run;
    a->decided_gen = m->beyond.k ? 0 : m->generation;
    if (m->beyond.k)   /* counted per call, as the rules' own pick is */
        cx_rules_beyond_call(a, m->beyond.k, m->beyond.cl);
    return 1;
}

static int type_keyable(MPI_Datatype t)
{
    return t == (MPI_Datatype)0 || t == MPI_DATATYPE_NULL || cx_type_builtin(t);
}

/* Keeps a's decision d on c where it holds for every call with the same
 * arguments; the generation it holds under, 0 when not kept. */
static unsigned memo_keep(const cx_args *a, cx_comm *c, const cx_decision *d, int steady,
                          cx_rules_beyond beyond)
{
    cx_select_comm *st = *cx_comm_room(c, CX_ROOM_SELECT);
    if (!st)
        return 0;
    cx_call_memo *m = &st->memo[a->coll];
    m->valid = steady && !d->why && !a->tune && !a->scratch_arrays && !a->shared_out &&
               !(cx_coll_shape(a->coll) & (CX_SEND_V | CX_SEND_W | CX_RECV_V | CX_RECV_W)) &&
               type_keyable(a->stype) && type_keyable(a->rtype) &&
               (a->op == (MPI_Op)0 || a->op == MPI_OP_NULL || cx_op_builtin(a->op));
    if (!m->valid)
        return 0;
    atomic_fetch_or_explicit(&memo_any, 1u << a->coll, memory_order_relaxed);
    *m = (cx_call_memo){.valid = 1, .generation = cx_select_generation(),
                        .scount = a->scount, .rcount = a->rcount, .root = a->root,
                        .nonblocking = a->nonblocking, .in_place = in_place(a),
                        .stype = a->stype, .rtype = a->rtype, .op = a->op, .run = d->alg,
                        .params = d->params, .beyond = beyond};
    return beyond.k ? 0 : m->generation;
}

/* The collectives for which nothing selects anything and no policy is
 * set, so that every call of theirs goes to the MPI's own: the
 * selection's generation that verdict holds under, per collective (0:
 * none). A program that leaves a collective to its MPI (the interposer's
 * usual case) pays one compare for it. */
static atomic_uint native_since[CX_COLL_COUNT];

int cx_decided_native(const cx_args *a)
{
    return atomic_load_explicit(&native_since[a->coll], memory_order_relaxed) ==
               cx_select_generation() &&
           a->comm != MPI_COMM_NULL;
}

static int native_kept(cx_coll coll, unsigned gen, const cx_algorithm **run)
{
    if (!atomic_load_explicit(&policy, memory_order_acquire))   /* else asked each time */
        atomic_store_explicit(&native_since[coll], gen, memory_order_relaxed);
    *run = cx_native(coll);
    return MPI_SUCCESS;
}

int cx_decide_call(cx_args *a, const cx_algorithm *want, const cx_algorithm **run)
{
    unsigned gen = cx_select_generation();   /* (never 0) */
    a->decided_gen = 0;
    *run = NULL;
    /* A call decided before, first: what it rested on besides its
     * arguments (the settings' verdict, CX_Algorithm_set, a policy set)
     * bumps the generation the memo checks; a policy that looks at calls
     * is asked each time (policy_for). */
    const cx_select_policy *asks_policy = policy_of(a);
    if (!want && !asks_policy &&
        atomic_load_explicit(&memo_any, memory_order_relaxed) & 1u << a->coll && memo_hit(a, run))
        return MPI_SUCCESS;
    int err = MPI_SUCCESS, inter = 0;
    const char *what = cx_coll_mpi_name(a->coll);
    if (a->comm == MPI_COMM_NULL)
        return cx_error(a->comm, MPI_ERR_COMM, "%s: MPI_COMM_NULL", what);
    /* Settings that differ between ranks would run different schedules:
     * every rank fails the call instead (the ranks know it alike). */
    const char *differ = cx_settings_differ(a->coll);
    if (differ)
        return cx_error(a->comm, MPI_ERR_OTHER, "%s: settings differ between ranks: %s", what,
                        differ);
    if (cx_settings_native())
        return native_kept(a->coll, gen, run);
    /* Nothing selects anything for this collective (and no policy looks
     * at it): straight to MPI. */
    const cx_algorithm *alg = want ? want : cx_select_global(a->coll, &err);
    const cx_select_policy *tune = !want && !err ? policy_for(a, asks_policy) : NULL;
    if (alg && !alg->build && !tune) {
        if (alg == cx_native(a->coll) && !err)
            return native_kept(a->coll, gen, run);
        *run = alg;
        return MPI_SUCCESS;
    }
    if (!want && !tune && asks_policy && memo_hit(a, run))   /* one it does not cover */
        return MPI_SUCCESS;
    /* A communicator this thread called on last needs no MPI call to know */
    cx_comm *c = cx_comm_recent(a->comm);
    if (c) {
        a->rank = c->rank;
        a->size = c->size;
        inter = c->inter;
    } else {
        PMPI_Comm_rank(a->comm, &a->rank);
        PMPI_Comm_size(a->comm, &a->size);
        PMPI_Comm_test_inter(a->comm, &inter);
    }
    if (inter) {
        if (alg && (err = cx_fell_back(a, alg, cx_native(a->coll), 0,
                                       "does not serve intercommunicators")))
            return cx_error(a->comm, err, "%s: %s does not serve intercommunicators",
                            what, alg->name);
        *run = cx_native(a->coll);
        return MPI_SUCCESS;
    }
    if (err)
        return cx_error(a->comm, err, "%s: the environment (COLLX_<COLL>_ALGORITHM or "
                        "COLLX_RULES) names no usable algorithm; see the message above",
                        what);
    if ((err = cx_validate(a)))
        return cx_error(a->comm, err, "%s: invalid argument (root %d, p %d)", what,
                        a->root, a->size);
    if (!c && (err = cx_comm_get(a->comm, &c)))
        return cx_error(a->comm, err, "%s: cannot set up communicator state", what);
    a->cc = c;
    a->pcomm = c->priv;
    const cx_knob_params *params = NULL;
    cx_rules_beyond beyond = {NULL, NULL};
    if (!alg && !(alg = cx_select_rules(a, c, &params, &err, &beyond)))
        return cx_error(a->comm, err, "%s: cannot select an algorithm", what);
    if (tune && !(alg = policy_pick(tune, a, c, alg, &params, &err)))
        return cx_error(a->comm, err, "%s: online tuning failed", what);
    cx_decision d;
    int steady = 0;
    if ((err = cx_decide(a, c, alg, params, &d, &steady)))
        return cx_error(a->comm, err, d.why ? "%s: %s %s (COLLX_FALLBACK=error)"
                        : "%s: cannot check what %s needs", what, alg->name, d.why);
    a->params = d.params;   /* the families read per-call knobs through it */
    *run = d.alg;
    if (!want) {   /* a policy that looks at the call may answer otherwise next time */
        unsigned gen = memo_keep(a, c, &d, steady, beyond);
        a->decided_gen = tune ? 0 : gen;
    }
    return MPI_SUCCESS;
}
