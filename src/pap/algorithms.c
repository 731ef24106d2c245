/* The eight arrival-aware algorithms: the base LIN / LS / BNOM schedules on
 * the predicted order (S...), and the same with their receives started at
 * the edge by a background engine (BS...). Without CX_Pat_init, or before
 * the first exchange, they run their base algorithm in rotation order. */
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
static int background(const cx_args *a, cx_sched *s, cx_bg_kind kind)
{
    cx_build_fn base = cx_pap_bg_base(kind, a->coll);
    cx_pap *pap = cx_pap_get(a->comm);
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

static int scatter_slin(const cx_args *a, cx_sched *s)
{
    return sorted(a, s, cx_base_linear_seq);
}

static int sorted_binomial(const cx_args *a, cx_sched *s)
{
    return sorted(a, s, cx_build_binomial_rooted);
}

static int gather_sls(const cx_args *a, cx_sched *s)
{
    return sorted(a, s, cx_base_linear_sync);
}

static int scatter_bsln(const cx_args *a, cx_sched *s)
{
    return background(a, s, CX_BG_BSLN);
}

static int bg_binomial(const cx_args *a, cx_sched *s)
{
    return background(a, s, CX_BG_BSBN);
}

static int gather_bsls(const cx_args *a, cx_sched *s)
{
    return background(a, s, CX_BG_BSLS);
}

static const cx_bg_kind bg_bsln = CX_BG_BSLN, bg_bsbn = CX_BG_BSBN,
                        bg_bsls = CX_BG_BSLS;

const cx_algorithm cx_pap_algorithms[] = {
    CX_ALG(SCATTER, "slin", scatter_slin, 0,
     "linear, ranks served in predicted arrival order (PAP: CX_Pat_edge)"),
    CX_ALG(SCATTER, "sbn", sorted_binomial, 0,
     "binomial tree over the predicted arrival order, root shuffles blocks"),
    CX_ALG(SCATTER, "bsln", scatter_bsln, 0,
     "slin whose receives are posted at the edge (background progress)",
     .family_data = &bg_bsln),
    CX_ALG(SCATTER, "bsbn", bg_binomial, 0,
     "sbn whose non-root ranks start receiving/forwarding at the edge",
     .family_data = &bg_bsbn),
    CX_ALG(GATHER, "sls", gather_sls, 0,
     "linear synchronized, ranks asked in predicted arrival order"),
    CX_ALG(GATHER, "sbn", sorted_binomial, 0,
     "binomial tree over the predicted arrival order, root unshuffles blocks"),
    CX_ALG(GATHER, "bsls", gather_bsls, 0,
     "sls whose root asks and receives from the edge on (background progress)",
     .family_data = &bg_bsls),
    CX_ALG(GATHER, "bsbn", bg_binomial, 0,
     "sbn whose receives (inner ranks and root) start at the edge",
     .family_data = &bg_bsbn),
    CX_ALG_END};
