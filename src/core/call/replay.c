/* Blocking calls whose arguments repeat run the schedule the last such
 * call built (issue 61). Building is 0.1-0.3 us of a small call's
 * 1 us on two cores (recursive doubling's allreduce: a copy, a message
 * pair, a reduction; Bruck's allgather: more), and an application's loop
 * calls the same collective with the same buffers again and again. The
 * communicator keeps one schedule per collective; the next blocking call
 * of that collective with the same algorithm, rule parameters, buffers,
 * counts, types, operation and root runs it again with a new tag, as a
 * persistent call's start replays its plan (cx_sched_plan_start).
 *
 * Only what is sure to build the same schedule again is kept: algorithms
 * of a family whose schedules replay (cx_family.replays: nothing read
 * but the call's arguments and the communicator's fixed layout) and that
 * do not take turns (hier: its calls share the node's slots);
 * predefined types and operations (a freed derived type's or operation's
 * handle comes back for another one); no v or w collective (the contents
 * of its arrays may change between calls with the same pointers); and a
 * schedule with no step that keeps state (cx_sched_replayable). A kept
 * schedule runs exactly the messages, copies and reductions the build
 * would add, so a rank replays or builds on its own: the ranks need not
 * agree. */
#include <stdlib.h>
#include "replay.h"
#include "../select/select.h"

typedef cx_kept kept;

typedef struct kept_comm {
    kept k[CX_COLL_COUNT];
} kept_comm;

static void release(void *state)
{
    kept_comm *kc = state;
    for (int i = 0; i < CX_COLL_COUNT; i++)
        if (kc->k[i].s) {
            cx_sched_free(kc->k[i].s);
            free(kc->k[i].s);
        }
    free(kc);
}

static kept_comm *of(cx_comm *c, int make)
{
    void **slot = cx_comm_room(c, CX_ROOM_CALL);
    if (!*slot && make && (*slot = calloc(1, sizeof(kept_comm))))
        cx_comm_room_release(CX_ROOM_CALL, release);
    return *slot;
}

/* The collectives some communicator keeps a decided schedule for: a call
 * of any other (the MPI's own, typically) does not look. */
static atomic_uint decided_any;
_Static_assert(CX_COLL_COUNT <= 32, "decided_any: a bit per collective");

/* The same arguments (the decision aside). */
static inline int same_args(const kept *k, const cx_args *a)
{
    return k->sbuf == a->sbuf && k->rbuf == a->rbuf && k->scount == a->scount &&
           k->rcount == a->rcount && k->root == a->root && k->stype == a->stype &&
           k->rtype == a->rtype && k->op == a->op && k->order == a->order;
}

static int same(const kept *k, const cx_args *a)
{
    return k->alg == a->alg && k->params == a->params && same_args(k, a);
}

/* A type argument a schedule built from it can keep: predefined, null
 * or zero (not given: CX_<Name> leaves the fields a collective has not). */
static int type_kept(MPI_Datatype t)
{
    return t == (MPI_Datatype)0 || t == MPI_DATATYPE_NULL || cx_type_builtin(t);
}

/* Whether call a's arguments say all there is to its schedule. */
static int keyable(const cx_args *a)
{
    if (a->nonblocking || a->shared_out || a->scratch_arrays ||
        (cx_coll_shape(a->coll) & (CX_SEND_V | CX_SEND_W | CX_RECV_V | CX_RECV_W)))
        return 0;
    return type_kept(a->stype) && type_kept(a->rtype) &&
           (a->op == (MPI_Op)0 || cx_op_builtin(a->op));
}

static int family_replays(const cx_algorithm *alg)
{
    int f = cx_algorithm_family(alg);
    return f >= 0 && cx_families[f]->replays && !cx_families[f]->takes_turns;
}

/* k := call a's key and decision, with schedule s (NULL: the decision
 * alone); the collective's bit set where the decision holds. */
static void keep_key(kept *k, const cx_args *a, cx_sched *s)
{
    if (a->decided_gen &&
        !(atomic_load_explicit(&decided_any, memory_order_relaxed) & 1u << a->coll))
        atomic_fetch_or_explicit(&decided_any, 1u << a->coll, memory_order_relaxed);
    *k = (kept){.s = s, .gen = a->decided_gen, .index = cx_algorithm_index(a->alg),
                .alg = a->alg, .params = a->params, .order = a->order, .sbuf = a->sbuf,
                .rbuf = a->rbuf, .scount = a->scount, .rcount = a->rcount, .root = a->root,
                .stype = a->stype, .rtype = a->rtype, .op = a->op};
}

cx_kept *cx_replay_decided(const cx_args *a, cx_comm **on)
{
    if (!(atomic_load_explicit(&decided_any, memory_order_relaxed) & 1u << a->coll))
        return NULL;
    cx_comm *c = cx_comm_recent(a->comm);
    kept_comm *kc;
    if (!c || !(kc = *cx_comm_room(c, CX_ROOM_CALL)))
        return NULL;
    kept *k = &kc->k[a->coll];
    /* (the generation is never 0: a decision not kept never matches;
     * a->shared_out and a->scratch_arrays are not looked at: cx_dispatch's
     * calls have no shared_out (CX_<Name>_shared's go by cx_dispatch_as),
     * and scratch arrays are a v or w collective's, which keeps none) */
    if (k->gen != cx_select_generation() || !same_args(k, a))
        return NULL;
    *on = c;
    return k;
}

void cx_replay_decision(cx_args *a, const cx_kept *k, cx_comm *c)
{
    a->alg = k->alg;
    a->params = k->params;
    a->decided_gen = k->gen;
    a->cc = c;
    a->pcomm = c->priv;
    a->rank = c->rank;
    a->size = c->size;
}

/* Keeps a's decision (a->decided_gen) on c with no schedule, where no
 * schedule is kept for the collective: the next call with the same
 * arguments is decided without the selection, and builds. */
static void note(kept_comm *kc, const cx_args *a)
{
    kept *k = &kc->k[a->coll];
    if (k->s || (k->gen == a->decided_gen && k->alg == a->alg && k->params == a->params &&
                 same_args(k, a)))
        return;   /* a schedule's, or this very decision already */
    if (keyable(a))
        keep_key(k, a, NULL);
}

void cx_replay_note(cx_comm *c, const cx_args *a)
{
    kept_comm *kc;
    if (a->decided_gen && (kc = of(c, 1)))
        note(kc, a);
}

cx_sched *cx_replay_take(cx_comm *c, const cx_args *a)
{
    kept_comm *kc = of(c, 0);
    if (!kc || !kc->k[a->coll].s || !same(&kc->k[a->coll], a))
        return NULL;
    cx_sched *s = kc->k[a->coll].s;
    kc->k[a->coll].s = NULL;   /* a nested call on c finds none */
    return s;
}

void cx_replay_keep(cx_comm *c, const cx_args *a, cx_sched *s, int replayed)
{
    kept_comm *kc;
    if (replayed && !s->err && !(kc = of(c, 0))->k[a->coll].s) {
        kc->k[a->coll].s = s;   /* its key is still a's */
        kc->k[a->coll].gen = a->decided_gen;
        return;
    }
    if (!s->nops || !keyable(a) || !family_replays(a->alg) || !cx_sched_replayable(s) ||
        !(kc = of(c, 1))) {
        cx_sched_give_spare(s);
        cx_replay_note(c, a);   /* the decision, at least */
        return;
    }
    kept *k = &kc->k[a->coll];
    if (k->s)   /* a nested call's, or an older one's */
        cx_sched_give_spare(k->s);
    keep_key(k, a, s);
}
