/* Calls beyond the rules' ranges (issue 52): what they run is decided once
 * per communicator and collective (rules_pick.c, cached by select.c);
 * here each is shown to the watcher (COLLX_STATS counts them) and the
 * first is said under COLLX_VERBOSE, once per (collective, communicator
 * size), by the communicator's rank 0:
 *
 *   collx: MPI_Allreduce p=64 (8 per node) is beyond the rules' communicator
 *   sizes (2..48): rules[3] (the nearest, p=48) picks rabenseifner for 8000 B */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules.h"

static _Atomic(cx_beyond_watch) watch;

void cx_rules_watch_beyond(cx_beyond_watch w)
{
    atomic_store(&watch, w);
}

/* Whether (coll, p) is new to this process: the line is said once each. */
static int first_time(cx_coll coll, int p)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static long long *seen;
    static int n, cap;
    long long key = (long long)coll << 32 | (unsigned)p;
    int fresh = 1;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n && fresh; i++)
        fresh = seen[i] != key;
    if (fresh && n == cap) {
        long long *more = realloc(seen, sizeof *seen * (size_t)(cap ? 2 * cap : 16));
        if (more)
            seen = more, cap = cap ? 2 * cap : 16;
    }
    if (fresh && n < cap)
        seen[n++] = key;
    pthread_mutex_unlock(&lock);
    return fresh;
}

static int by_lo(const void *x, const void *y)
{
    const cx_range *a = x, *b = y;
    return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Ranges as "2..16, 32..48, 64..": sorted, overlapping or touching ones
 * joined (r is reordered). */
static void ranges_text(cx_range *r, int n, char *buf, size_t len)
{
    qsort(r, (size_t)n, sizeof *r, by_lo);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        cx_range u = r[i];
        while (i + 1 < n && (u.hi == LLONG_MAX || r[i + 1].lo <= u.hi + 1)) {
            if (r[++i].hi > u.hi)
                u.hi = r[i].hi;
        }
        int k = u.lo == u.hi ? snprintf(buf + used, len - used, "%s%lld", used ? ", " : "", u.lo)
                : u.hi == LLONG_MAX ? snprintf(buf + used, len - used, "%s%lld..",
                                               used ? ", " : "", u.lo)
                : snprintf(buf + used, len - used, "%s%lld..%lld", used ? ", " : "", u.lo, u.hi);
        used += k > 0 ? (size_t)k : 0;
    }
}

/* What the call is beyond, in words: the ranks per node, the communicator
 * sizes or the message sizes of the rules that could hold it. */
static void what_beyond(const cx_args *a, int ppn, char *buf, size_t len)
{
    int n = 0, fit = 0, holds = 0;
    const cx_rule_set *file = cx_rules_file();
    const cx_rule *rules = file->rules;
    int nr = file->n;
    cx_range *r = malloc(sizeof *r * (size_t)(nr + 1));
    char list[200] = "?";
    for (int i = 0; r && i < nr; i++) {
        const cx_rule *x = &rules[i];
        if (x->coll != a->coll)
            continue;
        int fits = !cx_rules_need_nodes() || cx_range_holds(&x->ranks_per_node, ppn);
        fit += fits;
        holds += fits && cx_range_holds(&x->comm_size, a->size);
        r[n++] = x->ranks_per_node;
    }
    if (r && !fit) {
        ranges_text(r, n, list, sizeof list);
        snprintf(buf, len, "the rules' ranks per node (%s)", list);
    } else if (r) {
        n = 0;
        for (int i = 0; i < nr; i++) {
            const cx_rule *x = &rules[i];
            if (x->coll == a->coll && (!cx_rules_need_nodes() ||
                                       cx_range_holds(&x->ranks_per_node, ppn)) &&
                (!holds || cx_range_holds(&x->comm_size, a->size)))
                r[n++] = holds ? x->msg_size : x->comm_size;
        }
        ranges_text(r, n, list, sizeof list);
        if (holds)
            snprintf(buf, len, "the rules' message sizes at p=%d (%s)", a->size, list);
        else
            snprintf(buf, len, "the rules' communicator sizes (%s)", list);
    }
    free(r);
}

/* The value of r nearest to v ("p=48" of comm_size 2..48 for 64). */
static long long nearest_in(const cx_range *r, long long v)
{
    return v < r->lo ? r->lo : v > r->hi ? r->hi : v;
}

/* What runs, in words: the rule that picks (from where), or native. */
static void what_runs(const cx_args *a, const cx_rules_class *cl, long long m, char *buf,
                      size_t len)
{
    int sized = cx_rules_sized(a->coll);
    const cx_rule_set *file = cx_rules_file();
    const cx_rule *rules = file->rules, *r = NULL;
    int nr = file->n;
    for (int i = 0; i < nr && !r; i++)
        if (rules[i].index == cl->rule)
            r = &rules[i];
    if (!r) {
        snprintf(buf, len, "native runs (%s)", !file->beyond_native
                 ? "no rule for its ranks per node" : "\"beyond\": \"native\"");
        return;
    }
    char from[80] = "", size[40] = "";
    int far_p = !cx_range_holds(&r->comm_size, a->size);
    int far_m = sized && !cx_range_holds(&r->msg_size, m);
    if (far_p)
        snprintf(from, sizeof from, ", p=%lld", nearest_in(&r->comm_size, a->size));
    if (far_m)
        snprintf(from + strlen(from), sizeof from - strlen(from), ", %lld B",
                 nearest_in(&r->msg_size, m));
    if (sized)
        snprintf(size, sizeof size, " for %lld B", m);
    snprintf(buf, len, "rules[%d] (the nearest%s) picks %s%s", r->index, from,
             cl->alg ? cl->alg->name : "native", size);
}

static void say(const cx_args *a, int ppn, const cx_rules_class *cl)
{
    char nodes[40] = "", beyond[300] = "", runs[300] = "", with[48] = "";
    long long m = cx_rules_sized(a->coll) ? cx_rules_msg_size(a) : -1;
    if (cx_rules_need_nodes())
        snprintf(nodes, sizeof nodes, " (%d per node)", ppn);
    what_beyond(a, ppn, beyond, sizeof beyond);
    if (m >= 0 && strstr(beyond, "message sizes"))
        snprintf(with, sizeof with, " with %lld B", m);
    what_runs(a, cl, m, runs, sizeof runs);
    cx_say("%s p=%d%s%s is beyond %s: %s", cx_coll_mpi_name(a->coll), a->size, nodes, with,
           beyond, runs);
}

void cx_rules_beyond_call(const cx_args *a, cx_rules_cache *k, const cx_rules_class *cl)
{
    cx_beyond_watch w = atomic_load_explicit(&watch, memory_order_acquire);
    if (w)
        w(a, cl->rule, cl->alg ? cl->alg : cx_native(a->coll));
    if (k->said)
        return;
    k->said = 1;
    if (cx_verbose() > 0 && a->rank == 0 && first_time(a->coll, a->size))
        say(a, k->ranks_per_node, cl);
}
