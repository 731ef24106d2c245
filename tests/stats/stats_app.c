/* A small MPI program for the COLLX_STATS tests (run_stats.py): 10
 * allreduce of N doubles with MPI_SUM, 2 allreduce of 4 ints with a
 * non-commutative user op, 3 bcast of 100 ints, 2 gatherv where rank r
 * sends r + 1 doubles to rank 0. It checks its own results and prints
 * "stats app: OK" at rank 0, nothing else.
 *
 * Built twice: stats_app is plain MPI (plain mpicc, no collx), run under
 * LD_PRELOAD=libcollx_pmpi.so; stats_app_linked calls CX_<Name> with
 * collx linked and adds 4 CX_Iallreduce + CX_Wait and 1 CX_Ibcast polled
 * with CX_Test (nonblocking calls, which the interposer does not see).
 *
 * The failures are summed at rank 0 by an MPI_Reduce (one more call),
 * except with `stats_app solo`: then rank 0 alone makes 5 allreduce of N
 * doubles on MPI_COMM_SELF, the others no collective call at all (the
 * failures go by messages), and the report at MPI_Finalize must not wait
 * for them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef STATS_LINKED
#include "collx.h"
#define ALLREDUCE CX_Allreduce
#define BCAST CX_Bcast
#define GATHERV CX_Gatherv
#else
#define ALLREDUCE MPI_Allreduce
#define BCAST MPI_Bcast
#define GATHERV MPI_Gatherv
#endif

#define N 1000         /* doubles per allreduce: 8000 bytes */
#define NC 4           /* ints per non-commutative allreduce */
#define NB 100         /* ints per bcast */

static int rank, size, bad;

static void expect(const char *what, double got, double want)
{
    if (got != want && bad++ < 10)
        printf("rank %d: %s: got %g, want %g\n", rank, what, got, want);
}

/* inout = in o inout with x o y = x: associative, not commutative; the
 * result of a reduction is rank 0's value. */
static void first(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = ((int *)in)[i];
}

/* 10 allreduce with MPI_SUM, 2 with a non-commutative op. */
static void allreduces(double *x, double *sum)
{
    for (int it = 0; it < 10; it++) {
        for (int i = 0; i < N; i++)
            x[i] = rank + i + it;
        ALLREDUCE(x, sum, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < N; i += 97)
            expect("allreduce", sum[i], (double)size * (i + it) + size * (size - 1) / 2.0);
    }
    MPI_Op op;
    MPI_Op_create(first, 0, &op);
    for (int it = 0; it < 2; it++) {
        int in[NC], out[NC];
        for (int i = 0; i < NC; i++)
            in[i] = 100 * rank + i + it;
        ALLREDUCE(in, out, NC, MPI_INT, op, MPI_COMM_WORLD);
        for (int i = 0; i < NC; i++)
            expect("allreduce (non-commutative)", out[i], i + it);
    }
    MPI_Op_free(&op);
}

static void bcasts(void)
{
    for (int it = 0; it < 3; it++) {
        int b[NB];
        for (int i = 0; i < NB; i++)
            b[i] = rank == 0 ? 7 * i + it : -1;
        BCAST(b, NB, MPI_INT, 0, MPI_COMM_WORLD);
        for (int i = 0; i < NB; i++)
            expect("bcast", b[i], 7 * i + it);
    }
}

/* 2 gatherv: rank r sends r + 1 doubles to rank 0. */
static void gathervs(double *x)
{
    double *all = malloc(sizeof(double) * (size_t)size * (size + 1));
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    for (int i = 0, d = 0; i < size; i++) {
        counts[i] = i + 1;
        displs[i] = d;
        d += i + 1;
    }
    for (int it = 0; it < 2; it++) {
        for (int k = 0; k <= rank; k++)
            x[k] = 10 * rank + k + it;
        GATHERV(x, rank + 1, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (int i = 0; rank == 0 && i < size; i++)
            for (int k = 0; k <= i; k++)
                expect("gatherv", all[displs[i] + k], 10 * i + k + it);
    }
    free(all);
    free(counts);
    free(displs);
}

#ifdef STATS_LINKED
/* 4 CX_Iallreduce + CX_Wait, 1 CX_Ibcast + CX_Test. */
static void nonblocking(double *x, double *sum)
{
    for (int it = 0; it < 4; it++) {
        CX_Request req;
        for (int i = 0; i < N; i++)
            x[i] = rank - i;
        CX_Iallreduce(x, sum, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        CX_Wait(&req);
        for (int i = 0; i < N; i += 97)
            expect("iallreduce", sum[i], size * (size - 1) / 2.0 - (double)size * i);
    }
    int b[NB], done = 0;
    CX_Request req;
    for (int i = 0; i < NB; i++)
        b[i] = rank == 0 ? 3 * i : -1;
    CX_Ibcast(b, NB, MPI_INT, 0, MPI_COMM_WORLD, &req);
    while (!done)
        CX_Test(&req, &done);
    for (int i = 0; i < NB; i++)
        expect("ibcast", b[i], 3 * i);
}
#endif

/* The failures of every rank, at rank 0: by MPI_Reduce, or by messages. */
static int failures(int by_messages)
{
    int total = bad;
    if (!by_messages) {
        MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    } else if (rank == 0) {
        for (int r = 1, n; r < size; r++) {
            MPI_Recv(&n, 1, MPI_INT, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += n;
        }
    } else {
        MPI_Send(&bad, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    return total;
}

/* Rank 0 alone: 5 allreduce on MPI_COMM_SELF. */
static void solo(double *x, double *sum)
{
    for (int it = 0; rank == 0 && it < 5; it++) {
        for (int i = 0; i < N; i++)
            x[i] = i + it;
        ALLREDUCE(x, sum, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
        for (int i = 0; i < N; i += 97)
            expect("allreduce (self)", sum[i], i + it);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *x = malloc(sizeof(double) * N), *sum = malloc(sizeof(double) * N);
    int alone = argc > 1 && strcmp(argv[1], "solo") == 0;
    if (alone) {
        solo(x, sum);
    } else {
        allreduces(x, sum);
        bcasts();
        gathervs(x);
#ifdef STATS_LINKED
        nonblocking(x, sum);
#endif
    }
    int all_bad = failures(alone);
    if (rank == 0 && !all_bad)
        printf("stats app: OK\n");
    free(x);
    free(sum);
    MPI_Finalize();
    return all_bad != 0;
}
