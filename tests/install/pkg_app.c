/* A program built with pkg-config (tests/install/pkgconfig.sh): one
 * CX_Allreduce; rank 0 prints "pkg_app: OK" when every rank got p. */
#include <stdio.h>
#include <collx.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, one = 1, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int err = CX_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int ok = err == MPI_SUCCESS && sum == size, all = 0;
    MPI_Reduce(&ok, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pkg_app: %s (%d ranks)\n", all == size ? "OK" : "WRONG", size);
    MPI_Finalize();
    return !ok;
}
