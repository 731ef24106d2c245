/* Online tuning of call sites (online.h): warm-up, trials, the agreement
 * and the settled choice, per communicator, collective and size class.
 * What a call does depends only on counts and sizes every rank holds
 * alike, and on one MPI_Allreduce, so every rank runs the same algorithm
 * in every call. */
#define _POSIX_C_SOURCE 200809L /* strdup, strtok_r */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "online.h"

enum { WARMUP, TRYING, SETTLED, UNTUNED };

typedef struct cx_online_key {
    int state, cls;
    long long calls;        /* blocking calls of the site so far */
    long long first;        /* the call its trials start at */
    int per;                /* calls per candidate (the first untimed) */
    int cur;                /* candidate of the current trial call */
    const cx_algorithm *settled;
    const cx_knob_params *settled_params;
    const cx_knob_params *params[CX_TUNE_MAX_CANDIDATES];
    const cx_algorithm *cand[CX_TUNE_MAX_CANDIDATES];
    double (*t)[64];        /* [candidate][timed call], while trying */
    int nt[CX_TUNE_MAX_CANDIDATES];
    cx_online_site site;    /* what the report and the cache get */
} key;

typedef struct cx_online_comm {
    MPI_Comm agree;         /* collx's own duplicate: the agreement only */
    key *keys[CX_COLL_COUNT][CX_TUNE_CLASSES];
} online_comm;

/* c's state (its room's slot), freed with c. */
static online_comm *online_of(cx_comm *c)
{
    return *cx_comm_room(c, CX_ROOM_ONLINE);
}

static void release(void *state)
{
    online_comm *o = state;
    for (int i = 0; i < CX_COLL_COUNT; i++)
        for (int k = 0; k < CX_TUNE_CLASSES; k++)
            if (o->keys[i][k]) {
                free(o->keys[i][k]->t);
                free(o->keys[i][k]);
            }
    PMPI_Comm_free(&o->agree);
    free(o);
}

/* c's state: the node layout (ranks per node keys the cache) and the
 * duplicate, made at the site's first call on every rank alike. */
static int setup(cx_comm *c)
{
    online_comm *o = calloc(1, sizeof *o);
    int err;
    if (!o)
        return MPI_ERR_NO_MEM;
    if ((err = cx_comm_node_map(c)) || (err = cx_comm_quiesce(c)) ||
        (err = PMPI_Comm_dup(c->priv, &o->agree))) {
        free(o);
        return err;
    }
    PMPI_Comm_set_errhandler(o->agree, MPI_ERRORS_RETURN);
    cx_comm_room_release(CX_ROOM_ONLINE, release);
    *cx_comm_room(c, CX_ROOM_ONLINE) = o;
    return MPI_SUCCESS;
}

static key *new_key(const cx_args *a, cx_comm *c, int cls)
{
    key *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->cls = cls;
    k->site = (cx_online_site){.coll = a->coll, .comm_size = c->size,
                               .ranks_per_node = c->max_ranks_per_node, .cls = cls,
                               .chosen = -1};
    k->settled = cx_online_cached(a->coll, c->size, c->max_ranks_per_node, cls);
    if (k->settled) {
        k->state = SETTLED;
        k->site.chosen = cx_algorithm_index(k->settled);
        k->site.from_cache = 1;
        if (c->rank == 0)
            cx_online_record(&k->site);
    }
    return k;
}

/* COLLX_TUNE_CANDIDATES: entries "name" or "coll:name", a name being an
 * algorithm's or a family's; one flag per catalogue index, read once. */
static unsigned char *wanted;
static pthread_once_t wanted_once = PTHREAD_ONCE_INIT;

static int names(const cx_algorithm *alg, const char *name)
{
    int f = cx_algorithm_family(alg);
    return !strcmp(alg->name, name) || (f >= 0 && !strcmp(cx_families[f]->name, name));
}

static int world_rank(void)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

