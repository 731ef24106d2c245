/* --nodes: prints the node of every rank as collx sees it (internal API),
 * so a test under a fake layout fails when the layout is not applied; and
 * the facts of the layout the algorithms' requirements are checked on. */
#include <stdio.h>
#include "persist/persist.h"
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

void node_facts(MPI_Comm comm, node_facts_t *f)
{
    cx_comm *c;
    if (cx_comm_get(comm, &c) || cx_comm_nodes(c)) {
        printf("FAIL: no node layout\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    *f = (node_facts_t){.nnodes = c->nnodes, .uniform = c->uniform,
                        .consecutive = c->consecutive,
                        .thread_multiple = c->thread_multiple};
}
