/* COLLX_STATS at MPI_Finalize: every rank's counters (stats.c) reduced
 * over MPI_COMM_WORLD, rank 0 writes them (stats_write.c). MPI_Finalize
 * deletes MPI_COMM_SELF's attributes first, while MPI still works, so an
 * attribute there runs the report; every rank has one (set at MPI_Init by
 * the interposer, else at its first collx call), and every rank takes
 * part with arrays of the same shape, sized by the catalogue, so no rank
 * waits for another's contribution. SMPI deletes MPI_COMM_SELF's
 * attributes only after the rank is finalized (SimGrid 3.32): there the
 * SMPI build's MPI_Finalize (api/smpi_finalize.c) runs the report first
 * (cx_stats_report_now). */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"

#define WHY_MAX 256   /* a reason's bytes on its way to rank 0 */

/* Allocated when the report is hooked, not at MPI_Finalize, where a rank
 * that could not take part would strand the others. */
static struct {
    int n;                    /* algorithms in the catalogue */
    long long *mx, *mx_all;   /* max over ranks: served calls, ns; fallbacks, to */
    long long *sum, *sum_all; /* sum over ranks: served ranks, bytes; fallback ranks */
    int *owner;               /* lowest rank that has a fallback's reason */
    int *world;               /* the profile's room: a node per world rank */
    double since;             /* when the report was hooked (MPI_Init) */
    int rank;                 /* in MPI_COMM_WORLD, for words after MPI has gone */
    int keyval, hooked;       /* the attribute on MPI_COMM_SELF, if set */
} buf;

/* Slots: SERVED (blocking and nonblocking per algorithm) and FALLBACKS
 * (blocking and nonblocking, a reason each, per algorithm). mx holds
 * [calls, ns] of the served slots, then [calls, to] of the fallback slots;
 * sum holds [ranks, bytes] of the served slots, then [ranks] of the
 * fallback slots. */
#define SERVED (2 * buf.n)
#define FALLBACKS (CX_STATS_FALLBACK_SLOTS * buf.n)
#define MX_LEN (2 * SERVED + 2 * FALLBACKS)
#define SUM_LEN (2 * SERVED + FALLBACKS)

static void fill(int rank)
{
    for (int i = 0; i < buf.n; i++) {
        for (int m = 0; m < 2; m++) {
            cx_stats_served s = cx_stats_served_get(i, m);
            int at = 2 * i + m;
            buf.mx[at] = s.calls;
            buf.mx[SERVED + at] = s.nanoseconds;
            buf.sum[at] = s.calls > 0;
            buf.sum[SERVED + at] = s.bytes;
        }
        for (int k = 0; k < CX_STATS_FALLBACK_SLOTS; k++) {
            int to, at = CX_STATS_FALLBACK_SLOTS * i + k;
            const char *why;
            long long calls = cx_stats_fallback_get(i, k / CX_STATS_REASONS,
                                                    k % CX_STATS_REASONS, &to, &why);
            buf.mx[2 * SERVED + at] = calls;
            buf.mx[2 * SERVED + FALLBACKS + at] = to;
            buf.sum[2 * SERVED + at] = calls > 0;
            buf.owner[at] = why ? rank : INT_MAX;
        }
    }
}

static void own_reason(int f, char text[WHY_MAX])
{
    int to;
    const char *why;
    int k = f % CX_STATS_FALLBACK_SLOTS;
    cx_stats_fallback_get(f / CX_STATS_FALLBACK_SLOTS, k / CX_STATS_REASONS,
                          k % CX_STATS_REASONS, &to, &why);
    snprintf(text, WHY_MAX, "%s", why ? why : "");
}

/* Each fallback's reason as its lowest rank that saw one said it, to rank
 * 0 (all ranks know who sends from the MIN over the owners). */
static void reasons_to_root(MPI_Comm world, int rank, char **why)
{
    for (int f = 0; f < FALLBACKS; f++) {
        int from = buf.owner[f];
        char text[WHY_MAX] = "";
        if (from == INT_MAX || (rank != 0 && rank != from))
            continue;
        if (rank == from)
            own_reason(f, text);
        if (rank != 0) {
            PMPI_Send(text, (int)strlen(text) + 1, MPI_CHAR, 0, 0, world);
            continue;
        }
        if (from != 0)
            PMPI_Recv(text, WHY_MAX, MPI_CHAR, from, 0, world, MPI_STATUS_IGNORE);
        text[WHY_MAX - 1] = '\0';
        if (why && (why[f] = malloc(strlen(text) + 1)))
            memcpy(why[f], text, strlen(text) + 1);
    }
}

static void write_report(int size, char **why, const cx_stats_profile *profile)
{
    const char *to = cx_stats_setting();
    cx_stats_report r = {.ranks = size, .nalgs = buf.n, .profile = profile,
                         .calls = buf.mx_all, .nanoseconds = buf.mx_all + SERVED,
                         .served_ranks = buf.sum_all, .bytes = buf.sum_all + SERVED,
                         .fallbacks = buf.mx_all + 2 * SERVED,
                         .fallback_to = buf.mx_all + 2 * SERVED + FALLBACKS,
                         .fallback_ranks = buf.sum_all + 2 * SERVED, .why = why};
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
    if (finalized() || !everyone_reports())
        return;
    cx_stats_prepare_sections();   /* online tuning's sites are in the report */
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &world) != MPI_SUCCESS)
        return;
    PMPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(world, &rank);
    PMPI_Comm_size(world, &size);
    fill(rank);
    int err = PMPI_Reduce(buf.mx, buf.mx_all, MX_LEN, MPI_LONG_LONG, MPI_MAX, 0, world);
    if (!err)
        err = PMPI_Reduce(buf.sum, buf.sum_all, SUM_LEN, MPI_LONG_LONG, MPI_SUM, 0, world);
    if (!err)
        err = PMPI_Allreduce(MPI_IN_PLACE, buf.owner, FALLBACKS, MPI_INT, MPI_MIN, world);
    char **why = rank == 0 ? calloc((size_t)FALLBACKS, sizeof *why) : NULL;
    if (!err) {
        cx_stats_profile profile;
        reasons_to_root(world, rank, why);   /* rank 0 without memory: no reasons */
        cx_profile_gather(world, buf.world, buf.since, &profile);
        if (rank == 0)
            write_report(size, why, &profile);
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
    buf.mx = calloc((size_t)MX_LEN, sizeof *buf.mx);
    buf.mx_all = calloc((size_t)MX_LEN, sizeof *buf.mx_all);
    buf.sum = calloc((size_t)SUM_LEN, sizeof *buf.sum);
    buf.sum_all = calloc((size_t)SUM_LEN, sizeof *buf.sum_all);
    buf.owner = calloc((size_t)FALLBACKS, sizeof *buf.owner);
    if (!buf.mx || !buf.mx_all || !buf.sum || !buf.sum_all || !buf.owner || !buf.world) {
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
