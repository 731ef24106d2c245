/* The COLLX_STATS profile at MPI_Finalize (stats.h): every rank places its
 * communicator records on MPI_COMM_WORLD's nodes, merges its rows (two
 * communicators of the same size and layout are one row), and the ranks
 * merge them in one allreduce whose operation merges two sorted lists of
 * rows (a tree, not a gather: rank 0 no longer receives a message from
 * every rank, which cost SMPI 0.8 ms of simulated time at 1024 ranks,
 * issue 63): calls and time the most any rank had, ranks the number that
 * had such calls, rank time the sum. The lists have room for a number of
 * rows every rank knows; when the ranks' rows together need more, every
 * rank sees it and the merge runs again with twice the room. Every rank
 * makes the same collectives whatever it holds: a rank short of memory
 * sends no rows. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "profile.h"

/* A row: the key, then what the merge takes the most of, then what it
 * sums. GROUP: the calls of the row's (collective, mode, communicator)
 * on the rank over all its size classes; RANK_CALLS: the calls summed over
 * ranks (how the group's calls are shared among its classes, below). */
enum { R_KIND, R_COLL, R_MODE, R_SIZE, R_RPN, R_NODES, R_WHICH, R_ALG,
       R_CALLS, R_NS, R_GROUP,
       R_RANKS, R_RANK_NS, R_RANK_CALLS, R_LEN };
#define R_KEY R_CALLS
#define R_SUMS R_RANKS
enum { KIND_PROFILE, KIND_BEYOND };   /* R_WHICH: the size class, the rule */
/* The merged list: its rows, whether some did not fit, the job's seconds
 * (the slowest rank's, in ns), then room for rows. */
enum { L_ROWS, L_OVERFLOW, L_JOB_NS, L_HEAD };

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
                long long ns = atomic_load(&s[k].ns);
                if (calls > 0 && rows && n < cap)
                    memcpy(rows[n], (long long[R_LEN]){KIND_PROFILE, c, k / CX_PROFILE_CLASSES,
                        r->size, r->ranks_per_node, r->nodes, k % CX_PROFILE_CLASSES, 0, calls,
                        ns, 0, 1, ns, calls}, sizeof rows[n]);
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
                   r->ranks_per_node, r->nodes, rule, alg, calls, 0, 0, 1, 0, calls},
                   sizeof rows[n]);
        n++;
    }
    return rows && n > cap ? cap : n;
}

/* Rows a and b of one group: the same (kind, collective, mode,
 * communicator) in every size class. */
static int same_group(const long long *a, const long long *b)
{
    for (int i = 0; i < R_KEY; i++)
        if (i != R_WHICH && a[i] != b[i])
            return 0;
    return a[R_KIND] == KIND_PROFILE;
}

/* One rank's rows of equal keys (communicators of the same size and
 * layout) as one, in key order, each with its group's calls; the number
 * left. */
static int merge_local(long long (*rows)[R_LEN], int n)
{
    int k = 0;
    qsort(rows, (size_t)n, sizeof *rows, by_key);
    for (int i = 0; i < n; i++) {
        if (k && !by_key(rows[k - 1], rows[i])) {
            for (int f = R_CALLS; f < R_LEN; f++)
                if (f != R_RANKS)
                    rows[k - 1][f] += rows[i][f];
        } else {
            memmove(rows[k++], rows[i], sizeof *rows);
        }
    }
    for (int i = 0, j; i < k; i = j) {   /* a group's rows are neighbours */
        long long calls = 0;
        for (j = i; j < k && (j == i || same_group(rows[i], rows[j])); j++)
            calls += rows[j][R_CALLS];
        for (int m = i; m < j; m++)
            rows[m][R_GROUP] = calls;
    }
    return k;
}

/* The merge (an MPI operation on one element: a list with room for cap
 * rows, cap known from the element's size): inout = in + inout. */
static void merge_lists(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int size = 0;
    PMPI_Type_size(*type, &size);
    long long cap = ((long long)size / (long long)sizeof(long long) - L_HEAD) / R_LEN;
    long long *a = in, *b = inout;
    long long (*ra)[R_LEN] = (long long (*)[R_LEN])(a + L_HEAD);
    long long (*rb)[R_LEN] = (long long (*)[R_LEN])(b + L_HEAD);
    long long (*out)[R_LEN] = malloc(sizeof *out * (size_t)(cap ? cap : 1));
    (void)len;   /* always 1 */
    b[L_OVERFLOW] |= a[L_OVERFLOW];
    b[L_JOB_NS] = a[L_JOB_NS] > b[L_JOB_NS] ? a[L_JOB_NS] : b[L_JOB_NS];
    if (!out) {   /* this rank's part is lost, and the report says so */
        b[L_OVERFLOW] = 1;
        return;
    }
    long long i = 0, j = 0, n = 0;
    while (i < a[L_ROWS] || j < b[L_ROWS]) {
        int c = i == a[L_ROWS] ? 1 : j == b[L_ROWS] ? -1 : by_key(ra[i], rb[j]);
        const long long *x = c <= 0 ? ra[i] : rb[j];
        if (n == cap) {
            b[L_OVERFLOW] = 1;
            break;
        }
        memcpy(out[n], x, sizeof *out);
        if (c == 0)
            for (int f = R_CALLS; f < R_LEN; f++)
                out[n][f] = f >= R_SUMS ? out[n][f] + rb[j][f]
                                        : out[n][f] > rb[j][f] ? out[n][f] : rb[j][f];
        i += c <= 0, j += c >= 0, n++;
    }
    memcpy(rb, out, sizeof *out * (size_t)n);
    b[L_ROWS] = n;
    free(out);
}

