/* Whether the MPI's traffic between two nodes crosses the emulated links:
 * rank 0 sends BYTES to rank 1 (another node), which answers with one
 * byte; the best of 3 rounds gives the rate. Usage: linkrate BYTES MAX_MBIT
 * fails when the rate is above MAX_MBIT, i.e. faster than the shaped
 * link, so the data took another way (shared memory). */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || size != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: linkrate BYTES MAX_MBIT (on 2 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long bytes = atol(argv[1]);
    double max_mbit = atof(argv[2]), best = 1e30;
    char *buf = calloc((size_t)bytes, 1), host[MPI_MAX_PROCESSOR_NAME], peer[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(host, &len);
    MPI_Sendrecv(host, sizeof host, MPI_CHAR, 1 - rank, 0, peer, sizeof peer, MPI_CHAR, 1 - rank,
                 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int round = 0; round < 3; round++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        }
        t = MPI_Wtime() - t;
        best = t < best ? t : best;
    }
    double mbit = bytes * 8 / best / 1e6;
    int ok = mbit <= max_mbit;
    if (rank == 0)
        printf("linkrate %s -> %s: %ld bytes in %.3f s = %.2f Mbit/s (at most %g wanted): %s\n",
               host, peer, bytes, best, mbit, max_mbit, ok ? "OK" : "FAILED");
    free(buf);
    MPI_Finalize();
    return !ok;
}
