/* Which algorithm runs a call: explicit choice (CX_Algorithm_set) >
 * environment (COLLX_<COLL>_ALGORITHM, read once) > rules file (pruned once
 * per communicator to the rules its size and node layout can match; then
 * only msg_size matters, and the pick for a class of sizes is kept, so the
 * candidates are walked once per class, not per call) > "native". Every
 * input is one all ranks hold alike, so every rank picks the same. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include "cx_internal.h"

static _Atomic(const cx_algorithm *) forced[CX_COLL_COUNT];
static atomic_uint generation;

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
        if (env_bad[c] || (!env_alg[c] && cx_rules_broken()))
            static_err[c] = MPI_ERR_ARG;
        else if (env_alg[c])
            static_choice[c] = env_alg[c];
        else if (!cx_rules_mention((cx_coll)c))
            static_choice[c] = cx_native((cx_coll)c);
    }
}

unsigned cx_select_generation(void)
{
    return atomic_load_explicit(&generation, memory_order_relaxed);
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

/* The rules' pick for a on c: from the picks cached for the size class of
 * the call's message, else by walking the candidates (once per class). */
static const cx_rules_class *rules_class(const cx_args *a, cx_comm *c, int *err)
{
    cx_rules_cache *k = &c->sel[a->coll];
    if (!k->rules) {
        int ppn = 0;
        if (cx_rules_need_nodes()) {
            if ((*err = cx_comm_nodes(c)))
                return NULL;
            ppn = c->max_ranks_per_node;
        }
        if (!(k->rules = cx_rules_prune(a->coll, c->size, ppn))) {
            *err = MPI_ERR_NO_MEM;
            return NULL;
        }
        k->sized = cx_rules_sized(k->rules);
    }
    long long m = k->sized ? cx_rules_msg_size(a) : 0;
    for (int i = 0; i < k->npick; i++)
        if (m >= k->pick[i].lo && m <= k->pick[i].hi)
            return &k->pick[i];
    cx_rules_class *p = &k->pick[k->next];
    cx_rules_pick(k->rules, m, p);
    k->next = (k->next + 1) % CX_RULES_PICKS;
    if (k->npick < CX_RULES_PICKS)
        k->npick++;
    return p;
}

const cx_algorithm *cx_select(const cx_args *a, cx_comm *c, const cx_knob_params **params,
                              int *err)
{
    *params = NULL;
    const cx_algorithm *g = cx_select_global(a->coll, err);
    if (g || *err)
        return g;
    const cx_rules_class *p = rules_class(a, c, err);
    if (!p)
        return NULL;
    *params = p->params;
    return p->alg ? p->alg : cx_native(a->coll);
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
        fprintf(stderr, "collx: '%s' is not a %s algorithm; valid: ", alg, coll);
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
