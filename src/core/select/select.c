/* Which algorithm runs a call: explicit choice (CX_Algorithm_set) >
 * environment (COLLX_<COLL>_ALGORITHM, read once) > rules file (pruned once
 * per communicator to the rules its size and node layout can match, whose
 * picks then depend on msg_size alone: worked out once for every class of
 * sizes, and a call looks its class up, never walking the rules; a call
 * no rule holds gets the file's "beyond": its nearest rule, or native) >
 * "native". Every input is one all ranks hold alike, so every rank picks
 * the same. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include "rules.h"

static _Atomic(const cx_algorithm *) forced[CX_COLL_COUNT];
static atomic_uint generation = 1;   /* 0: a decision never kept (decided_gen) */

/* What the environment and the rules file decide, per collective: fixed
 * for the whole run, so worked out once. */
static const cx_algorithm *env_alg[CX_COLL_COUNT];
static int env_bad[CX_COLL_COUNT];
static const cx_algorithm *static_choice[CX_COLL_COUNT];  /* NULL: per comm */
static int static_err[CX_COLL_COUNT];
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

/* COLLX_<COLL>_ALGORITHM (the knob says what is wrong with a bad name). */
static void read_env(void)
{
    for (int c = 0; c < CX_COLL_COUNT; c++) {
        cx_knob k = CX_KNOB_ALGORITHM_OF(c);
        env_bad[c] = cx_knob_bad(k);
        env_alg[c] = cx_algorithm_find((cx_coll)c, cx_knob_str(k));
    }
    for (int c = 0; c < CX_COLL_COUNT; c++) {
        if (env_bad[c])
            static_err[c] = MPI_ERR_ARG;
        else if (env_alg[c])
            static_choice[c] = env_alg[c];
        else if (!cx_rules_mention((cx_coll)c))
            static_choice[c] = cx_native((cx_coll)c);
    }
}

int cx_select_forced(cx_coll c)
{
    if (atomic_load_explicit(&forced[c], memory_order_acquire))
        return 1;
    pthread_once(&env_once, read_env);
    return env_alg[c] || env_bad[c];
}

unsigned cx_select_generation(void)
{
    return atomic_load_explicit(&generation, memory_order_relaxed);
}

void cx_select_changed(void)
{
    atomic_fetch_add(&generation, 1);
}

const cx_algorithm *cx_select_global(cx_coll c, int *err)
{
    *err = MPI_SUCCESS;
    const cx_algorithm *f = atomic_load_explicit(&forced[c], memory_order_acquire);
    if (f)
        return f;
    pthread_once(&env_once, read_env);
    *err = static_err[c];
    return static_choice[c];
}

/* The rules' pick for a on c: its size's class, found from the last
 * call's (the common case: the same sizes again) or by bisection. */
static void release_select(void *state)
{
    cx_select_comm *st = state;
    for (int i = 0; i < CX_COLL_COUNT; i++) {
        free(st->sel[i].classes);
        for (int b = 0; b < CX_BUILTIN_RULES_COUNT; b++)
            free(st->builtin[b][i].classes);
    }
    free(st);
}

cx_select_comm *cx_select_of(cx_comm *c)
{
    void **slot = cx_comm_room(c, CX_ROOM_SELECT);
    if (!*slot && (*slot = calloc(1, sizeof(cx_select_comm))))
        cx_comm_room_release(CX_ROOM_SELECT, release_select);
    return *slot;
}

/* What set picks for a on a communicator of comm_size ranks (c's, unless
 * a node leaders' step): its size's class, found from the last call's
 * (the common case: the same sizes again) or by bisection; the classes
 * are worked out on the first call and kept in k. */
static const cx_rules_class *pick_class(const cx_rule_set *set, cx_rules_cache *k,
                                        const cx_args *a, cx_comm *c, int comm_size, int *err)
{
    if (k->classes && k->comm_size != comm_size) {
        free(k->classes);
        k->classes = NULL;
    }
    if (!k->classes) {
        int ppn = 0, *cands, beyond;
        if (set->need_nodes && !set->broken) {
            if ((*err = cx_comm_node_map(c)))
                return NULL;
            ppn = c->max_ranks_per_node;
        }
        k->ranks_per_node = ppn;
        k->comm_size = comm_size;
        k->last = 0;
        if (!(cands = cx_rules_prune(set, a->coll, comm_size, ppn, &beyond)) ||
            (k->n = cx_rules_classes(set, cands, beyond, &k->classes)) < 0) {
            free(cands);
            k->classes = NULL;
            *err = MPI_ERR_NO_MEM;
            return NULL;
        }
        free(cands);
    }
    if (k->n == 1)
        return k->classes;
    long long m = cx_rules_msg_size(a);
    const cx_rules_class *last = &k->classes[k->last];
    if (m >= last->lo && m <= last->hi)
        return last;
    int lo = 0, hi = k->n - 1;   /* the class with the largest lo <= m */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (k->classes[mid].lo <= m)
            lo = mid;
        else
            hi = mid - 1;
    }
    k->last = lo;
    return &k->classes[lo];
}

