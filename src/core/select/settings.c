/* Settings that must be the same on every rank (issue 51).
 *
 * collx decides on every rank alone what a call runs; a COLLX_* variable
 * forwarded to some ranks only (one forgotten `mpirun -x`) made ranks run
 * different schedules, and the program hung. At MPI_Init (the
 * interposer's), every rank sends rank 0 a digest of each setting that
 * shapes a schedule (the rules file by its content); rank 0 compares them
 * with its own and answers every rank with the collectives whose settings
 * differ. Their calls then fail on every rank with MPI_ERR_OTHER, after
 * one message from rank 0 that names the settings and the ranks.
 *
 * Point-to-point on MPI_COMM_WORLD with tags at MPI_TAG_UB, not a
 * collective: a rank that does not load collx (LD_PRELOAD not forwarded)
 * takes no part, and a collective would wait for it forever. Rank 0 waits
 * COLLX_CHECK_TIMEOUT seconds for the others, a rank for rank 0's answer as
 * long; where someone did not answer, collx hands every call of every rank
 * that loaded it to the MPI (the ranks without it do so anyway): slower,
 * never a hang.
 *
 * The same exchange tells every rank whether every rank loads collx with
 * COLLX_STATS on (a rank's own setting): the report at MPI_Finalize is
 * collective over MPI_COMM_WORLD, and a rank without it would strand the
 * others there (cx_settings_stats_everywhere). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "select.h"

#define UNSET 0u    /* the digest of a setting that is not given */

enum { VERDICT_SAME, VERDICT_DIFFER, VERDICT_MISSING };

static atomic_uint poisoned;     /* collectives whose settings differ (bits) */
static atomic_int all_native;    /* someone did not take part: MPI serves */
static atomic_int stats_everywhere = -1;   /* COLLX_STATS on every rank (-1: not checked) */
static char message[2048];       /* rank 0's message (also for the calls) */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* A file's content, or its name where it cannot be read. */
static uint64_t file_digest(uint64_t h, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return fnv(fnv(h, "unreadable:", 11), path, strlen(path));
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        h = fnv(h, buf, n);
    fclose(f);
    return h;
}

static uint64_t digest(cx_knob k)
{
    const char *text = cx_knob_env(k);
    if (!text)
        return UNSET;
    uint64_t h = fnv(14695981039346656037ull, text, strlen(text));
    if (k == CX_KNOB_RULES)
        h = file_digest(14695981039346656037ull, text);
    return h == UNSET ? 1 : h;
}

/* The collectives a setting shapes: its own for COLLX_<COLL>_ALGORITHM. */
static unsigned colls_of(cx_knob k)
{
    const cx_knob_decl *d = &cx_knob_decls[k];
    if (d->type == CX_KNOB_ALGORITHM && d->coll >= 0)
        return 1u << d->coll;
    return (1u << CX_COLL_COUNT) - 1;
}

static int tag_base(void)
{
    int *ub = NULL, flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    return flag && ub ? *ub - 1 : 32766;
}

static double timeout_s(void)
{
    return cx_knob_real(CX_KNOB_CHECK_TIMEOUT);
}

/* Waits for reqs until all completed or seconds passed: 1 if all did;
 * those left are cancelled. */
static int wait_all(int n, MPI_Request *reqs, int *done, double seconds)
{
    double end = PMPI_Wtime() + seconds;
    int all = 0, spins = 0;
    while (!all && PMPI_Wtime() < end) {
        all = 1;
        for (int i = 0; i < n; i++)
            if (!done[i] && reqs[i] != MPI_REQUEST_NULL)
                PMPI_Test(&reqs[i], &done[i], MPI_STATUS_IGNORE);
        for (int i = 0; i < n && all; i++)
            all = done[i] || reqs[i] == MPI_REQUEST_NULL;
        if (!all)
            cx_backoff(&spins);   /* the core's polite wait */
    }
    for (int i = 0; i < n; i++)
        if (!done[i] && reqs[i] != MPI_REQUEST_NULL) {
            PMPI_Cancel(&reqs[i]);
            PMPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
        }
    return all;
}

/* "1-3,5" into out. */
static void rank_list(const int *ranks, int n, char *out, size_t len)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < n && used + 24 < len; i++) {
        int j = i;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
            j++;
        used += (size_t)snprintf(out + used, len - used, i ? ",%d" : "%d", ranks[i]);
        if (j > i)
            used += (size_t)snprintf(out + used, len - used, "-%d", ranks[j]);
        i = j;
    }
}

