/* An ordinary MPI-4 program with large-count collectives (MPI_<Name>_c,
 * MPI_I<name>_c, MPI_<Name>_init_c) that knows nothing of collx (plain
 * mpicc): the tests run it under LD_PRELOAD=libcollx_pmpi.so with
 * algorithms selected, so that collx serves the _c calls (their counts
 * fit in an int), and check its own results. Without MPI-4 (Open MPI 4.1)
 * it says so and fails: the test exists only where the MPI has them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, p, bad;

static void expect(const char *what, long got, long want)
{
    if (got != want && bad++ < 10)
        printf("rank %d: %s: got %ld, want %ld\n", rank, what, got, want);
}

#if MPI_VERSION >= 4
static void calls(void)
{
    int n = 3000, root = p - 1;
    int *x = malloc(sizeof(int) * n), *y = malloc(sizeof(int) * n);
    MPI_Count *counts = malloc(sizeof(MPI_Count) * p);
    MPI_Aint *displs = malloc(sizeof(MPI_Aint) * p);
    int *g = malloc(sizeof(int) * (size_t)p * (p + 2)), mine[64];
    for (int i = 0; i < n; i++)
        x[i] = rank + i;
    MPI_Allreduce_c(x, y, (MPI_Count)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; i += 37)
        expect("MPI_Allreduce_c", y[i], (long)p * (p - 1) / 2 + (long)p * i);

    /* gatherv: rank i gives i+1 ints, placed in reverse order with gaps */
    for (int i = 0, d = 0; i < p; i++) {
        counts[i] = i + 1;
        displs[p - 1 - i] = d;
        d += p - i + 1;
    }
    for (int k = 0; k <= rank; k++)
        mine[k] = 100 * rank + k;
    MPI_Gatherv_c(mine, rank + 1, MPI_INT, g, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; rank == root && i < p; i++)
        for (int k = 0; k <= i; k++)
            expect("MPI_Gatherv_c", g[displs[i] + k], 100L * i + k);

    /* alltoallv, nonblocking: rank r sends j+1 ints to rank j */
    MPI_Count *sc = malloc(sizeof(MPI_Count) * p), *rc = malloc(sizeof(MPI_Count) * p);
    MPI_Aint *sd = malloc(sizeof(MPI_Aint) * p), *rd = malloc(sizeof(MPI_Aint) * p);
    int *a = malloc(sizeof(int) * (size_t)p * (p + 1)), *b = malloc(sizeof(int) * (size_t)p * (p + 1));
    for (int j = 0, d = 0; j < p; j++) {
        sc[j] = j + 1;
        sd[j] = d;
        for (int k = 0; k <= j; k++)
            a[d + k] = 1000 * rank + 10 * j + k;
        d += j + 1;
        rc[j] = rank + 1;
        rd[j] = (MPI_Aint)j * (rank + 1);
    }
    MPI_Request r;
    MPI_Ialltoallv_c(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int j = 0; j < p; j++)
        for (int k = 0; k <= rank; k++)
            expect("MPI_Ialltoallv_c", b[j * (rank + 1) + k], 1000L * j + 10 * rank + k);

    /* bcast, persistent, started twice with new data */
    MPI_Bcast_init_c(x, (MPI_Count)n, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    for (int it = 0; it < 2; it++) {
        for (int i = 0; i < n; i++)
            x[i] = rank == 0 ? 7 * i + it : -1;
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i += 41)
            expect("MPI_Bcast_init_c", x[i], 7L * i + it);
    }
    MPI_Request_free(&r);
    free(x);
    free(y);
    free(counts);
    free(displs);
    free(g);
    free(sc);
    free(rc);
    free(sd);
    free(rd);
    free(a);
    free(b);
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
#if MPI_VERSION >= 4
    calls();
#else
    bad = 1;
    if (rank == 0)
        printf("large app: this MPI has no large-count collectives\n");
#endif
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("large app: %s\n", any ? "FAILED" : "OK");
    MPI_Finalize();
    return any != 0;
}
