/* A plain MPI program for the COLLX_STATS profile test (run_stats.py
 * --profile), run under LD_PRELOAD=libcollx_pmpi.so on 6 ranks:
 * collectives on communicators of four sizes at a few message sizes, the
 * calls uneven across ranks where the profile must keep the most any rank
 * made. What the profile must say is run_stats.py's expected_profile.
 *
 *   world (6):        3 allreduce of 8 doubles (64 B), 2 of 1000 (8000 B),
 *                     2 barrier, 1 alltoallv of one int per pair
 *   split (4 and 2):  ranks 0-3 and 4-5: 4 (of 4) or 5 (of 2) allreduce of
 *                     64 B, 1 of 8000 B; then 1 of 64 B on a duplicate (the
 *                     same members: the same row)
 *   self (1):         rank r makes r + 1 bcast of one int
 *   world:            1 reduce of one int (the failures, at rank 0)
 *
 * It checks its results and prints "profile app: OK" at rank 0.
 *
 * Built with PROFILE_LINKED for SMPI: the collectives are collx's CX_
 * calls, linked in (plain programs through the SMPI interposer:
 * tests/smpi). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef PROFILE_LINKED
#include "collx.h"
#define MPI_Allreduce CX_Allreduce
#define MPI_Alltoallv CX_Alltoallv
#define MPI_Barrier CX_Barrier
#define MPI_Bcast CX_Bcast
#define MPI_Reduce CX_Reduce
#endif

static int rank, size, bad;

static void expect(const char *what, double got, double want)
{
    if (got != want && bad++ < 10)
        printf("rank %d: %s: got %g, want %g\n", rank, what, got, want);
}

/* calls allreduce of n doubles on comm (of p ranks), checked. */
static void allreduces(MPI_Comm comm, int calls, int n)
{
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    double *x = malloc(sizeof(double) * (size_t)n), *sum = malloc(sizeof(double) * (size_t)n);
    for (int it = 0; it < calls; it++) {
        for (int i = 0; i < n; i++)
            x[i] = r + i + it;
        MPI_Allreduce(x, sum, n, MPI_DOUBLE, MPI_SUM, comm);
        expect("allreduce", sum[n - 1], (double)p * (n - 1 + it) + p * (p - 1) / 2.0);
    }
    free(x);
    free(sum);
}

static void alltoallv(void)
{
    int *one = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int *s = malloc(sizeof(int) * (size_t)size), *r = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        one[i] = 1, displs[i] = i, s[i] = 100 * rank + i;
    MPI_Alltoallv(s, one, displs, MPI_INT, r, one, displs, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        expect("alltoallv", r[i], 100 * i + rank);
    free(one), free(displs), free(s), free(r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    allreduces(MPI_COMM_WORLD, 3, 8);
    allreduces(MPI_COMM_WORLD, 2, 1000);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    alltoallv();
    MPI_Comm split, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 4 ? 0 : 1, rank, &split);
    allreduces(split, rank < 4 ? 4 : 5, 8);
    allreduces(split, 1, 1000);
    MPI_Comm_dup(split, &dup);
    allreduces(dup, 1, 8);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);
    for (int it = 0; it <= rank; it++) {
        int v = it;
        MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_SELF);
        expect("bcast (self)", v, it);
    }
    int all = 0;
    MPI_Reduce(&bad, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && !all)
        printf("profile app: OK\n");
    MPI_Finalize();
    return all != 0;
}
