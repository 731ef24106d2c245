/* What a set of rules picks for a communicator (select.c caches it):
 * the rules its size and node layout can match (cx_rules_prune), then one
 * pick per class of message sizes (cx_rules_classes).
 *
 * A call that no rule holds gets what the file's "beyond" says (issue 52):
 * "native", or "nearest" (the default): among the collective's rules whose
 * ranks_per_node range holds the call's (or that have none), the nearest
 * to the call picks, communicator size first (log2 distance to its
 * comm_size range), then message size (log2 distance to its msg_size
 * range), the file's order between equals. Distances are compared as exact
 * ratios, so every rank, which has the same file and the same call, picks
 * the same rule. */
#include <limits.h>
#include <stdlib.h>
#include "rules.h"

typedef unsigned long long ull;

/* a/b against c/d (b or d 0: infinite), exactly, without overflow (as
 * Euclid: the integer parts, then the reciprocals of what is left). */
static int cmp_ratio(ull a, ull b, ull c, ull d)
{
    for (;;) {
        if (!b || !d)
            return (!b) - (!d);
        ull qa = a / b, qc = c / d;
        if (qa != qc)
            return qa < qc ? -1 : 1;
        ull ra = a - qa * b, rc = c - qc * d;
        if (!ra || !rc)
            return (ra != 0) - (rc != 0);
        /* ra/b against rc/d is d/rc against b/ra */
        a = d, c = b, b = rc, d = ra;
    }
}

/* How far v lies from r, as the ratio *num / *den >= 1 (1/1 inside). */
static void distance(const cx_range *r, long long v, ull *num, ull *den)
{
    *num = *den = 1;
    if (v < r->lo)
        *num = (ull)r->lo, *den = (ull)v;
    else if (v > r->hi)
        *num = (ull)v, *den = (ull)r->hi;
}

static int node_fits(const cx_rule_set *set, const cx_rule *r, int ranks_per_node)
{
    return !set->need_nodes || cx_range_holds(&r->ranks_per_node, ranks_per_node);
}

/* Under "nearest", the rules of c (node layout fitting) nearest in
 * communicator size, all of those at the least distance, into cands. */
static int nearest_comm(const cx_rule_set *set, cx_coll c, int comm_size, int ranks_per_node,
                        int *cands)
{
    const cx_rule *rules = set->rules;
    ull bn = 0, bd = 0;   /* the least distance so far (0/0: none yet) */
    int n = 0;
    for (int i = 0; i < set->n; i++) {
        ull num, den;
        if (rules[i].coll != c || !node_fits(set, &rules[i], ranks_per_node))
            continue;
        distance(&rules[i].comm_size, comm_size, &num, &den);
        int cmp = bn ? cmp_ratio(num, den, bn, bd) : -1;
        if (cmp < 0)
            n = 0, bn = num, bd = den;
        if (cmp <= 0)
            cands[n++] = i;
    }
    return n;
}

int *cx_rules_prune(const cx_rule_set *set, cx_coll c, int comm_size, int ranks_per_node,
                    int *beyond)
{
    const cx_rule *rules = set->rules;
    int n = 0;
    int *cands = malloc(sizeof(int) * (size_t)(set->n + 1));
    if (!cands)
        return NULL;
    for (int i = 0; i < set->n; i++)
        if (rules[i].coll == c && cx_range_holds(&rules[i].comm_size, comm_size) &&
            node_fits(set, &rules[i], ranks_per_node))
            cands[n++] = i;
    *beyond = n == 0;
    if (!n && !set->beyond_native)
        n = nearest_comm(set, c, comm_size, ranks_per_node, cands);
    cands[n] = -1;
    return cands;
}

/* Collectives whose counts every rank is given (allgatherv's and
 * reduce_scatter's recvcounts): the rules look at their mean block. */
static int mean_sized(cx_coll c)
{
    return c == CX_COLL_ALLGATHERV || c == CX_COLL_REDUCE_SCATTER;
}

int cx_rules_sized(cx_coll c)
{
    return cx_coll_sized(c) || mean_sized(c);
}

long long cx_rules_msg_size_of(const cx_args *a, int rank)
{
    unsigned shape = cx_coll_shape(a->coll);
    if (mean_sized(a->coll))
        return a->size > 0 && a->rcounts
                   ? (long long)(cx_counts_bytes(a->rcounts, a->size, a->rtype) / a->size) : 0;
    if (shape & CX_REDUCTION || !(shape & CX_SEND_ONE))
        return cx_type_bytes(a->rcount, a->rtype);   /* bcast, reductions */
    if ((shape & CX_SEND_AT_ROOT) && rank != a->root)
        return cx_type_bytes(a->rcount, a->rtype);   /* scatter leaves */
    if (a->sbuf == MPI_IN_PLACE)
        return cx_type_bytes(a->rcount, a->rtype);
    return cx_type_bytes(a->scount, a->stype);
}

