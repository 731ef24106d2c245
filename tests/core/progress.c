/* The progress agent's thread (COLLX_PROGRESS=thread, MPI_THREAD_MULTIPLE)
 * moves a CX_Ibcast on while its caller is blocked in plain MPI. Binomial
 * bcast from rank 0 at p=4: 0 -> 2 -> 3. Rank 2 blocks in MPI_Recv for a
 * message rank 3 sends only once its bcast has completed, which needs rank
 * 2 to forward: without a progress thread this deadlocks (TIMEOUT). */
#include <stdio.h>
#include <stdlib.h>
#include "collx.h"

int main(int argc, char **argv)
{
    int provided, rank, p, bad = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (provided != MPI_THREAD_MULTIPLE || p != 4) {
        if (rank == 0)
            printf("progress: FAILED (needs MPI_THREAD_MULTIPLE and 4 ranks; got level %d, "
                   "p=%d)\n", provided, p);
        MPI_Finalize();
        return 1;
    }
    MPI_Comm comm, side;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &side);
    CX_Algorithm_set("bcast", "binomial");
    const int n = 1 << 20;    /* above every eager limit */
    int *buf = malloc(sizeof(int) * n), token = 7;
    CX_Bcast(buf, 1, MPI_INT, 0, comm);   /* sets up collx's state on comm */
    for (int i = 0; i < n; i++)
        buf[i] = rank == 0 ? i ^ 0x5a5a : -1;
    CX_Request req;
    CX_Ibcast(buf, n, MPI_INT, 0, comm, &req);
    if (rank == 2)
        MPI_Recv(&token, 1, MPI_INT, 3, 0, side, MPI_STATUS_IGNORE);
    CX_Wait(&req);
    if (rank == 3)
        MPI_Send(&token, 1, MPI_INT, 2, 0, side);
    for (int i = 0; i < n; i++)
        bad |= buf[i] != (i ^ 0x5a5a);
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("progress: %s\n", any ? "FAILED (wrong data)" : "OK");
    free(buf);
    MPI_Comm_free(&side);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return any;
}
