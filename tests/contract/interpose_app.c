/* An ordinary MPI program that knows nothing of collx (plain mpicc, no
 * collx header or library): the interposer test runs it with
 * LD_PRELOAD=libcollx_pmpi.so. It checks its own results. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, bad;

static void expect(const char *what, int got, int want)
{
    if (got != want && bad++ < 10)
        printf("rank %d: %s: got %d, want %d\n", rank, what, got, want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int p = size, root = p - 1;
    int *counts = malloc(sizeof(int) * p), *displs = malloc(sizeof(int) * p);
    int *all = malloc(sizeof(int) * (size_t)p * (p + 1) * 2);
    int mine[64];
    /* Rank i contributes i+1 ints of value 100*i+k, placed in reverse order. */
    for (int i = 0, d = 0; i < p; i++) {
        counts[i] = i + 1;
        displs[p - 1 - i] = d;
        d += p - i;
    }
    for (int k = 0; k <= rank; k++)
        mine[k] = 100 * rank + k;

    MPI_Gatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, root,
                MPI_COMM_WORLD);
    if (rank == root)
        for (int i = 0; i < p; i++)
            for (int k = 0; k <= i; k++)
                expect("MPI_Gatherv", all[displs[i] + k], 100 * i + k);

    MPI_Allgatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT,
                   MPI_COMM_WORLD);
    for (int i = 0; i < p; i++)
        for (int k = 0; k <= i; k++)
            expect("MPI_Allgatherv", all[displs[i] + k], 100 * i + k);

    int x = rank == 0 ? 4242 : -1;
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    expect("MPI_Bcast", x, 4242);

    MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int i = 0; i < p; i++)
            expect("MPI_Gather", all[i], i);

    for (int i = 0; i < p; i++)
        all[i] = 10 * i;
    int got = -1;
    MPI_Scatter(all, 1, MPI_INT, &got, 1, MPI_INT, 0, MPI_COMM_WORLD);
    expect("MPI_Scatter", got, 10 * rank);

    int *in = malloc(sizeof(int) * p);
    for (int i = 0; i < p; i++)
        in[i] = rank + i;
    MPI_Reduce_scatter_block(in, &got, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect("MPI_Reduce_scatter_block", got, p * (p - 1) / 2 + p * rank);

    int total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("interpose app: %s\n", total ? "FAILED" : "OK");
    free(in);
    free(all);
    free(counts);
    free(displs);
    MPI_Finalize();
    return total ? 1 : 0;
}
