/* COLLX_STATS at MPI_Finalize: every rank's counters (stats.c) reduced
 * over MPI_COMM_WORLD, rank 0 writes them (stats_write.c). MPI_Finalize
 * deletes MPI_COMM_SELF's attributes first, while MPI still works, so an
 * attribute there runs the report; every rank has one (set at MPI_Init by
 * the interposer, else at its first collx call), and every rank takes
 * part in every step with arrays of the same shape, so no rank waits for
 * another's contribution. SMPI deletes MPI_COMM_SELF's
 * attributes only after the rank is finalized (SimGrid 3.32): there the
 * SMPI build's MPI_Finalize (api/smpi_finalize.smpi.c) runs the report first
 * (cx_stats_report_now). */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"

#define WHY_MAX 256   /* a reason's bytes on its way to rank 0 */

/* Slots: s < SERVED is a served slot (2 * algorithm index + nonblocking),
 * else the fallback slot s - SERVED (CX_STATS_FALLBACK_SLOTS per
 * algorithm). A rank uses a handful of the thousands there are, and the
 * report must stay cheap at a thousand ranks and more (issue 63: one
 * reduction of every slot, 100 KiB, took SMPI half a minute at 256 ranks
 * and did not finish at 1024), so the ranks first agree on which slots
 * any of them used (a bitmap, OR) and then reduce those only. */
#define SERVED (2 * buf.n)
#define FALLBACKS (CX_STATS_FALLBACK_SLOTS * buf.n)
#define SLOTS (SERVED + FALLBACKS)
#define WORDS ((SLOTS + 63) / 64)
/* Per used slot: MX (max over ranks) calls, ns or the algorithm that ran,
 * and -owner (the lowest rank that has the fallback's reason); SM (sum
 * over ranks) ranks that used it, bytes. */
enum { MX_CALLS, MX_NS_TO, MX_OWNER, MX };
enum { SM_RANKS, SM_BYTES, SM };

/* Allocated when the report is hooked, not at MPI_Finalize, where a rank
 * that could not take part would strand the others; room for CAP used
 * slots, grown by every rank alike when more were used. */
#define CAP 128
static struct {
    int n;                        /* algorithms in the catalogue */
    unsigned long long *used, *used_all;   /* [WORDS] */
    int cap;                      /* used slots there is room for */
    int *slot;                    /* [cap]: the used slots, ascending */
    long long *mx, *mx_all;       /* [MX * cap] */
    long long *sm, *sm_all;       /* [SM * cap] */
    long long *out;               /* rank 0: the report's arrays (cx_stats_report) */
    int *world;                   /* the profile's room: a node per world rank */
    double since;                 /* when the report was hooked (MPI_Init) */
    int rank;                     /* in MPI_COMM_WORLD, for words after MPI has gone */
    int keyval, hooked;           /* the attribute on MPI_COMM_SELF, if set */
} buf;

/* rank 0's arrays, dense, as stats_write.c reads them: served calls, ns,
 * ranks, bytes [SERVED each]; fallback calls, to, ranks [FALLBACKS each]. */
#define OUT_LEN (4 * SERVED + 3 * FALLBACKS)
#define OUT_CALLS (buf.out)
#define OUT_NS (buf.out + SERVED)
#define OUT_RANKS (buf.out + 2 * SERVED)
#define OUT_BYTES (buf.out + 3 * SERVED)
#define OUT_FB (buf.out + 4 * SERVED)
#define OUT_FB_TO (OUT_FB + FALLBACKS)
#define OUT_FB_RANKS (OUT_FB + 2 * FALLBACKS)

/* This rank's slot s: calls, and its records. */
static long long local(int s, long long mx[MX], long long sm[SM])
{
    if (s < SERVED) {
        cx_stats_served v = cx_stats_served_get(s / 2, s % 2);
        if (mx) {
            mx[MX_CALLS] = v.calls, mx[MX_NS_TO] = v.nanoseconds, mx[MX_OWNER] = -INT_MAX;
            sm[SM_RANKS] = v.calls > 0, sm[SM_BYTES] = v.bytes;
        }
        return v.calls;
    }
    int f = s - SERVED, k = f % CX_STATS_FALLBACK_SLOTS, to;
    const char *why;
    long long calls = cx_stats_fallback_get(f / CX_STATS_FALLBACK_SLOTS, k / CX_STATS_REASONS,
                                            k % CX_STATS_REASONS, &to, &why);
    if (mx) {
        mx[MX_CALLS] = calls, mx[MX_NS_TO] = to, mx[MX_OWNER] = why ? -buf.rank : -INT_MAX;
        sm[SM_RANKS] = calls > 0, sm[SM_BYTES] = 0;
    }
    return calls;
}

