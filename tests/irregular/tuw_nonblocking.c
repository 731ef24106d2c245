/* CX_Igatherv / CX_Iscatterv with tuw return before the tree is built:
 * the construction runs inside the schedule. Proof without clocks: the
 * last rank (a fixed root at every level, so everybody's construction
 * depends on it) calls CX_Igatherv only after every other rank has
 * returned from its own CX_Igatherv and told it so. If the call blocked on
 * the construction, this would deadlock (the test has a TIMEOUT). Then
 * the result is checked. */
#include <stdio.h>
#include <stdlib.h>
#include "collx.h"

static int check(int rank, int p, int root, const int *got, const int *counts,
                 const int *displs, int scatter, int mine_n, const int *mine)
{
    int bad = 0;
    if (scatter) {
        for (int j = 0; j < mine_n; j++)
            bad |= mine[j] != rank * 1000 + j;
    } else if (rank == root) {
        for (int i = 0; i < p; i++)
            for (int j = 0; j < counts[i]; j++)
                bad |= got[displs[i] + j] != i * 1000 + j;
    }
    return bad;
}

int main(int argc, char **argv)
{
    int rank, p, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm data, signal;
    MPI_Comm_dup(MPI_COMM_WORLD, &data);
    MPI_Comm_dup(MPI_COMM_WORLD, &signal);
    int *counts = malloc(sizeof(int) * p), *displs = malloc(sizeof(int) * p), total = 0;
    for (int i = 0; i < p; i++) {
        counts[i] = (i * 7) % 5 + 1;
        displs[i] = total;
        total += counts[i];
    }
    int *all = calloc((size_t)total, sizeof(int)), *mine = malloc(sizeof(int) * 8);
    CX_Algorithm_set("gatherv", "tuw");
    CX_Algorithm_set("scatterv", "tuw");
    /* The first collx call on a communicator sets up collx's state there
     * (a collective MPI_Comm_dup): not part of what is tested. */
    int *zeros = calloc((size_t)p, sizeof(int));
    CX_Gatherv(all, 0, MPI_INT, all, zeros, zeros, MPI_INT, 0, data);
    free(zeros);
    for (int scatter = 0; scatter < 2; scatter++) {
        int root = scatter ? 0 : p / 2, last = p - 1, token = 0;
        for (int j = 0; j < counts[rank]; j++)
            mine[j] = scatter ? -1 : rank * 1000 + j;
        for (int i = 0; i < p && (scatter ? rank == root : 1); i++)
            for (int j = 0; j < counts[i]; j++)
                all[displs[i] + j] = scatter ? i * 1000 + j : -1;
        CX_Request req;
        if (rank == last)   /* everybody else is already past the call */
            for (int i = 0; i < p - 1; i++)
                MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 0, signal, MPI_STATUS_IGNORE);
        int err = scatter
            ? CX_Iscatterv(all, counts, displs, MPI_INT, mine, counts[rank], MPI_INT,
                           root, data, &req)
            : CX_Igatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT,
                          root, data, &req);
        if (rank != last)
            MPI_Send(&token, 1, MPI_INT, last, 0, signal);
        if (!err)
            err = CX_Wait(&req);
        bad |= err != MPI_SUCCESS;
        bad |= check(rank, p, root, all, counts, displs, scatter, counts[rank], mine);
        if (bad)
            printf("FAIL rank %d: %s (err %d)\n", rank, scatter ? "Iscatterv" : "Igatherv",
                   err);
    }
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("tuw nonblocking: %s\n", any ? "FAILED" : "OK");
    MPI_Comm_free(&data);
    MPI_Comm_free(&signal);
    free(counts);
    free(displs);
    free(all);
    free(mine);
    MPI_Finalize();
    return any;
}
