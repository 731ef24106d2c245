/* Early start of a registered background collective. The call's schedule is
 * built by the same base builder the call would use; then
 *   - copies that read the caller's send data (gather) move to the start of
 *     the last round, so they run at the call, before its sends;
 *   - the leading rounds that touch neither the send data nor the root's
 *     scatter data ("safe" rounds) are started now; the rest waits for the
 *     call, which adopts the started schedule as its own.
 * While running early the schedule is cut to its safe rounds (nrounds), so
 * cx_sched_progress stops at the boundary; the call restores it. */
#include <string.h>
#include "pap.h"

static int is_gather(cx_coll c)
{
    return c == CX_COLL_GATHER || c == CX_COLL_GATHERV;
}

static int begin_of(const cx_sched *s, int r)
{
    return r ? s->round_end[r - 1] : 0;
}

/* Moves op i (round r0) to the first slot of the last round. */
static void move_to_last_round(cx_sched *s, int i, int r0)
{
    int last = s->nrounds - 1, b = begin_of(s, last);
    if (r0 == last)
        return;
    cx_op op = s->ops[i];
    memmove(&s->ops[i], &s->ops[i + 1], sizeof op * (size_t)(b - 1 - i));
    s->ops[b - 1] = op;
    for (int r = r0; r < last; r++)
        s->round_end[r]--;
}

static int reads(const cx_op *op, const void *buf)
{
    return (op->kind == CX_OP_SEND || op->kind == CX_OP_COPY) && op->src == buf;
}

/* Number of leading rounds that may run before the call. */
static int safe_rounds(cx_sched *s, const cx_args *a)
{
    if (!is_gather(a->coll))
        return a->rank == a->root ? 0 : s->nrounds;  /* the root sends at its call */
    /* (a flag, not a NULL pointer: the send buffer may be MPI_BOTTOM) */
    int have = !cx_own_in_place(a);
    const void *mine = a->sbuf;
    for (int r = 0; r < s->nrounds; r++)
        for (int i = begin_of(s, r); have && i < s->round_end[r]; i++)
            if (s->ops[i].kind == CX_OP_COPY && s->ops[i].src == mine) {
                move_to_last_round(s, i, r);
                break;   /* at most one own copy per schedule */
            }
    for (int r = 0; r < s->nrounds; r++)
        for (int i = begin_of(s, r); i < s->round_end[r]; i++)
            if (have && reads(&s->ops[i], mine))
                return r;
    return s->nrounds;
}

/* Linear-sync root rounds depend on each other only for flow control: the
 * eager engine cannot advance rounds while the caller computes, so it
 * posts all of them at once (every token and receive at the edge). */
static int flatten(cx_sched *s, int safe)
{
    if (safe <= 1)
        return safe;
    memmove(s->round_end, s->round_end + safe - 1,
            sizeof *s->round_end * (size_t)(s->nrounds - safe + 1));
    s->nrounds -= safe - 1;
    return 1;
}

int cx_pap_early_needs_order(cx_pap *pap)
{
    if (!pap->has_reg)
        return 0;
    cx_args a = pap->reg;
    const cx_pap_alg *k = cx_pap_alg_of(cx_pap_reg_alg(pap));
    cx_bg_kind kind = k ? k->bg : CX_BG_NONE;
    return kind == CX_BG_BSBN || (kind != CX_BG_NONE && a.root == pap->rank);
}

int cx_pap_early_start(cx_pap *pap, int current_order)
{
    if (!pap->has_reg || pap->early_live)
        return MPI_SUCCESS;
    cx_args a = pap->reg;
    const cx_pap_alg *k = cx_pap_alg_of(cx_pap_reg_alg(pap));
    cx_bg_kind kind = k ? k->bg : CX_BG_NONE;
    if (kind == CX_BG_NONE)
        return MPI_SUCCESS;
    /* Eager: bsln/bsls start only order-independent parts; bsbn uses the
     * order known at this edge (it must pick parents now). */
    a.order = current_order ? cx_pap_order(pap, a.root, 0)
              : kind == CX_BG_BSBN ? cx_pap_order(pap, a.root, 1) : NULL;
    a.pcomm = pap->comm;
    cx_sched *s = &pap->early;
    cx_sched_init_for(s, pap->comm, cx_pap_tag(pap->seq), a.coll);
    int err = k->base(&a, s);
    if (!err)
        err = cx_sched_barrier(s);
    int safe = err ? 0 : safe_rounds(s, &a);
    if (!err && safe && kind == CX_BG_BSLS && a.rank == a.root && !current_order)
        safe = flatten(s, safe);
    if (err || safe == 0) {
        cx_sched_free(s);
        return err;
    }
    pap->early_rounds = s->nrounds;
    pap->early_safe = safe;
    cx_sched_begin(s);
    s->nrounds = safe;
    pap->early_live = 1;
    pap->n_early++;
    return MPI_SUCCESS;
}

void cx_pap_early_progress(cx_pap *pap, int *done)
{
    *done = 1;
    if (pap->early_live && cx_sched_progress(&pap->early, done))
        *done = 1;
}

static int same_call(const cx_args *a, const cx_args *r)
{
    return a->coll == r->coll && a->sbuf == r->sbuf && a->scount == r->scount &&
           a->stype == r->stype && a->rbuf == r->rbuf && a->rcount == r->rcount &&
           a->rtype == r->rtype && a->root == r->root;
}

int cx_pap_early_adopt(cx_pap *pap, const cx_args *a, cx_sched *s, int *adopted)
{
    *adopted = 0;
    if (!pap->early_live)
        return MPI_SUCCESS;
    if (!same_call(a, &pap->reg))
        return MPI_ERR_ARG;
    cx_sched *e = &pap->early;
    if (e->cur >= e->nrounds) {     /* early part done: resume after it */
        e->cur = e->nrounds - 1;
        e->nreqs = 0;
    }
    e->nrounds = pap->early_rounds;
    *s = *e;                        /* started: the executor continues it */
    memset(e, 0, sizeof *e);
    pap->early_live = 0;
    pap->n_adopted++;
    *adopted = 1;
    return MPI_SUCCESS;
}

/* The registered call did not come: cancel what the edge posted. */
void cx_pap_early_drop(cx_pap *pap)
{
    if (!pap->early_live)
        return;
    cx_sched_free(&pap->early);   /* cancels what is still posted */
    pap->early_live = 0;
}
