/* The COLLX_STATS profile at MPI_Finalize (stats.h): every rank places its
 * communicator records on MPI_COMM_WORLD's nodes, merges its rows (two
 * communicators of the same size and layout are one row), and rank 0
 * gathers and merges them: calls and time the most any rank had, ranks
 * the number that had such calls, rank time the sum. Every rank makes the
 * same collectives whatever it holds: a rank short of memory sends no
 * rows, and rank 0 short of memory tells every rank to send none. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "profile.h"

/* A row on its way to rank 0: the key, then the counters. */
enum { R_KIND, R_COLL, R_MODE, R_SIZE, R_RPN, R_NODES, R_WHICH, R_ALG, R_CALLS, R_NS, R_LEN };
#define R_KEY R_CALLS
enum { KIND_PROFILE, KIND_BEYOND };   /* R_WHICH: the size class, the rule */

static int by_key(const void *x, const void *y)
{
    const long long *a = x, *b = y;
    for (int i = 0; i < R_KEY; i++)
        if (a[i] != b[i])
            return (a[i] > b[i]) - (a[i] < b[i]);
    return 0;
}

/* A record's nodes, from the world's (lowest: NULL when unknown). */
static void place(cx_profile_comm *r, const int *lowest, int world_size)
{
    if (!lowest)
        return;
    int *keys = malloc(sizeof(int) * (size_t)r->size);
    if (!keys)
        return;
    for (int i = 0; i < r->size; i++) {
        int m = r->members[i];
        keys[i] = m >= 0 && m < world_size ? lowest[m] : -1 - i;   /* not in the world */
    }
    cx_nodes_count(keys, r->size, &r->nodes, &r->ranks_per_node);
    free(keys);
}

static cx_profile_comm *record_by_id(int id)
{
    cx_profile_comm *r = cx_profile_records();
    while (r && r->id != id)
        r = r->next;
    return r;
}

/* This rank's rows, at most cap (with rows NULL: their number). */
static int local_rows(long long (*rows)[R_LEN], int cap)
{
    int n = 0;
    for (cx_profile_comm *r = cx_profile_records(); r; r = r->next)
        for (int c = 0; c < CX_COLL_COUNT; c++) {
            cx_profile_slot *s = atomic_load(&r->per[c]);
            for (int k = 0; s && k < 2 * CX_PROFILE_CLASSES; k++) {
                long long calls = atomic_load(&s[k].calls);
                if (calls > 0 && rows && n < cap)
                    memcpy(rows[n], (long long[R_LEN]){KIND_PROFILE, c, k / CX_PROFILE_CLASSES,
                        r->size, r->ranks_per_node, r->nodes, k % CX_PROFILE_CLASSES, 0, calls,
                        atomic_load(&s[k].ns)}, sizeof rows[n]);
                n += calls > 0;
            }
        }
    for (int i = 0, id, coll, rule, alg; i < cx_profile_beyond_slots(); i++) {
        long long calls;
        cx_profile_comm *r;
        if (!cx_profile_beyond_get(i, &id, &coll, &rule, &alg, &calls) ||
            !(r = record_by_id(id)))
            continue;
        if (rows && n < cap)
            memcpy(rows[n], (long long[R_LEN]){KIND_BEYOND, coll, 0, r->size,
                   r->ranks_per_node, r->nodes, rule, alg, calls, 0}, sizeof rows[n]);
        n++;
    }
    return rows && n > cap ? cap : n;
}

/* One rank's rows of equal keys (communicators of the same size and
 * layout) as one, in key order; the number left. */
static int merge_local(long long (*rows)[R_LEN], int n)
{
    int k = 0;
    qsort(rows, (size_t)n, sizeof *rows, by_key);
    for (int i = 0; i < n; i++) {
        if (k && !by_key(rows[k - 1], rows[i])) {
            rows[k - 1][R_CALLS] += rows[i][R_CALLS];
            rows[k - 1][R_NS] += rows[i][R_NS];
        } else {
            memmove(rows[k++], rows[i], sizeof *rows);
        }
    }
    return k;
}