/* Rank 0: what differs, into message; the collectives it shapes. */
static unsigned compare(const uint64_t *all, int p, const int *heard)
{
    unsigned bad = 0;
    int *ranks = malloc(sizeof(int) * (size_t)p);
    size_t used = 0;
    for (int k = 0; k < CX_KNOB_COUNT && ranks; k++) {
        if (cx_knob_decls[k].rank_local)
            continue;
        int n_other = 0, n_unset = 0;
        for (int r = 1; r < p; r++)
            if (heard[r] && all[(size_t)r * CX_KNOB_COUNT + k] != all[k])
                ranks[n_other++] = r;
        if (!n_other)
            continue;
        bad |= colls_of((cx_knob)k);
        for (int i = 0; i < n_other; i++)
            n_unset += all[(size_t)ranks[i] * CX_KNOB_COUNT + k] == UNSET;
        char list[256];
        rank_list(ranks, n_other, list, sizeof list);
        const char *mine = cx_knob_env((cx_knob)k), *q = mine ? "\"" : "";
        const char *theirs = n_unset == n_other ? "unset"
                             : k == CX_KNOB_RULES ? "another file (or content)"
                                                  : "another value";
        if (used < sizeof message)
            used += (size_t)snprintf(message + used, sizeof message - used,
                                     "%s%s is %s%s%s on rank 0 and %s on rank%s %s",
                                     used ? "; " : "", cx_knob_decls[k].name, q,
                                     mine ? mine : "unset", q, theirs,
                                     n_other > 1 ? "s" : "", list);
    }
    free(ranks);
    return bad;
}

static void say_differ(unsigned bad)
{
    char colls[512] = "";
    size_t used = 0;
    for (int c = 0; c < CX_COLL_COUNT && used < sizeof colls; c++)
        if (bad & 1u << c)
            used += (size_t)snprintf(colls + used, sizeof colls - used, "%s%s", used ? ", " : "",
                                     cx_coll_mpi_name((cx_coll)c));
    fprintf(stderr, "collx: error: settings differ between ranks: %s. Calls of %s return "
            "MPI_ERR_OTHER on every rank. Give every rank the same settings ("
            "mpirun -x NAME, mpiexec -genv NAME VALUE, srun --export=ALL)\n",
            message, bad == (1u << CX_COLL_COUNT) - 1 ? "every collective" : colls);
}

static void say_missing(const int *heard, int p)
{
    int *ranks = calloc((size_t)p, sizeof(int)), n = 0;
    if (!ranks)
        return;
    for (int r = 1; r < p; r++)
        if (!heard[r])
            ranks[n++] = r;
    char list[256];
    rank_list(ranks, n, list, sizeof list);
    free(ranks);
    fprintf(stderr, "collx: rank%s %s did not answer collx's settings check within %g s "
            "(COLLX_CHECK_TIMEOUT): they do not load collx (forward LD_PRELOAD to every "
            "rank: mpirun -x LD_PRELOAD, mpiexec -genv LD_PRELOAD ...). Every collective "
            "runs the MPI's own algorithm on every rank\n", n > 1 ? "s" : "", list, timeout_s());
}

static int stats_on(void)
{
    const char *v = cx_knob_str(CX_KNOB_STATS);
    return v && *v && strcmp(v, "0") != 0;
}

/* Rank 0, every rank heard: whether every rank has COLLX_STATS on; if some
 * have it and some not, says so (their report cannot run). */
static int stats_on_all(const uint64_t *all, int p)
{
    int *off = malloc(sizeof(int) * (size_t)p), n_off = 0;
    if (!off)
        return 0;
    for (int r = 0; r < p; r++)
        if (all[(size_t)r * CX_KNOB_COUNT + CX_KNOB_STATS] != 1)
            off[n_off++] = r;
    if (n_off && n_off < p) {
        char list[256];
        rank_list(off, n_off, list, sizeof list);
        fprintf(stderr, "collx: COLLX_STATS is not set on rank%s %s: no statistics at "
                "MPI_Finalize (every rank takes part in them; give it to every rank: mpirun "
                "-x COLLX_STATS, mpiexec -genv COLLX_STATS ...)\n", n_off > 1 ? "s" : "", list);
    }
    free(off);
    return n_off == 0;
}

static void root_side(int p, int tag, uint64_t *all)
{
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)p);
    int *heard = calloc((size_t)p, sizeof(int));
    if (!reqs || !heard) {
        free(reqs);
        free(heard);
        return;
    }
    reqs[0] = MPI_REQUEST_NULL;
    heard[0] = 1;
    for (int r = 1; r < p; r++)
        PMPI_Irecv(all + (size_t)r * CX_KNOB_COUNT, CX_KNOB_COUNT, MPI_UINT64_T, r, tag,
                   MPI_COMM_WORLD, &reqs[r]);
    int everyone = wait_all(p, reqs, heard, timeout_s());
    unsigned verdict[3] = {VERDICT_SAME, 0, everyone && stats_on_all(all, p)};
    if (!everyone) {
        verdict[0] = VERDICT_MISSING;
        say_missing(heard, p);
    } else if ((verdict[1] = compare(all, p, heard))) {
        verdict[0] = VERDICT_DIFFER;
        say_differ(verdict[1]);
    }
    for (int r = 1; r < p; r++)
        if (heard[r])
            PMPI_Send(verdict, 3, MPI_UNSIGNED, r, tag + 1, MPI_COMM_WORLD);
    atomic_store(&poisoned, verdict[0] == VERDICT_DIFFER ? verdict[1] : 0);
    atomic_store(&all_native, verdict[0] == VERDICT_MISSING);
    atomic_store(&stats_everywhere, (int)verdict[2]);
    cx_select_changed();   /* the calls decided before: not on these settings */
    free(reqs);
    free(heard);
}