static void read_wanted(void)
{
    const char *list = cx_knob_str(CX_KNOB_TUNE_CANDIDATES);
    int n = cx_algorithm_total();
    char *copy = list ? strdup(list) : NULL, *save = NULL;
    if (!(wanted = calloc((size_t)n, 1)) || !copy) {
        free(copy);
        return;
    }
    for (char *e = strtok_r(copy, ", ", &save); e; e = strtok_r(NULL, ", ", &save)) {
        char *colon = strchr(e, ':'), *name = colon ? colon + 1 : e;
        int coll = -1, hits = 0;
        if (colon) {
            *colon = '\0';
            coll = cx_coll_from_name(e);
        }
        for (int i = 0; i < n && !(colon && coll < 0); i++) {
            const cx_algorithm *alg = cx_algorithm_at(i);
            if ((coll < 0 || (int)alg->coll == coll) && names(alg, name))
                wanted[i] = 1, hits++;
        }
        if (!hits && world_rank() == 0)
            cx_say("COLLX_TUNE_CANDIDATES: '%s%s%s' names no algorithm or family; ignored",
                   colon ? e : "", colon ? ":" : "", name);
    }
    free(copy);
}

static int is_wanted(const cx_algorithm *alg)
{
    pthread_once(&wanted_once, read_wanted);
    int i = cx_algorithm_index(alg);
    return wanted && i >= 0 && wanted[i];
}

static void add(key *k, const cx_algorithm *alg, const cx_knob_params *params, int max)
{
    int n = k->site.ncand;
    for (int i = 0; i < n; i++)
        if (k->cand[i] == alg)
            return;
    if (n < max) {
        k->cand[n] = alg;
        k->params[n] = params;
        k->site.cand[n] = cx_algorithm_index(alg);
        k->site.ncand = n + 1;
    }
}

/* Native, the usual choice, its rule's candidates, then the wanted
 * algorithms of the catalogue, each if it serves this call itself, as
 * many as the cap lets run. */
static int candidates(key *k, const cx_args *a, cx_comm *c, const cx_algorithm *usual,
                      const cx_knob_params *params)
{
    int err = MPI_SUCCESS, total = cx_algorithm_total();
    int max = (int)(cx_knob_int(CX_KNOB_TUNE_MAX_TRIALS) / k->per);
    if (max > CX_TUNE_MAX_CANDIDATES)
        max = CX_TUNE_MAX_CANDIDATES;
    add(k, cx_native(a->coll), NULL, max);
    if (usual->build && cx_decide_serves(a, c, usual, params, &err))
        add(k, usual, params, max);
    const cx_algorithm *const *rule = cx_select_candidates(a, c);
    for (; rule && *rule && !err && k->site.ncand < max; rule++)
        if (!(*rule)->build || cx_decide_serves(a, c, *rule, NULL, &err))
            add(k, *rule, NULL, max);
    for (int i = 0; i < total && !err && k->site.ncand < max; i++) {
        const cx_algorithm *alg = cx_algorithm_at(i);
        if (alg->coll == a->coll && alg->build && is_wanted(alg) &&
            cx_decide_serves(a, c, alg, NULL, &err))
            add(k, alg, NULL, max);
    }
    return err;
}

static void say_trying(const key *k, const cx_args *a, const cx_comm *c)
{
    char line[400];
    long long lo, hi;
    int n = 0;
    cx_size_class_range(k->cls, &lo, &hi);
    for (int i = 0; i < k->site.ncand && n >= 0 && (size_t)n < sizeof line; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s%s", i ? ", " : "",
                      k->cand[i]->name);
    cx_say("online %s (p=%d, %lld..%lld B): trying %s, %d calls each after %lld warm-up",
           cx_coll_mpi_name(a->coll), c->size, lo, hi, line, k->per, k->first);
}

