/* The builder of the eight arrival-aware algorithms (register.c): the base
 * LIN / LS / BNOM schedules on the predicted order (S...), and the same
 * with their receives started at the edge by a background engine (BS...).
 * Without CX_Pat_init, or before the first exchange, they run their base
 * algorithm in rotation order. */
#include "pap.h"

/* At the call: the arrival is recorded against this iteration's
 * prediction and the state taken back from the progress thread. */
static void arrived(cx_pap *pap)
{
    cx_pap_record_arrival(pap);
    cx_pap_sync(pap);
}

/* Whether this rank's part of the schedule depends on the order: the
 * root's in the linear trees (whom to serve first), everyone's in the
 * binomial trees (parents and children). A linear leaf just receives, or
 * sends when asked: it must not wait for the exchange, i.e. for the last
 * rank's edge, to do so. */
static int needs_order(const cx_args *a, cx_build_fn base)
{
    return base == cx_build_binomial_rooted || a->rank == a->root;
}

/* Completes the exchange and returns this iteration's order, when needed. */
static int order_for(cx_pap *pap, const cx_args *a, cx_build_fn base, int stale,
                     const int **order)
{
    *order = NULL;
    if (!needs_order(a, base))
        return MPI_SUCCESS;
    int err = cx_pap_complete(pap);
    if (!err)
        *order = cx_pap_order(pap, a->root, stale);
    return err;
}

/* Sorted: base builder with the order of this iteration's predictions. */
static int sorted(const cx_args *a, cx_sched *s, cx_build_fn base)
{
    cx_args b = *a;
    cx_pap *pap = cx_pap_get(a->comm);
    if (pap) {
        arrived(pap);
        int err = order_for(pap, a, base, 0, &b.order);
        if (err)
            return err;
    }
    return base(&b, s);
}

/* Round hook of a BSLN root that started before the exchange completed:
 * the first time the exchange is found complete, the rounds not started yet
 * are sorted by predicted arrival. */
static void sort_when_known(cx_sched *s, int r)
{
    cx_pap *pap = s->hook_ctx;
    int done = 0;
    if (cx_pap_test(pap, &done) != MPI_SUCCESS) {
        s->before_round = NULL;   /* no order: the rest stays in rank order */
        return;
    }
    if (!done)
        return;   /* not yet: look again before the next round */
    s->before_round = NULL;
    cx_sched_sort_rounds(s, r, pap->cur);
}

/* Background: adopts the schedule started at the edge, or builds the same
 * one now. Both run on the PAP communicator with the PAP tag sequence, so
 * a rank that started early and one that did not still match. */
static int background(const cx_args *a, cx_sched *s, const cx_pap_alg *k)
{
    cx_bg_kind kind = k->bg;
    cx_build_fn base = k->base;
    /* A persistent start runs the base tree: arrival patterns are numbered
     * in call order on the communicator, and MPI-4 lets persistent starts
     * come in any order (persist.c). */
    cx_pap *pap = a->persistent ? NULL : cx_pap_get(a->comm);
    if (!pap)
        return base(a, s);
    arrived(pap);
    int adopted = 0, err = cx_pap_early_adopt(pap, a, s, &adopted);
    if (err || adopted) {
        pap->seq++;
        return err;
    }
    s->comm = pap->comm;
    s->tag = cx_pap_tag(pap->seq++);
    cx_args b = *a;
    b.pcomm = pap->comm;
    if (kind == CX_BG_BSLN && a->rank == a->root && !a->nonblocking) {
        /* The leaves posted their receives at their edges: rather than wait
         * for the last edge (the exchange), serve them in rank order now
         * and in predicted order once the exchange is in. Blocking calls
         * only: the hook uses the PAP state, which must outlive it, and the
         * progress thread stays stopped until the call returns. */
        int done = 0;
        if ((err = cx_pap_test(pap, &done)))
            return err;
        if (!done) {
            s->before_round = sort_when_known;
            s->hook_ctx = pap;
            return base(&b, s);
        }
    }
    /* bsbn under the eager engine picked its tree at the edge (see early.c) */
    int stale = kind == CX_BG_BSBN && pap->engine == CX_PAP_EAGER;
    if ((err = order_for(pap, a, base, stale, &b.order)))
        return err;
    return base(&b, s);
}

int cx_pap_build(const cx_args *a, cx_sched *s)
{
    const cx_pap_alg *k = a->alg->family_data;
    return k->bg == CX_BG_NONE ? sorted(a, s, k->base) : background(a, s, k);
}
