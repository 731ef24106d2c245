/* A plain MPI program for the online tuning tests (run_online.py), run
 * under LD_PRELOAD=libcollx_pmpi.so: allreduce (MPI_SUM of doubles) and
 * bcast (ints, the root moving) at three sizes each, CALLS calls per size,
 * on MPI_COMM_WORLD and on a sub-communicator (the first p - 1 ranks; the
 * last rank alone on its own). Every result is checked against the
 * MPI's own (PMPI_Allreduce) or the root's data, so the trial calls are
 * checked too.
 *
 * After each loop it asks collx (CX_Tune_site, CX_Algorithm_calls, found
 * with dlsym: the program is not linked with collx) what the site settled
 * on, agrees over the communicator that every rank names the same
 * algorithm, runs 5 more calls and checks that this algorithm ran them;
 * the communicator's rank 0 prints one line per site:
 *   site <comm size> <coll> <bytes> <algorithm> trials=<n> cache=<0|1>
 * MODE tune: the site settled from trials (1 <= trials <= MAX_TRIALS);
 * cached: it settled from the cache file (no trial call). rules (collx
 * without online tuning): it only says what ran the 5 calls. Rank 0 of
 * MPI_COMM_WORLD prints "online app: OK" when every check held.
 *   online_app tune|cached|rules CALLS MAX_TRIALS */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef const char *(*site_fn)(MPI_Comm, const char *, long long, long *, int *);
typedef long (*calls_fn)(const char *, const char *);
typedef int (*count_fn)(const char *);
typedef const char *(*name_fn)(const char *, int);

static site_fn tune_site;
static calls_fn alg_calls;
static count_fn alg_count;
static name_fn alg_name;
static const char *mode;
static int world_rank, bad, calls, max_trials;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond) && bad++ < 20) {                                          \
            printf("rank %d: ", world_rank);                                  \
            printf(__VA_ARGS__);                                              \
            putchar('\n');                                                    \
        }                                                                     \
    } while (0)

static void one_allreduce(MPI_Comm comm, int n, int it, double *x, double *got, double *want)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    for (int i = 0; i < n; i++)
        x[i] = (rank * 7 + i + it) % 1000;   /* integers: every order sums exactly */
    MPI_Allreduce(x, got, n, MPI_DOUBLE, MPI_SUM, comm);
    PMPI_Allreduce(x, want, n, MPI_DOUBLE, MPI_SUM, comm);
    CHECK(!memcmp(got, want, sizeof *got * (size_t)n), "allreduce of %d doubles, call %d: "
          "wrong result", n, it);
}

static void one_bcast(MPI_Comm comm, int n, int it, int *buf)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int root = it % size;
    for (int i = 0; i < n; i++)
        buf[i] = rank == root ? it * 31 + i : -1;
    MPI_Bcast(buf, n, MPI_INT, root, comm);
    int wrong = 0;
    for (int i = 0; i < n; i++)
        wrong += buf[i] != it * 31 + i;
    CHECK(!wrong, "bcast of %d ints from %d, call %d: %d wrong", n, root, it, wrong);
}

static void run(MPI_Comm comm, const char *coll, int n, int from, int count, void *a, void *b,
                void *c)
{
    for (int it = from; it < from + count; it++)
        if (!strcmp(coll, "allreduce"))
            one_allreduce(comm, n, it, a, b, c);
        else
            one_bcast(comm, n, it, a);
}

/* The algorithm whose count of calls grew by `by` since `before`. */
static const char *grown(const char *coll, const long *before, int by)
{
    for (int i = 0; i < alg_count(coll); i++)
        if (alg_calls(coll, alg_name(coll, i)) - before[i] == by)
            return alg_name(coll, i);
    return "?";
}

static unsigned long name_hash(const char *s)
{
    unsigned long h = 5381;
    for (; s && *s; s++)
        h = h * 33 + (unsigned char)*s;
    return h;
}