static int start_trials(key *k, const cx_args *a, cx_comm *c, const cx_algorithm *usual,
                        const cx_knob_params *params)
{
    int err;
    k->per = (int)cx_knob_int(CX_KNOB_TUNE_CALLS);
    k->first = k->calls;
    if ((err = candidates(k, a, c, usual, params)))
        return err;
    if (k->site.ncand < 2) {   /* nothing to compare: the usual choice stays */
        k->state = UNTUNED;
        return MPI_SUCCESS;
    }
    if (!(k->t = calloc(CX_TUNE_MAX_CANDIDATES, sizeof *k->t)))
        return MPI_ERR_NO_MEM;
    k->state = TRYING;
    if (cx_verbose() > 0 && c->rank == 0)
        say_trying(k, a, c);
    return MPI_SUCCESS;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *t, int n)
{
    if (!n)
        return -1;   /* never timed: not compared */
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static void say_settled(const key *k, const cx_args *a, const cx_comm *c)
{
    char line[400];
    long long lo, hi;
    int n = 0;
    cx_size_class_range(k->cls, &lo, &hi);
    for (int i = 0; i < k->site.ncand && n >= 0 && (size_t)n < sizeof line; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, k->site.us[i] < 10 ? "%s%s %.2f us"
                      : "%s%s %.1f us", i ? ", " : "", k->cand[i]->name, k->site.us[i]);
    cx_say("online %s (p=%d, %lld..%lld B): %s -> %s (the slowest rank's median of %d "
           "calls each)", cx_coll_mpi_name(a->coll), c->size, lo, hi, line,
           k->settled->name, k->per - 1);
}

/* Every rank's medians, the slowest rank's kept (the same array on every
 * rank), and the fastest: native unless another beats it by the margin. */
static int settle(key *k, const cx_args *a, cx_comm *c)
{
    double mine[CX_TUNE_MAX_CANDIDATES], *all = k->site.us;
    int n = k->site.ncand, best = 0;
    for (int i = 0; i < n; i++)
        mine[i] = median(k->t[i], k->nt[i]) * 1e6;
    int err = PMPI_Allreduce(mine, all, n, MPI_DOUBLE, MPI_MAX, online_of(c)->agree);
    for (int i = 1; !err && i < n; i++)
        if (all[i] >= 0 && (all[best] < 0 || all[i] < all[best]))
            best = i;
    double margin = cx_knob_real(CX_KNOB_TUNE_MARGIN);
    if (err || all[0] < 0 || !(all[best] < all[0] * (1 - margin)))
        best = 0;
    k->settled = k->cand[best];
    k->settled_params = k->params[best];
    k->site.chosen = cx_algorithm_index(k->settled);
    k->state = SETTLED;
    free(k->t);
    k->t = NULL;
    if (c->rank == 0) {
        cx_online_record(&k->site);
        if (cx_verbose() > 0)
            say_settled(k, a, c);
    }
    return err;
}

/* A call of a site that is trying: its candidate, timed but for the
 * candidate's first call; after the last, the agreement. */
static const cx_algorithm *trial(key *k, cx_args *a, cx_comm *c, const cx_knob_params **p,
                                 int *err)
{
    long long t = k->calls - k->first;
    if (t >= (long long)k->site.ncand * k->per) {
        if ((*err = settle(k, a, c)))
            return NULL;
        *p = k->settled_params;
        return k->settled;
    }
    k->cur = (int)(t / k->per);
    k->site.trials++;
    if (t % k->per)
        a->tune = k;
    *p = k->params[k->cur];
    return k->cand[k->cur];
}

/* The policy's pick (online.h, cx_online_policy). */
static const cx_algorithm *pick(cx_args *a, cx_comm *c, const cx_algorithm *usual,
                                const cx_knob_params **params, int *err)
{
    *err = MPI_SUCCESS;
    a->tune = NULL;
    if (!online_of(c) && (*err = setup(c)))
        return NULL;
    int cls = cx_size_class(cx_rules_msg_size(a));
    key **slot = &online_of(c)->keys[a->coll][cls], *k = *slot;
    if (!k && !(k = *slot = new_key(a, c, cls))) {
        *err = MPI_ERR_NO_MEM;
        return NULL;
    }
    const cx_algorithm *run = usual;
    if (k->state == WARMUP && k->calls >= cx_knob_int(CX_KNOB_TUNE_WARMUP))
        *err = start_trials(k, a, c, usual, *params);
    if (!*err && k->state == TRYING)
        run = trial(k, a, c, params, err);
    else if (k->state == SETTLED && k->settled != usual)
        run = k->settled, *params = k->site.from_cache ? NULL : k->settled_params;
    k->calls++;
    return *err ? NULL : run;
}

const cx_select_policy cx_online_policy = {cx_online_coll, pick};

void cx_online_timed(cx_args *a, double seconds)
{
    key *k = a->tune;
    if (k && k->t && k->nt[k->cur] < 64)
        k->t[k->cur][k->nt[k->cur]++] = seconds;
}

/* ------------------------------------------------------------ public API */
const char *CX_Tune_site(MPI_Comm comm, const char *coll, long long msg_bytes,
                         long *trial_calls, int *from_cache)
{
    int c = cx_coll_from_name(coll);
    cx_comm *state = c < 0 ? NULL : cx_comm_find(comm);
    online_comm *o = state ? online_of(state) : NULL;
    key *k = o ? o->keys[c][cx_size_class(msg_bytes)] : NULL;
    if (trial_calls)
        *trial_calls = k ? k->site.trials : 0;
    if (from_cache)
        *from_cache = k ? k->site.from_cache : 0;
    return k && k->state == SETTLED ? k->settled->name : NULL;
}
