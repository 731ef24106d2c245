/* The MPI face of collx's calls: one collective through the interposer
 * (run under LD_PRELOAD=libcollx_pmpi.so with an algorithm selected, e.g.
 * COLLX_ALLREDUCE_ALGORITHM=recursive_doubling) as a blocking call, as
 * MPI_I<coll> + MPI_Wait and as a start of a persistent call (MPI-4's
 * MPI_<Coll>_init, Open MPI's MPIX_<Coll>_init) + MPI_Wait, timed side by
 * side in alternating blocks of calls; the result of each form is
 * checked. Prints us per call, the fastest block and the median block.
 *
 * usage: mpi_face [--coll allreduce|bcast] [--bytes N] [--calls N] [--blocks B] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#if defined(OPEN_MPI) && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

#if defined(MPICH) && MPI_VERSION >= 4
#define INIT(N) MPI_##N##_init
#elif defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5  /* MPI_VERSION 3 */
#define INIT(N) MPI_##N##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define INIT(N) MPIX_##N##_init
#endif

enum { BLOCKING, NONBLOCKING, PERSISTENT, FORMS };
static const char *const form_name[FORMS] = {"blocking", "I+Wait", "Start+Wait"};

typedef struct {
    int bcast, n, rank, size;
    double *in, *out;
    MPI_Request plan;
} bench;

static void call(bench *b, int form)
{
    MPI_Request q;
    if (form == PERSISTENT) {
        MPI_Start(&b->plan);
        MPI_Wait(&b->plan, MPI_STATUS_IGNORE);
    } else if (b->bcast) {
        if (form == BLOCKING)
            MPI_Bcast(b->out, b->n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        else
            MPI_Ibcast(b->out, b->n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &q);
    } else {
        if (form == BLOCKING)
            MPI_Allreduce(b->in, b->out, b->n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Iallreduce(b->in, b->out, b->n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
    }
    if (form == NONBLOCKING)
        MPI_Wait(&q, MPI_STATUS_IGNORE);
}

/* Element i after a call: bcast gives the root's, allreduce the sum. */
static int checked(bench *b, int form)
{
    for (int i = 0; i < b->n; i++) {
        b->in[i] = b->rank + i % 7;
        b->out[i] = b->bcast && b->rank == 0 ? i % 5 : -1;
    }
    call(b, form);
    int bad = 0;
    for (int i = 0; i < b->n && !bad; i++) {
        double want = b->bcast ? i % 5 : (double)b->size * (b->size - 1) / 2 + b->size * (i % 7);
        bad = b->out[i] != want;
    }
    return bad;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    bench b = {0};
    long bytes = 8, calls = 200, blocks = 21;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.size);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--coll"))
            b.bcast = !strcmp(argv[i + 1], "bcast");
        else if (!strcmp(argv[i], "--bytes"))
            bytes = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--calls"))
            calls = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--blocks"))
            blocks = atol(argv[i + 1]);
    }
    b.n = (int)(bytes / 8 > 0 ? bytes / 8 : 1);
    b.in = calloc((size_t)b.n, sizeof *b.in);
    b.out = calloc((size_t)b.n, sizeof *b.out);
    int forms = PERSISTENT;
#ifdef INIT
    if (b.bcast)
        INIT(Bcast)(b.out, b.n, MPI_DOUBLE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &b.plan);
    else
        INIT(Allreduce)(b.in, b.out, b.n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                        MPI_INFO_NULL, &b.plan);
    forms = FORMS;
#endif
    int bad = 0;
    for (int f = 0; f < forms; f++)
        bad += checked(&b, f);
    double *t = malloc(sizeof *t * (size_t)(FORMS * blocks));
    for (long k = 0; k < blocks; k++)
        for (int f = 0; f < forms; f++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double since = MPI_Wtime();
            for (long i = 0; i < calls; i++)
                call(&b, f);
            double mine = (MPI_Wtime() - since) / (double)calls * 1e6, slowest;
            MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            t[f * blocks + k] = slowest;
        }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (b.rank == 0) {
        printf("mpi_face %s p=%d %ld bytes, us per call (fastest block / median block):",
               b.bcast ? "bcast" : "allreduce", b.size, (long)b.n * 8);
        for (int f = 0; f < forms; f++) {
            qsort(t + f * blocks, (size_t)blocks, sizeof *t, by_value);
            printf("  %s %.2f / %.2f", form_name[f], t[f * blocks], t[f * blocks + blocks / 2]);
        }
        printf("\nmpi_face: results %s\n", bad ? "WRONG" : "OK");
    }
#ifdef INIT
    MPI_Request_free(&b.plan);
#endif
    free(t);
    free(b.in);
    free(b.out);
    MPI_Finalize();
    return bad != 0;
}