/* The classes of builtin set `set` (-1: the rules file) for coll on c,
 * in c's selection room; NULL (*err set) on no memory. */
static cx_rules_cache *cache_of(cx_comm *c, int set, cx_coll coll, int *err)
{
    cx_select_comm *st = cx_select_of(c);
    if (!st) {
        *err = MPI_ERR_NO_MEM;
        return NULL;
    }
    return set < 0 ? &st->sel[coll] : &st->builtin[set][coll];
}

static const cx_rules_class *rules_class(const cx_args *a, cx_comm *c, cx_rules_cache **kp,
                                         int *err)
{
    *kp = cache_of(c, -1, a->coll, err);
    return *kp ? pick_class(cx_rules_file(), *kp, a, c, c->size, err) : NULL;
}

const cx_algorithm *cx_select_builtin(int set, const cx_args *a, cx_comm *c, int comm_size,
                                      const cx_knob_params **params, int *err)
{
    *params = NULL;
    *err = MPI_SUCCESS;
    cx_rules_cache *k = cache_of(c, set, a->coll, err);
    const cx_rules_class *p =
        k ? pick_class(cx_rules_builtin(set), k, a, c, comm_size, err) : NULL;
    if (!p)
        return NULL;
    *params = p->params;
    return p->alg ? p->alg : cx_native(a->coll);
}

const cx_algorithm *cx_select(const cx_args *a, cx_comm *c, const cx_knob_params **params,
                              int *err)
{
    *params = NULL;
    const cx_algorithm *g = cx_select_global(a->coll, err);
    return g || *err ? g : cx_select_rules(a, c, params, err, NULL);
}

const cx_algorithm *cx_select_rules(const cx_args *a, cx_comm *c,
                                    const cx_knob_params **params, int *err,
                                    cx_rules_beyond *beyond)
{
    *params = NULL;
    if (beyond)
        *beyond = (cx_rules_beyond){NULL, NULL};
    cx_rules_cache *k;
    const cx_rules_class *p = rules_class(a, c, &k, err);
    if (!p)
        return NULL;
    if (p->beyond) {   /* said once, counted under COLLX_STATS */
        cx_rules_beyond_call(a, k, p);
        if (beyond)
            *beyond = (cx_rules_beyond){k, p};
    }
    *params = p->params;
    return p->alg ? p->alg : cx_native(a->coll);
}

const cx_algorithm *const *cx_select_candidates(const cx_args *a, cx_comm *c)
{
    int err;
    cx_rules_cache *k;
    const cx_rules_class *p = cx_select_global(a->coll, &err) || err
                                  ? NULL : rules_class(a, c, &k, &err);
    return p ? p->candidates : NULL;
}

/* ------------------------------------------------------------ public API */
int CX_Algorithm_set(const char *coll, const char *alg)
{
    int c = cx_coll_from_name(coll);
    if (c < 0) {
        fprintf(stderr, "collx: unknown collective '%s'; valid: ", coll ? coll : "(null)");
        for (int i = 0; i < CX_COLL_COUNT; i++)
            fprintf(stderr, "%s%s", i ? ", " : "", cx_coll_name((cx_coll)i));
        fputc('\n', stderr);
        return MPI_ERR_ARG;
    }
    const cx_algorithm *a = NULL;
    if (alg && *alg && !(a = cx_algorithm_find((cx_coll)c, alg))) {
        fprintf(stderr, "collx: '%s' is not %s %s algorithm; valid: ", alg,
                cx_article(cx_coll_name((cx_coll)c)), cx_coll_name((cx_coll)c));
        cx_algorithm_list(stderr, (cx_coll)c, ", ");
        fputc('\n', stderr);
        return MPI_ERR_ARG;
    }
    atomic_store_explicit(&forced[c], a, memory_order_release);
    atomic_fetch_add(&generation, 1);
    return MPI_SUCCESS;
}

const char *CX_Algorithm_get(const char *coll)
{
    int c = cx_coll_from_name(coll), err;
    if (c < 0)
        return NULL;
    const cx_algorithm *alg = cx_select_global((cx_coll)c, &err);
    if (err)
        return NULL;
    return alg ? alg->name : "native";   /* rules decide per call */
}
