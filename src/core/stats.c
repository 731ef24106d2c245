/* The counters of what collx served (stats.h): always the calls and
 * hand-overs per algorithm; under COLLX_STATS also each call's payload and
 * time, per (algorithm that ran, blocking or nonblocking), and the
 * hand-overs per (algorithm asked for, blocking or not, requirement
 * missed) with the reason in words. COLLX_STATS unset costs one branch per call and no clock. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cx_internal.h"

static atomic_long calls[CX_MAX_ALGS], fallbacks[CX_MAX_ALGS], inner[CX_MAX_ALGS];
static atomic_int shown[CX_MAX_ALGS][3];   /* blocking, nonblocking, persistent */

/* COLLX_STATS tables, allocated when it is on: [alg][blocking 0, nonblocking 1]
 * and [alg][blocking 0, nonblocking 1][reason]. */
typedef struct {
    atomic_llong calls, bytes, nanoseconds;
} served_slot;
typedef struct {
    atomic_llong calls;
    atomic_int to;              /* index + 1 of the algorithm that ran; 0 none */
    _Atomic(char *) why;        /* first reason said, malloc'ed */
} handed_slot;
static served_slot (*served)[2];
static handed_slot (*handed)[2][CX_STATS_REASONS];

atomic_int cx_stats_state = 2;   /* not read yet */
static pthread_once_t stats_once = PTHREAD_ONCE_INIT;

const char *cx_stats_setting(void)
{
    const char *v = cx_knob_str(CX_KNOB_STATS);
    return v && *v && strcmp(v, "0") != 0 ? v : NULL;
}

static void read_setting(void)
{
    int on = cx_stats_setting() != NULL, n = cx_algorithm_total();
    if (on) {
        served = calloc((size_t)n, sizeof *served);
        handed = calloc((size_t)n, sizeof *handed);
        if (!served || !handed) {
            fprintf(stderr, "collx: COLLX_STATS: out of memory; no statistics\n");
            on = 0;
        }
    }
    atomic_store(&cx_stats_state, on);
}

int cx_stats_start(void)
{
    pthread_once(&stats_once, read_setting);
    return atomic_load(&cx_stats_state);
}

void cx_count_call(const cx_algorithm *alg, const cx_args *a)
{
    int i = cx_algorithm_index(alg), verbose = cx_verbose();
    if (i < 0)
        return;
    atomic_fetch_add_explicit(&calls[i], 1, memory_order_relaxed);
    if (a->stats)
        a->stats->ran = alg;
    if (verbose <= 0)
        return;
    int rank = a->rank, size = a->size;
    if (a->comm != MPI_COMM_NULL && !a->size) {  /* fast native path */
        PMPI_Comm_rank(a->comm, &rank);
        PMPI_Comm_size(a->comm, &size);
    }
    /* Once per algorithm and form of the call (named MPI_<Name>,
     * MPI_I<lower-case name> or MPI_<Name>_init), and once per rule's
     * params: they change the call. */
    int form = a->persistent ? 2 : a->nonblocking ? 1 : 0;
    if (rank == 0 && (verbose > 1 || (a->params ? cx_knob_params_first_show(a->params)
                                                : !atomic_exchange(&shown[i][form], 1)))) {
        char with[512] = "";
        if (a->params) {
            int n = snprintf(with, sizeof with, " with rules[%d].params ", a->params->rule);
            cx_knob_params_text(a->params, with + n, sizeof with - (size_t)n);
        }
        fprintf(stderr, "collx: %s%s%s -> %s%s (p=%d%s)\n", form == 1 ? "MPI_I" : "",
                form == 1 ? cx_coll_name(a->coll) : cx_coll_mpi_name(a->coll),
                form == 2 ? "_init" : "", alg->name, with, size,
                verbose > 1 ? "" : ", shown once");
    }
}

void cx_count_inner(const cx_algorithm *alg)
{
    int i = cx_algorithm_index(alg);
    if (i >= 0)
        atomic_fetch_add_explicit(&inner[i], 1, memory_order_relaxed);
}

static int reason_of(unsigned bit)
{
    int r = 0;
    while (r < CX_STATS_NO_BIT && bit != 1u << r)
        r++;
    return r;
}