static void rank_side(int rank, int tag, const uint64_t *mine)
{
    unsigned verdict[3] = {VERDICT_MISSING, 0, 0};
    MPI_Request send, recv;
    int done = 0;
    /* The send may outlive this call (rank 0 without collx never receives
     * it): its buffer must too. */
    static uint64_t sent[CX_KNOB_COUNT];
    memcpy(sent, mine, sizeof sent);
    PMPI_Isend(sent, CX_KNOB_COUNT, MPI_UINT64_T, 0, tag, MPI_COMM_WORLD, &send);
    PMPI_Irecv(verdict, 3, MPI_UNSIGNED, 0, tag + 1, MPI_COMM_WORLD, &recv);
    /* Longer than rank 0 waits for the others: whatever rank 0 decides
     * reaches every rank it heard from (ranks enter MPI_Init together,
     * give or take its wire-up). */
    int answered = wait_all(1, &recv, &done, 3 * timeout_s() + 1);
    PMPI_Request_free(&send);   /* a few bytes: gone when it can go */
    if (!answered) {
        verdict[0] = VERDICT_MISSING;
        if (rank == 1)
            fprintf(stderr, "collx: rank 0 did not answer collx's settings check within %g s "
                    "(COLLX_CHECK_TIMEOUT): does every rank load collx? Every collective runs "
                    "the MPI's own algorithm on the ranks that do\n", timeout_s());
    }
    atomic_store(&poisoned, verdict[0] == VERDICT_DIFFER ? verdict[1] : 0);
    atomic_store(&all_native, verdict[0] == VERDICT_MISSING);
    atomic_store(&stats_everywhere, answered && verdict[2]);
    cx_select_changed();
    if (verdict[0] == VERDICT_DIFFER)
        snprintf(message, sizeof message, "see rank 0's message");
}

/* COLLX_VERBOSE: one line at start on rank 0 (issue 51): which collx, for
 * which MPI, on which, with which rules, and whether the ranks agree. */
static void banner(int p, int checked)
{
    char mine[CX_MAX_LIBRARY_VERSION_STRING], lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    CX_Get_library_version(mine, sizeof mine, NULL);
    PMPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n,")] = 0;   /* its first line, up to a comma */
    for (char *c = lib; *c; c++)
        *c = *c == '\t' ? ' ' : *c;  /* MPICH: "MPICH Version:<tab>4.0.2" */
    const char *rules = cx_knob_env(CX_KNOB_RULES);
    char described[400] = " (";
    if (rules) {
        cx_rules_describe(described + 2, sizeof described - 3);
        strcat(described, ")");
    }
    cx_say("%s, running on %s; %d ranks, settings %s; rules: %s%s", mine, lib, p,
           !checked ? "not checked (COLLX_CHECK_TIMEOUT=0)"
           : atomic_load(&all_native) ? "not answered by every rank: the MPI serves every call"
           : atomic_load(&poisoned) ? "DIFFER (above)" : "the same on every rank",
           rules ? rules : "none", rules ? described : "");
}

void cx_settings_check(void)
{
    int p = 1, rank = 0, init = 0;
    PMPI_Initialized(&init);
    if (!init)
        return;
    PMPI_Comm_size(MPI_COMM_WORLD, &p);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    cx_knobs_check_names((int)cx_knob_int(CX_KNOB_VERBOSE));
    int check = p > 1 && timeout_s() > 0;
    if (!check) {
        if (rank == 0 && cx_verbose() > 0)
            banner(p, p < 2);
        return;
    }
    uint64_t *all = calloc((size_t)(rank == 0 ? p : 1) * CX_KNOB_COUNT, sizeof(uint64_t));
    if (!all)
        return;
    for (int k = 0; k < CX_KNOB_COUNT; k++)
        all[k] = cx_knob_decls[k].rank_local ? UNSET : digest((cx_knob)k);
    all[CX_KNOB_STATS] = stats_on();   /* rank-local, but the report needs all */
    if (rank == 0)
        root_side(p, tag_base(), all);
    else
        rank_side(rank, tag_base(), all);
    free(all);
    if (rank == 0 && cx_verbose() > 0)
        banner(p, 1);
}

int cx_settings_stats_everywhere(void)
{
    return atomic_load(&stats_everywhere);
}

int cx_settings_native(void)
{
    return atomic_load_explicit(&all_native, memory_order_relaxed);
}

const char *cx_settings_differ(int coll)
{
    unsigned bad = atomic_load_explicit(&poisoned, memory_order_relaxed);
    return bad & 1u << coll ? message : NULL;
}