static int make_room(int cap)
{
    int *slot = realloc(buf.slot, sizeof *slot * (size_t)cap);
    if (slot)
        buf.slot = slot;
    long long **ll[4] = {&buf.mx, &buf.mx_all, &buf.sm, &buf.sm_all};
    int ok = slot != NULL;
    for (int i = 0; i < 4; i++) {
        long long *p = realloc(*ll[i], sizeof *p * (size_t)(i < 2 ? MX : SM) * (size_t)cap);
        if (p)
            *ll[i] = p;
        ok = ok && p;
    }
    if (ok)
        buf.cap = cap;
    return ok;
}

/* The slots any rank used (every rank gets the same list); their number. */
static int agree_on_slots(MPI_Comm world, int *err)
{
    memset(buf.used, 0, sizeof *buf.used * (size_t)WORDS);
    for (int s = 0; s < SLOTS; s++)
        if (local(s, NULL, NULL) > 0)
            buf.used[s / 64] |= 1ull << (s % 64);
    *err = PMPI_Allreduce(buf.used, buf.used_all, WORDS, MPI_UNSIGNED_LONG_LONG, MPI_BOR,
                          world);
    int k = 0;
    for (int s = 0; !*err && s < SLOTS; s++)
        k += buf.used_all[s / 64] >> (s % 64) & 1;
    if (!*err && k > buf.cap) {   /* every rank alike: k is the same everywhere */
        int ok = make_room(k), all = 0;
        *err = PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, world);
        if (!*err && !all)
            *err = MPI_ERR_NO_MEM;
    }
    for (int s = 0, j = 0; !*err && s < SLOTS; s++)
        if (buf.used_all[s / 64] >> (s % 64) & 1)
            buf.slot[j++] = s;
    return *err ? 0 : k;
}

/* Rank 0: the used slots into the report's dense arrays. */
static void spread(int k)
{
    memset(buf.out, 0, sizeof *buf.out * (size_t)OUT_LEN);
    for (int f = 0; f < FALLBACKS; f++)
        OUT_FB_TO[f] = -1;
    for (int j = 0; j < k; j++) {
        const long long *mx = buf.mx_all + MX * j, *sm = buf.sm_all + SM * j;
        int s = buf.slot[j];
        if (s < SERVED) {
            OUT_CALLS[s] = mx[MX_CALLS], OUT_NS[s] = mx[MX_NS_TO];
            OUT_RANKS[s] = sm[SM_RANKS], OUT_BYTES[s] = sm[SM_BYTES];
        } else {
            OUT_FB[s - SERVED] = mx[MX_CALLS], OUT_FB_TO[s - SERVED] = mx[MX_NS_TO];
            OUT_FB_RANKS[s - SERVED] = sm[SM_RANKS];
        }
    }
}

/* The counters of the slots any rank used, reduced: max to every rank
 * (the owners of the reasons must know), sums to rank 0. */
static int reduce_counters(MPI_Comm world, int *k)
{
    int err;
    *k = agree_on_slots(world, &err);
    for (int j = 0; !err && j < *k; j++)
        local(buf.slot[j], buf.mx + MX * j, buf.sm + SM * j);
    if (!err)
        err = PMPI_Allreduce(buf.mx, buf.mx_all, MX * *k, MPI_LONG_LONG, MPI_MAX, world);
    if (!err)
        err = PMPI_Reduce(buf.sm, buf.sm_all, SM * *k, MPI_LONG_LONG, MPI_SUM, 0, world);
    if (!err && buf.rank == 0 && buf.out)
        spread(*k);
    return err;
}

/* Each fallback's reason as its lowest rank that saw one said it, to rank
 * 0 (all ranks know who sends from the max of -owner). */
static void reasons_to_root(MPI_Comm world, int rank, int k, char **why)
{
    for (int j = 0; j < k; j++) {
        int s = buf.slot[j], from = (int)-buf.mx_all[MX * j + MX_OWNER];
        char text[WHY_MAX] = "";
        if (s < SERVED || from == INT_MAX || (rank != 0 && rank != from))
            continue;
        if (rank == from) {
            int f = s - SERVED, kk = f % CX_STATS_FALLBACK_SLOTS, to;
            const char *said;
            cx_stats_fallback_get(f / CX_STATS_FALLBACK_SLOTS, kk / CX_STATS_REASONS,
                                  kk % CX_STATS_REASONS, &to, &said);
            snprintf(text, WHY_MAX, "%s", said ? said : "");
        }
        if (rank != 0) {
            PMPI_Send(text, (int)strlen(text) + 1, MPI_CHAR, 0, 0, world);
            continue;
        }
        if (from != 0)
            PMPI_Recv(text, WHY_MAX, MPI_CHAR, from, 0, world, MPI_STATUS_IGNORE);
        text[WHY_MAX - 1] = '\0';
        if (why && (why[s - SERVED] = malloc(strlen(text) + 1)))
            memcpy(why[s - SERVED], text, strlen(text) + 1);
    }
}

