/* proxy_app: the communication skeleton of a spectral/Krylov solver, for
 * the profile -> tune -> run cycle (bench/README.md, "proxy_app"). P ranks
 * form R rows x C columns, a row = C consecutive ranks (one node under
 * block placement), a column = the ranks at one position of their rows.
 * Per iteration: compute (a sleep), the transpose (alltoall in each row),
 * an allgather in each column, two dot products and one vector allreduce
 * on all ranks, and every 5th iteration a bcast from rank 0. Every result
 * is checked (pa_data.c); rank 0 prints one line with the slowest rank's
 * loop time and time inside the collectives.
 *
 * A plain MPI program for a real MPI (collx through the interposer or
 * collxrun). Built with PA_LINKED for SMPI (before collx-smpicc, its
 * interposer, there was no other way): the measured collectives are
 * collx's CX_ calls, linked in. Bookkeeping
 * (grid, timings, the verdict) calls PMPI_, which neither the interposer
 * nor COLLX_STATS sees: the profile holds the skeleton's calls only. */
#define _POSIX_C_SOURCE 200809L /* nanosleep; SMPI simulates it (smpi_helpers.h) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "pa_data.h"
#include "pa_opts.h"

#ifdef PA_LINKED
#include "collx.h"
#define MPI_Allgather CX_Allgather
#define MPI_Allreduce CX_Allreduce
#define MPI_Alltoall CX_Alltoall
#define MPI_Bcast CX_Bcast
#endif

enum { K_ALLTOALL, K_ALLGATHER, K_ALLREDUCE, K_BCAST, K_KINDS };
static const char *const kind_name[K_KINDS] = {"alltoall", "allgather", "allreduce", "bcast"};

typedef struct {
    pa_opts o;
    int me, p, rows, cols;
    MPI_Comm row, col;
    long n_fft, n_gather, n_vec, n_bcast;   /* doubles */
    double *a2a_s, *a2a_r, *ag_s, *ag_r, *vec_s, *vec_r, *bc, *want;
    double t[K_KINDS];                       /* seconds inside each kind */
    long wrong, said;
} app;

#define TIMED(a, kind, call)                                                   \
    do {                                                                       \
        double t0_ = MPI_Wtime();                                              \
        call;                                                                  \
        (a)->t[kind] += MPI_Wtime() - t0_;                                     \
    } while (0)

/* Ranks per node, 0 if unknown or uneven: COLLX_RANKS_PER_NODE (collx's
 * fake layout), else the shared-memory split (in SMPI: by simulated host). */
static int ranks_per_node(void)
{
    const char *e = getenv("COLLX_RANKS_PER_NODE");
    if (e && *e) {
        char *end;
        long k = strtol(e, &end, 10);
        if (!*end && k >= 1 && k <= 1L << 24)
            return (int)k;
    }
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int n, range[2];
    MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
    range[0] = -n, range[1] = n;
    PMPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return -range[0] == range[1] ? n : 0;
}

static double *alloc(long n)
{
    double *x = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!x) {
        fprintf(stderr, "proxy_app: out of memory (%ld doubles)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return x;
}

static void setup(app *a)
{
    a->cols = a->p / a->rows;
    MPI_Comm_split(MPI_COMM_WORLD, a->me / a->cols, a->me, &a->row);
    MPI_Comm_split(MPI_COMM_WORLD, a->me % a->cols, a->me, &a->col);
    a->n_fft = a->o.fft / 8, a->n_gather = a->o.gather / 8;
    a->n_vec = a->o.vec / 8, a->n_bcast = a->o.bcast / 8;
    long most = a->n_fft * a->cols;
    most = most > a->n_gather * a->rows ? most : a->n_gather * a->rows;
    most = most > a->n_vec ? most : a->n_vec;
    most = most > a->n_bcast ? most : a->n_bcast;
    most = most > 2 ? most : 2;   /* a dot product */
    a->a2a_s = alloc(a->n_fft * a->cols), a->a2a_r = alloc(a->n_fft * a->cols);
    a->ag_s = alloc(a->n_gather), a->ag_r = alloc(a->n_gather * a->rows);
    a->vec_s = alloc(a->n_vec), a->vec_r = alloc(a->n_vec);
    a->bc = alloc(a->n_bcast), a->want = alloc(most);
}

/* Compares got with a->want; --corrupt damages the last rank's first
 * iteration first, so that the checks are seen to catch it. */
static void check(app *a, const char *what, double *got, long n, int it)
{
    if (a->o.corrupt && it == 0 && a->me == a->p - 1 && n > 0)
        got[n - 1] += 1;
    long k = pa_mismatch(got, a->want, n);
    if (k < 0)
        return;
    a->wrong++;
    if (a->said++ < 5)
        fprintf(stderr, "proxy_app: rank %d, iteration %d: %s: element %ld is %.17g, want %.17g\n",
                a->me, it, what, k, got[k], a->want[k]);
}

static void compute(long us)
{
    if (us <= 0)
        return;
    struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000};
    nanosleep(&ts, NULL);
}