unsigned cx_stats_reason_bit(int reason)
{
    return reason >= 0 && reason < CX_STATS_NO_BIT ? 1u << reason : 0u;
}

void cx_count_fallback(const cx_args *a, const cx_algorithm *asked, const cx_algorithm *to,
                       unsigned bit, const char *why)
{
    int i = cx_algorithm_index(asked);
    if (i < 0)
        return;
    atomic_fetch_add_explicit(&fallbacks[i], 1, memory_order_relaxed);
    if (!cx_stats_on())
        return;
    handed_slot *h = &handed[i][a->nonblocking != 0][reason_of(bit)];
    atomic_fetch_add_explicit(&h->calls, 1, memory_order_relaxed);
    if (atomic_load_explicit(&h->why, memory_order_acquire))
        return;
    /* the first time: which ran and why (texts may live on a stack) */
    size_t len = why ? strlen(why) : 0;
    char *copy = malloc(len + 1);
    if (copy)
        memcpy(copy, why ? why : "", len + 1);
    char *none = NULL;
    atomic_store(&h->to, cx_algorithm_index(to) + 1);
    if (!copy || !atomic_compare_exchange_strong(&h->why, &none, copy))
        free(copy);
}

/* ------------------------------------------------------- one call, timed */
void cx_stats_begin(cx_stats_call *k, const cx_args *a, int nonblocking)
{
    *k = (cx_stats_call){.nonblocking = nonblocking, .bytes = cx_call_payload(a)};
    k->since = PMPI_Wtime();   /* after the sizes: the call's time only */
}

void cx_stats_pause(cx_stats_call *k)
{
    k->seconds += PMPI_Wtime() - k->since;
}

void cx_stats_resume(cx_stats_call *k)
{
    k->since = PMPI_Wtime();
}

void cx_stats_end(cx_stats_call *k)
{
    cx_stats_pause(k);
    int i = k->ran ? cx_algorithm_index(k->ran) : -1;
    if (i < 0)
        return;   /* failed before anything ran */
    served_slot *s = &served[i][k->nonblocking != 0];
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->bytes, k->bytes, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->nanoseconds, (long long)(k->seconds * 1e9),
                              memory_order_relaxed);
}

/* ------------------------------------------------------------- reading */
cx_stats_served cx_stats_served_get(int alg, int nonblocking)
{
    if (!served || alg < 0 || alg >= cx_algorithm_total())
        return (cx_stats_served){0, 0, 0};
    served_slot *s = &served[alg][nonblocking != 0];
    return (cx_stats_served){atomic_load(&s->calls), atomic_load(&s->bytes),
                             atomic_load(&s->nanoseconds)};
}

long long cx_stats_fallback_get(int alg, int nonblocking, int reason, int *to,
                                const char **why)
{
    *to = -1;
    *why = NULL;
    if (!handed || alg < 0 || alg >= cx_algorithm_total() || reason < 0 ||
        reason >= CX_STATS_REASONS)
        return 0;
    handed_slot *h = &handed[alg][nonblocking != 0][reason];
    *why = atomic_load(&h->why);
    *to = atomic_load(&h->to) - 1;
    return atomic_load(&h->calls);
}

/* ------------------------------------------------------------ public API */
long CX_Algorithm_calls(const char *coll, const char *alg)
{
    int c = cx_coll_from_name(coll);
    const cx_algorithm *a = c < 0 ? NULL : cx_algorithm_find((cx_coll)c, alg);
    int i = a ? cx_algorithm_index(a) : -1;
    return i < 0 ? 0 : atomic_load(&calls[i]);
}

long CX_Algorithm_inner_calls(const char *coll, const char *alg)
{
    int c = cx_coll_from_name(coll);
    const cx_algorithm *a = c < 0 ? NULL : cx_algorithm_find((cx_coll)c, alg);
    int i = a ? cx_algorithm_index(a) : -1;
    return i < 0 ? 0 : atomic_load(&inner[i]);
}

long CX_Algorithm_fallbacks(const char *coll, const char *alg)
{
    int c = cx_coll_from_name(coll);
    const cx_algorithm *a = c < 0 ? NULL : cx_algorithm_find((cx_coll)c, alg);
    int i = a ? cx_algorithm_index(a) : -1;
    return i < 0 ? 0 : atomic_load(&fallbacks[i]);
}