static void site(MPI_Comm comm, const char *coll, int n, int esize, void *a, void *b, void *c)
{
    int rank, size, cache = 0;
    long trials = 0, before[256];
    long long bytes = (long long)n * esize;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    run(comm, coll, n, 0, calls, a, b, c);
    const char *settled = tune_site(comm, coll, bytes, &trials, &cache);
    for (int i = 0; i < alg_count(coll) && i < 256; i++)
        before[i] = alg_calls(coll, alg_name(coll, i));
    run(comm, coll, n, calls, 5, a, b, c);
    const char *ran = grown(coll, before, 5);
    if (strcmp(mode, "rules")) {
        CHECK(settled, "%s of %lld bytes on %d ranks: not settled after %d calls", coll,
              bytes, size, calls);
        CHECK(!settled || !strcmp(settled, ran), "%s of %lld bytes on %d ranks: settled on %s, "
              "yet %s ran the next calls", coll, bytes, size, settled, ran);
    }
    if (!strcmp(mode, "tune"))
        CHECK(!cache && trials >= 1 && trials <= max_trials, "%s of %lld bytes on %d ranks: "
              "%ld trial calls (cap %d), cache %d", coll, bytes, size, trials, max_trials, cache);
    if (!strcmp(mode, "cached"))
        CHECK(cache && trials == 0, "%s of %lld bytes on %d ranks: %ld trial calls, cache %d",
              coll, bytes, size, trials, cache);
    unsigned long h = name_hash(ran), lo, hi;
    PMPI_Allreduce(&h, &lo, 1, MPI_UNSIGNED_LONG, MPI_MIN, comm);
    PMPI_Allreduce(&h, &hi, 1, MPI_UNSIGNED_LONG, MPI_MAX, comm);
    CHECK(lo == hi, "%s of %lld bytes on %d ranks: the ranks ran different algorithms", coll,
          bytes, size);
    if (rank == 0)
        printf("site %d %s %lld %s trials=%ld cache=%d\n", size, coll, bytes, ran, trials,
               cache);
}

static void sites(MPI_Comm comm)
{
    static const int nd[] = {1, 100, 5000}, ni[] = {2, 1000, 25000};
    double *x = malloc(sizeof(double) * 5000), *got = malloc(sizeof(double) * 5000);
    double *want = malloc(sizeof(double) * 5000);
    int *buf = malloc(sizeof(int) * 25000);
    for (int k = 0; k < 3; k++)
        site(comm, "allreduce", nd[k], (int)sizeof(double), x, got, want);
    for (int k = 0; k < 3; k++)
        site(comm, "bcast", ni[k], (int)sizeof(int), buf, NULL, NULL);
    free(x);
    free(got);
    free(want);
    free(buf);
}

int main(int argc, char **argv)
{
    int p, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc != 4) {
        if (world_rank == 0)
            fprintf(stderr, "usage: online_app tune|cached|rules CALLS MAX_TRIALS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    mode = argv[1];
    calls = atoi(argv[2]);
    max_trials = atoi(argv[3]);
    tune_site = (site_fn)(void (*)(void))dlsym(RTLD_DEFAULT, "CX_Tune_site");
    alg_calls = (calls_fn)(void (*)(void))dlsym(RTLD_DEFAULT, "CX_Algorithm_calls");
    alg_count = (count_fn)(void (*)(void))dlsym(RTLD_DEFAULT, "CX_Algorithm_count");
    alg_name = (name_fn)(void (*)(void))dlsym(RTLD_DEFAULT, "CX_Algorithm_name");
    if (!tune_site || !alg_calls || !alg_count || !alg_name) {
        if (world_rank == 0)
            fprintf(stderr, "online_app: collx is not preloaded\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank == p - 1, world_rank, &sub);
    sites(MPI_COMM_WORLD);
    sites(sub);
    MPI_Comm_free(&sub);
    PMPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0 && !total)
        printf("online app: OK\n");
    MPI_Finalize();
    return total ? 1 : 0;
}