static void write_report(int size, char **why, const cx_stats_profile *profile)
{
    const char *to = cx_stats_setting();
    cx_stats_report r = {.ranks = size, .nalgs = buf.n, .profile = profile,
                         .calls = OUT_CALLS, .nanoseconds = OUT_NS,
                         .served_ranks = OUT_RANKS, .bytes = OUT_BYTES,
                         .fallbacks = OUT_FB, .fallback_to = OUT_FB_TO,
                         .fallback_ranks = OUT_FB_RANKS, .why = why};
    if (!to || strcmp(to, "1") == 0) {
        cx_stats_write(stderr, &r, CX_STATS_TABLE);
        return;
    }
    FILE *f = fopen(to, "w");
    if (!f) {
        fprintf(stderr, "collx: COLLX_STATS=%s: cannot write it; the statistics follow\n",
                to);
        cx_stats_write(stderr, &r, CX_STATS_TABLE);
        return;
    }
    size_t len = strlen(to);
    int json = len >= 5 && strcmp(to + len - 5, ".json") == 0;
    int csv = len >= 4 && strcmp(to + len - 4, ".csv") == 0;
    cx_stats_write(f, &r, json ? CX_STATS_JSON : csv ? CX_STATS_CSV : CX_STATS_TABLE);
    if (fclose(f))
        fprintf(stderr, "collx: COLLX_STATS=%s: write failed\n", to);
}

/* A rank without collx or without COLLX_STATS (the settings check at
 * MPI_Init found it) would never join: no report rather than a hang. */
static int everyone_reports(void)
{
    int rank = 0;
    if (cx_settings_stats_everywhere() != 0)
        return 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        fprintf(stderr, "collx: COLLX_STATS: no report: not every rank has it, or loads collx "
                "(said at MPI_Init)\n");
    return 0;
}

/* MPI finalized before the report (SMPI without the SMPI build's
 * MPI_Finalize): every MPI call would fail, say so rather than nothing. */
static int finalized(void)
{
    int done = 0;
    PMPI_Finalized(&done);
    if (done && buf.rank == 0)
        fprintf(stderr, "collx: COLLX_STATS: MPI was finalized before the report could run "
                "(SMPI: collx's MPI_Finalize not linked in?); no report\n");
    return done;
}

static void report(void)
{
    MPI_Comm world;
    int rank, size;
    double seconds = PMPI_Wtime() - buf.since;   /* the job's, not the report's */
    if (finalized() || !everyone_reports())
        return;
    cx_stats_prepare_sections();   /* online tuning's sites are in the report */
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &world) != MPI_SUCCESS)
        return;
    PMPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(world, &rank);
    PMPI_Comm_size(world, &size);
    int k = 0, err = reduce_counters(world, &k);
    char **why = rank == 0 ? calloc((size_t)FALLBACKS, sizeof *why) : NULL;
    if (!err) {
        cx_stats_profile profile;
        reasons_to_root(world, rank, k, why);   /* rank 0 without memory: no reasons */
        cx_profile_gather(world, buf.world, seconds, &profile);
        if (rank == 0 && buf.out)
            write_report(size, why, &profile);
        else if (rank == 0)
            fprintf(stderr, "collx: COLLX_STATS: out of memory for the report\n");
        cx_profile_free(&profile);
    } else if (rank == 0) {
        fprintf(stderr, "collx: COLLX_STATS: the ranks' counters could not be reduced "
                "(error %d)\n", err);
    }
    for (int f = 0; why && f < FALLBACKS; f++)
        free(why[f]);
    free(why);
    PMPI_Comm_free(&world);
}

static int at_finalize(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm; (void)keyval; (void)attr; (void)extra;
    report();
    return MPI_SUCCESS;
}

static void hook(void)
{
    int keyval, size = 1;
    buf.since = PMPI_Wtime();
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &buf.rank);
    buf.n = cx_algorithm_total();
    buf.world = calloc((size_t)size, sizeof *buf.world);
    buf.used = calloc((size_t)WORDS, sizeof *buf.used);
    buf.used_all = calloc((size_t)WORDS, sizeof *buf.used_all);
    buf.out = buf.rank == 0 ? calloc((size_t)OUT_LEN, sizeof *buf.out) : NULL;
    if (!buf.world || !buf.used || !buf.used_all || !make_room(CAP)) {
        fprintf(stderr, "collx: COLLX_STATS: out of memory; no statistics\n");
        return;
    }
    int err = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &keyval, NULL);
    if (!err)
        err = PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL);
    if (err)
        fprintf(stderr, "collx: COLLX_STATS: cannot run at MPI_Finalize (error %d); "
                "no statistics\n", err);
    else
        buf.keyval = keyval, buf.hooked = 1;
}

void cx_stats_report_at_finalize(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (cx_stats_on())
        pthread_once(&once, hook);
}

void cx_stats_report_now(void)
{
    if (buf.hooked) {
        buf.hooked = 0;   /* once: the attribute goes with it */
        PMPI_Comm_delete_attr(MPI_COMM_SELF, buf.keyval);
    }
}