/* Rank 0: every rank's rows (each rank's keys unique) into the report's. */
static void merge_all(long long (*rows)[R_LEN], int n, cx_stats_profile *out)
{
    qsort(rows, (size_t)n, sizeof *rows, by_key);
    out->rows = calloc((size_t)n + 1, sizeof *out->rows);
    out->beyond = calloc((size_t)n + 1, sizeof *out->beyond);
    if (!out->rows || !out->beyond)
        return;
    for (int i = 0, j; i < n; i = j) {
        long long calls = 0, ns = 0, sum = 0;
        for (j = i; j < n && !by_key(rows[i], rows[j]); j++) {
            calls = rows[j][R_CALLS] > calls ? rows[j][R_CALLS] : calls;
            ns = rows[j][R_NS] > ns ? rows[j][R_NS] : ns;
            sum += rows[j][R_NS];
        }
        const long long *r = rows[i];
        if (r[R_KIND] == KIND_PROFILE)
            out->rows[out->nrows++] = (cx_stats_profile_row){
                (int)r[R_COLL], (int)r[R_MODE], (int)r[R_SIZE], (int)r[R_RPN], (int)r[R_NODES],
                (int)r[R_WHICH], calls, j - i, ns, sum};
        else
            out->beyond[out->nbeyond++] = (cx_stats_beyond_row){
                (int)r[R_COLL], (int)r[R_SIZE], (int)r[R_RPN], (int)r[R_NODES],
                (int)r[R_WHICH], (int)r[R_ALG], calls, j - i};
    }
}

/* Every rank's rows to rank 0 (counts: room for the world's size). */
static void gather_rows(MPI_Comm world, int rank, int size, long long (*mine)[R_LEN], int n,
                        int *counts, cx_stats_profile *out)
{
    long long (*all)[R_LEN] = NULL;
    int *displs = NULL, ok = 1;
    long long total = 0;
    PMPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, world);
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            total += counts[r];
        ok = total <= INT_MAX / R_LEN && (displs = malloc(sizeof(int) * (size_t)size)) &&
             (all = malloc(sizeof *all * (size_t)(total ? total : 1)));
        for (int r = 0, at = 0; ok && r < size; r++) {
            counts[r] *= R_LEN;
            displs[r] = at;
            at += counts[r];
        }
    }
    PMPI_Bcast(&ok, 1, MPI_INT, 0, world);
    if (ok && !PMPI_Gatherv(mine, n * R_LEN, MPI_LONG_LONG, all, counts, displs,
                            MPI_LONG_LONG, 0, world) && rank == 0)
        merge_all(all, (int)total, out);
    free(all);
    free(displs);
}

void cx_profile_gather(MPI_Comm world, int *lowest, double since, cx_stats_profile *out)
{
    int rank, size;
    PMPI_Comm_rank(world, &rank);
    PMPI_Comm_size(world, &size);
    memset(out, 0, sizeof *out);
    out->job = (cx_stats_job){.ranks = size, .nodes = -1, .ranks_per_node = -1};
    int mapped = !cx_nodes_lowest(world, lowest);
    for (cx_profile_comm *r = cx_profile_records(); r; r = r->next)
        place(r, mapped ? lowest : NULL, size);
    if (mapped)
        cx_nodes_count(lowest, size, &out->job.nodes, &out->job.ranks_per_node);
    double mine = PMPI_Wtime() - since;
    PMPI_Reduce(&mine, &out->job.seconds, 1, MPI_DOUBLE, MPI_MAX, 0, world);
    int n = local_rows(NULL, 0);
    long long (*rows)[R_LEN] = malloc(sizeof *rows * (size_t)(n ? n : 1));
    n = rows ? merge_local(rows, local_rows(rows, n)) : 0;
    gather_rows(world, rank, size, rows, n, lowest, out);
    free(rows);
}

void cx_profile_free(cx_stats_profile *p)
{
    free(p->rows);
    free(p->beyond);
    p->rows = NULL;
    p->beyond = NULL;
}