/* The size every rank of the call agrees on (signatures match): bytes of
 * one rank's block, of a reduction's vector, or of the bcast buffer. */
long long cx_rules_msg_size(const cx_args *a)
{
    return cx_rules_msg_size_of(a, a->rank);
}

static int cmp_ll(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return (a > b) - (a < b);
}

/* The classes being made: each new one ends the one before, or extends it
 * when the pick is the same. */
typedef struct {
    cx_rules_class *cl;
    int k;
} classes;

static void add(classes *out, long long lo, const cx_rule *pick, int beyond)
{
    cx_rules_class c = {.lo = lo, .hi = LLONG_MAX, .rule = pick ? pick->index : -1,
                        .beyond = beyond};
    if (pick) {
        c.alg = pick->alg;
        c.params = pick->params;
        c.candidates = pick->candidates;
    }
    cx_rules_class *last = out->k ? &out->cl[out->k - 1] : NULL;
    if (last && last->rule == c.rule && last->alg == c.alg && last->beyond == c.beyond)
        return;   /* same pick: the class before grows */
    if (last)
        last->hi = lo - 1;
    out->cl[out->k++] = c;
}

/* Message sizes lo..hi that no candidate holds: the nearest candidate below
 * (the largest msg_size max) and above (the smallest min) share them; the
 * one above from the first size m where min/m < m/max (equal: the file's
 * order decides). */
static void gap(classes *out, const cx_rule *rules, const int *cands, long long lo,
                long long hi)
{
    const cx_rule *below = NULL, *above = NULL;
    for (int i = 0; cands[i] >= 0; i++) {
        const cx_rule *r = &rules[cands[i]];
        if (r->msg_size.hi < lo && (!below || r->msg_size.hi > below->msg_size.hi))
            below = r;
        if (r->msg_size.lo > hi && (!above || r->msg_size.lo < above->msg_size.lo))
            above = r;
    }
    if (!below || !above) {   /* not both: a gap at either end */
        add(out, lo, below ? below : above, 1);
        return;
    }
    long long from = lo, to = hi;   /* the first size above wins: in from..to+1 */
    while (from <= to) {
        long long m = from + (to - from) / 2;
        int cmp = cmp_ratio((ull)above->msg_size.lo, (ull)m, (ull)m, (ull)below->msg_size.hi);
        if (cmp < 0 || (cmp == 0 && above->index < below->index))
            to = m - 1;
        else
            from = m + 1;
    }
    if (from > lo)
        add(out, lo, below, 1);
    if (from <= hi)
        add(out, from, above, 1);
}

/* The message sizes split where a candidate's msg_size range starts or
 * ends: inside one piece every candidate holds for all sizes or none, so
 * the first that holds for its lowest size picks; a piece none holds is a
 * gap (native, or its nearest). beyond: the candidates are the nearest
 * communicator sizes' (every class is beyond the rules). */
int cx_rules_classes(const cx_rule_set *set, const int *cands, int beyond,
                     cx_rules_class **out)
{
    int n = 0, nb = 1;
    const cx_rule *rules = set->rules;
    while (cands[n] >= 0)
        n++;
    long long *b = malloc(sizeof *b * (size_t)(2 * n + 1));
    classes made = {malloc(sizeof *made.cl * (size_t)(4 * n + 2)), 0};
    if (!b || !made.cl) {
        free(b);
        free(made.cl);
        return -1;
    }
    b[0] = 0;
    for (int i = 0; i < n; i++) {
        const cx_range *r = &rules[cands[i]].msg_size;
        if (r->lo > 0)
            b[nb++] = r->lo;
        if (r->hi < LLONG_MAX)
            b[nb++] = r->hi + 1;
    }
    qsort(b, (size_t)nb, sizeof *b, cmp_ll);
    for (int j = 0, next; j < nb; j = next) {
        for (next = j + 1; next < nb && b[next] == b[j];)
            next++;
        long long hi = next < nb ? b[next] - 1 : LLONG_MAX;
        const cx_rule *pick = NULL;
        for (int i = 0; i < n && !pick; i++)
            if (cx_range_holds(&rules[cands[i]].msg_size, b[j]))
                pick = &rules[cands[i]];
        if (pick || !n || set->beyond_native)
            add(&made, b[j], pick, beyond || !pick);
        else
            gap(&made, rules, cands, b[j], hi);
    }
    free(b);
    *out = made.cl;
    return made.k;
}