/* Calls of a group that ranks saw in different size classes (uneven
 * counts of a v-collective) are shared among its rows in proportion to
 * the ranks' calls there, rounded so that they add up to the group's
 * calls (the most any rank made): each call is counted once. */
static void share_calls(long long (*rows)[R_LEN], int n, long long *calls)
{
    for (int i = 0, j; i < n; i = j) {
        long long group = 0, sum = 0, given = 0;
        for (j = i; j < n && (j == i || same_group(rows[i], rows[j])); j++) {
            group = rows[j][R_GROUP] > group ? rows[j][R_GROUP] : group;
            sum += rows[j][R_RANK_CALLS];
        }
        if (j - i == 1 || rows[i][R_KIND] != KIND_PROFILE || sum <= 0) {
            for (int m = i; m < j; m++)
                calls[m] = rows[m][R_CALLS];
            continue;
        }
        for (int m = i; m < j; m++)   /* floors, then the remainders */
            given += calls[m] = group * rows[m][R_RANK_CALLS] / sum;
        while (given < group) {
            int best = i;
            long long best_rem = -1;
            for (int m = i; m < j; m++) {
                long long rem = group * rows[m][R_RANK_CALLS] % sum;
                if (rem > best_rem)
                    best = m, best_rem = rem;
            }
            calls[best]++, given++;
            rows[best][R_RANK_CALLS] = 0;   /* one each at most */
        }
    }
}

/* Rank 0: the merged rows into the report's. */
static void to_report(long long (*rows)[R_LEN], int n, cx_stats_profile *out)
{
    long long *calls = malloc(sizeof *calls * (size_t)(n ? n : 1));
    out->rows = calloc((size_t)n + 1, sizeof *out->rows);
    out->beyond = calloc((size_t)n + 1, sizeof *out->beyond);
    if (!calls || !out->rows || !out->beyond) {
        free(calls);
        return;
    }
    share_calls(rows, n, calls);
    for (int i = 0; i < n; i++) {
        const long long *r = rows[i];
        if (r[R_KIND] == KIND_PROFILE)
            out->rows[out->nrows++] = (cx_stats_profile_row){
                (int)r[R_COLL], (int)r[R_MODE], (int)r[R_SIZE], (int)r[R_RPN], (int)r[R_NODES],
                (int)r[R_WHICH], calls[i], r[R_RANKS], r[R_NS], r[R_RANK_NS]};
        else
            out->beyond[out->nbeyond++] = (cx_stats_beyond_row){
                (int)r[R_COLL], (int)r[R_SIZE], (int)r[R_RPN], (int)r[R_NODES],
                (int)r[R_WHICH], (int)r[R_ALG], r[R_CALLS], r[R_RANKS]};
    }
    free(calls);
}

/* Every rank's rows merged (job_ns: this rank's seconds in ns); rank 0
 * fills out. The first list is static, so that every rank joins the
 * first merge; a rank that cannot make room for a larger one says so
 * before the next, and every rank stops there. */
#define FIRST_CAP 64
static long long first[L_HEAD + FIRST_CAP * R_LEN];

static void merge_rows(MPI_Comm world, int rank, long long (*mine)[R_LEN], int n,
                       long long job_ns, cx_stats_profile *out)
{
    long long *list = first, cap = FIRST_CAP;
    MPI_Op op = MPI_OP_NULL;
    int err = PMPI_Op_create(merge_lists, 1, &op);
    for (int round = 0; !err; round++, cap *= 2) {
        MPI_Datatype t;
        if (round) {   /* some rank's rows did not fit */
            long long *more = cap <= INT_MAX / R_LEN - L_HEAD && round < 8 ?
                malloc(sizeof *more * (size_t)(L_HEAD + cap * R_LEN)) : NULL;
            int ok = more != NULL, all = 0;
            if (list != first)
                free(list);
            list = more ? more : first;
            if ((err = PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, world)) || !all) {
                err = err ? err : MPI_ERR_NO_MEM;
                break;
            }
        }
        list[L_ROWS] = n < cap ? n : cap;
        list[L_OVERFLOW] = n > cap;
        list[L_JOB_NS] = job_ns;
        if (list[L_ROWS])
            memcpy(list + L_HEAD, mine, sizeof *mine * (size_t)list[L_ROWS]);
        if ((err = PMPI_Type_contiguous((int)(L_HEAD + cap * R_LEN), MPI_LONG_LONG, &t)))
            break;
        PMPI_Type_commit(&t);
        err = PMPI_Allreduce(MPI_IN_PLACE, list, 1, t, op, world);
        PMPI_Type_free(&t);
        if (err || !list[L_OVERFLOW])
            break;
    }
    if (!err && rank == 0) {
        out->job.seconds = (double)list[L_JOB_NS] * 1e-9;
        to_report((long long (*)[R_LEN])(list + L_HEAD), (int)list[L_ROWS], out);
        if (list[L_OVERFLOW])
            fprintf(stderr, "collx: COLLX_STATS: the profile is incomplete (more rows than "
                    "it has room for, or out of memory)\n");
    }
    if (list != first)
        free(list);
    if (op != MPI_OP_NULL)
        PMPI_Op_free(&op);
}

void cx_profile_gather(MPI_Comm world, int *lowest, double seconds, cx_stats_profile *out)
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
    long long job_ns = (long long)(seconds * 1e9);
    int n = local_rows(NULL, 0);
    long long (*rows)[R_LEN] = malloc(sizeof *rows * (size_t)(n ? n : 1));
    n = rows ? merge_local(rows, local_rows(rows, n)) : 0;
    merge_rows(world, rank, rows, n, job_ns, out);
    free(rows);
}

void cx_profile_free(cx_stats_profile *p)
{
    free(p->rows);
    free(p->beyond);
    p->rows = NULL;
    p->beyond = NULL;
}
