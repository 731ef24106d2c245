/* --nodes: prints the node of every rank as collx sees it (internal API),
 * so a test under a fake layout fails when the layout is not applied. */
#include <stdio.h>
#include "cx_internal.h"
#include "contract.h"

void print_nodes(MPI_Comm comm)
{
    cx_comm *c;
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (cx_comm_get(comm, &c) || cx_comm_nodes(c)) {
        printf("FAIL rank %d: no node layout\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank != 0)
        return;
    printf("nodes:");
    for (int r = 0; r < c->size; r++)
        printf(" %d", c->node_of[r]);
    printf("\n");
    fflush(stdout);
}