static void dot(app *a, int which, const pa_where *w)
{
    double s[2], r[2];
    pa_dot_send(s, which, w);
    TIMED(a, K_ALLREDUCE, MPI_Allreduce(s, r, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    pa_dot_want(a->want, which, w);
    check(a, which ? "allreduce (dot 2)" : "allreduce (dot 1)", r, 2, w->it);
}

static void iteration(app *a, int it)
{
    pa_where w = {.me = a->me, .p = a->p, .cols = a->cols, .it = it};
    compute(a->o.compute_us);
    /* the transpose */
    pa_alltoall_send(a->a2a_s, a->n_fft, &w);
    TIMED(a, K_ALLTOALL, MPI_Alltoall(a->a2a_s, (int)a->n_fft, MPI_DOUBLE, a->a2a_r,
                                      (int)a->n_fft, MPI_DOUBLE, a->row));
    pa_alltoall_want(a->want, a->n_fft, &w);
    check(a, "alltoall", a->a2a_r, a->n_fft * a->cols, it);
    pa_allgather_send(a->ag_s, a->n_gather, &w);
    TIMED(a, K_ALLGATHER, MPI_Allgather(a->ag_s, (int)a->n_gather, MPI_DOUBLE, a->ag_r,
                                        (int)a->n_gather, MPI_DOUBLE, a->col));
    pa_allgather_want(a->want, a->n_gather, &w);
    check(a, "allgather", a->ag_r, a->n_gather * a->rows, it);
    /* a Krylov step: dot product, vector update, dot product */
    dot(a, 0, &w);
    pa_vec_send(a->vec_s, a->n_vec, &w);
    TIMED(a, K_ALLREDUCE, MPI_Allreduce(a->vec_s, a->vec_r, (int)a->n_vec, MPI_DOUBLE, MPI_SUM,
                                        MPI_COMM_WORLD));
    pa_vec_want(a->want, a->n_vec, &w);
    check(a, "allreduce (vector)", a->vec_r, a->n_vec, it);
    dot(a, 1, &w);
    if (it % 5 == 0) {
        if (a->me == 0)
            pa_bcast_data(a->bc, a->n_bcast, &w);
        else
            for (long k = 0; k < a->n_bcast; k++)
                a->bc[k] = -1;
        TIMED(a, K_BCAST, MPI_Bcast(a->bc, (int)a->n_bcast, MPI_DOUBLE, 0, MPI_COMM_WORLD));
        pa_bcast_data(a->want, a->n_bcast, &w);
        check(a, "bcast", a->bc, a->n_bcast, it);
    }
}

/* Rank 0's line (and --csv's two): slowest rank's loop and collective
 * times; the wrong results of all ranks. */
static void report(const app *a, double loop, long wrong)
{
    double mine[2 + K_KINDS] = {loop, 0}, most[2 + K_KINDS];
    for (int k = 0; k < K_KINDS; k++)
        mine[1] += a->t[k], mine[2 + k] = a->t[k];
    PMPI_Reduce(mine, most, 2 + K_KINDS, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (a->me != 0)
        return;
    double share = most[0] > 0 ? most[1] / most[0] : 0;
    printf("proxy_app: %d ranks, %d x %d, %d iterations, %.6f s, collectives %.6f s "
           "(share %.3f), ", a->p, a->rows, a->cols, a->o.iters, most[0], most[1], share);
    if (wrong)
        printf("FAILED (%ld wrong results)\n", wrong);
    else
        printf("OK\n");
    if (a->o.csv) {
        const char *plat = getenv("COLLX_PLATFORM");
        printf("platform,ranks,rows,cols,iters,fft_bytes,gather_bytes,vec_bytes,bcast_bytes,"
               "compute_us,loop_s,coll_s,share");
        for (int k = 0; k < K_KINDS; k++)
            printf(",%s_s", kind_name[k]);
        printf(",wrong\n%s,%d,%d,%d,%d,%ld,%ld,%ld,%ld,%ld,%.9g,%.9g,%.6f",
               plat && *plat ? plat : "real", a->p, a->rows, a->cols, a->o.iters, a->o.fft,
               a->o.gather, a->o.vec, a->o.bcast, a->o.compute_us, most[0], most[1], share);
        for (int k = 0; k < K_KINDS; k++)
            printf(",%.9g", most[2 + k]);
        printf(",%ld\n", wrong);
    }
    fflush(stdout);
}

/* Options and grid, the same on every rank: 0 to run, else the exit status. */
static int configure(app *a, int argc, char **argv)
{
    char err[256];
    if (pa_opts_parse(argc, argv, &a->o, err, sizeof err) != 0) {
        if (a->me == 0) {
            fprintf(stderr, "proxy_app: error: %s\n", err);
            pa_opts_usage(stderr);
        }
        return 2;
    }
    if (a->o.help) {
        if (a->me == 0)
            pa_opts_usage(stdout);
        return -1;
    }
    a->rows = a->o.rows ? a->o.rows : pa_default_rows(a->p, ranks_per_node());
    if (a->p % a->rows != 0) {
        if (a->me == 0)
            fprintf(stderr, "proxy_app: error: --rows %d does not divide %d ranks\n",
                    a->rows, a->p);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    app a = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &a.me);
    MPI_Comm_size(MPI_COMM_WORLD, &a.p);
    int rc = configure(&a, argc, argv);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 0 : rc;
    }
    setup(&a);
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < a.o.iters; it++)
        iteration(&a, it);
    double loop = MPI_Wtime() - t0;
    long wrong = 0;
    PMPI_Allreduce(&a.wrong, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    report(&a, loop, wrong);
    MPI_Comm_free(&a.row);
    MPI_Comm_free(&a.col);
    free(a.a2a_s), free(a.a2a_r), free(a.ag_s), free(a.ag_r);
    free(a.vec_s), free(a.vec_r), free(a.bc), free(a.want);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
