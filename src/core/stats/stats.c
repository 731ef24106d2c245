/* COLLX_STATS (stats.h): each call's payload and time, per (algorithm
 * that ran, blocking or nonblocking), and the hand-overs per (algorithm
 * asked for, blocking or not, requirement missed) with the reason in
 * words, which the always-on counters (counts.c) show this room through
 * their watch. COLLX_STATS unset costs one branch per call and no clock. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"
#include "../engine/engine.h"

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
/* An algorithm's hand-overs take 2 x 33 slots, and few algorithms ever
 * hand over: made at the first (a dense table cost 150 KiB per rank, 150
 * MiB for 1024 ranks in one SMPI process). */
typedef handed_slot handed_alg[2][CX_STATS_REASONS];
static served_slot (*served)[2];
static _Atomic(handed_alg *) *handed;   /* [alg] */

atomic_int cx_stats_state = 2;   /* not read yet */
static pthread_once_t stats_once = PTHREAD_ONCE_INIT;

const char *cx_stats_setting(void)
{
    const char *v = cx_knob_str(CX_KNOB_STATS);
    return v && *v && strcmp(v, "0") != 0 ? v : NULL;
}

static void record_fallback(const cx_args *a, int i, const cx_algorithm *to, unsigned bit,
                            const char *why);

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
    if (on) {
        cx_counts_watch_fallbacks(record_fallback);
        cx_rules_watch_beyond(cx_profile_beyond);
    }
    atomic_store(&cx_stats_state, on);
}

int cx_stats_start(void)
{
    pthread_once(&stats_once, read_setting);
    return atomic_load(&cx_stats_state);
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

/* The counters' watch (counts.c): a hand-over, recorded per reason. */
static void record_fallback(const cx_args *a, int i, const cx_algorithm *to, unsigned bit,
                            const char *why)
{
    handed_alg *mine = atomic_load_explicit(&handed[i], memory_order_acquire), *nil = NULL;
    if (!mine) {
        handed_alg *fresh = calloc(1, sizeof *fresh);
        if (!fresh)
            return;   /* not counted: the report misses it */
        if (atomic_compare_exchange_strong(&handed[i], &nil, fresh))
            mine = fresh;
        else
            free(fresh), mine = nil;
    }
    handed_slot *h = &(*mine)[a->nonblocking != 0][reason_of(bit)];
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

/* ------------------------------------------------------------ progress */
/* COLLX_PROGRESS_FILE: rank 0's count of calls and its clock, rewritten at
 * the first powers of two and every PROGRESS_EVERY calls (each write costs
 * the next computation burst a cold cache: rare), so that a run hours long in SMPI says how far it
 * is (the calls of an earlier run of the program give the whole). */
#define PROGRESS_EVERY 256
static long long progress_calls;
static int progress_on = -1;   /* -1: not read yet (per rank: SMPI privatizes) */

static void progress_note(void)
{
    const char *path = cx_knob_str(CX_KNOB_PROGRESS_FILE);
    if (progress_on < 0)
        progress_on = path && *path && cx_world_rank_zero();
    long long n = progress_on ? ++progress_calls : 0;
    if (!n || (n < PROGRESS_EVERY ? n & (n - 1) : n % PROGRESS_EVERY))
        return;   /* at 1, 2, 4, 8, then every PROGRESS_EVERY */
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "%lld %.9f\n", progress_calls, PMPI_Wtime());
    fclose(f);
}

/* ------------------------------------------------------- one call, timed */
/* An intercommunicator's calls have no payload and no place in the
 * profile (no rule serves them). */
void cx_stats_begin(cx_stats_call *k, const cx_args *a, int nonblocking)
{
    int rank, p, inter = 0;
    *k = (cx_stats_call){.nonblocking = nonblocking};
    if (a->comm != MPI_COMM_NULL && PMPI_Comm_test_inter(a->comm, &inter) == MPI_SUCCESS &&
        !inter) {
        PMPI_Comm_rank(a->comm, &rank);
        PMPI_Comm_size(a->comm, &p);
        k->bytes = cx_call_payload(a, rank, p);
        k->slot = cx_profile_slot_of(a, rank, p, nonblocking);
    }
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
    long long ns = (long long)(k->seconds * 1e9);
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->bytes, k->bytes, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->nanoseconds, ns, memory_order_relaxed);
    if (k->slot)
        cx_profile_add(k->slot, ns);
    progress_note();
}

static void timer_pause(void *k) { cx_stats_pause(k); }
static void timer_resume(void *k) { cx_stats_resume(k); }
static void timer_end(void *k)
{
    cx_stats_end(k);
    free(k);
}
const cx_request_timer cx_stats_timer = {timer_pause, timer_resume, timer_end};

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
    handed_alg *mine = atomic_load(&handed[alg]);
    if (!mine)
        return 0;
    handed_slot *h = &(*mine)[nonblocking != 0][reason];
    *why = atomic_load(&h->why);
    *to = atomic_load(&h->to) - 1;
    return atomic_load(&h->calls);
}

