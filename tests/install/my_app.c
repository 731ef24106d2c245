/* The README quick start's "./my_app": a plain MPI program (no collx)
 * whose allreduce and bcast results it checks itself; prints
 * "my_app: OK" on rank 0 when every rank got the MPI's answer. */
#include <stdio.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static double x[1 << 16], y[1 << 16];
    for (int n = 1; n <= 1 << 16; n *= 16) {
        for (int i = 0; i < n; i++)
            x[i] = rank + i;
        MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            bad += y[i] != size * (size - 1) / 2.0 + (double)size * i;
        for (int i = 0; i < n; i++)
            x[i] = rank == 0 ? i : -1;
        MPI_Bcast(x, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            bad += x[i] != i;
    }
    int all = 0;
    MPI_Reduce(&bad, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("my_app: %s (%d ranks, %d wrong values)\n", all ? "WRONG" : "OK", size, all);
    MPI_Finalize();
    return all != 0;
}
