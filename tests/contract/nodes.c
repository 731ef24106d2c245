/* Node and leader communicators (internal API): with COLLX_RANKS_PER_NODE=k
 * ranks [jk, jk+k) form node j and the first rank of each node is its
 * leader; without it all ranks of this machine are one node. */
#include <stdio.h>
#include <stdlib.h>
#include "persist/persist.h"

int main(int argc, char **argv)
{
    int rank, size, bad = 0, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *v = getenv("COLLX_RANKS_PER_NODE");
    int k = v && atoi(v) > 0 ? atoi(v) : size;  /* one machine: one node */
    int node = rank / k, first = node * k;
    int want_node = size - first < k ? size - first : k;
    int want_leaders = (size + k - 1) / k;

    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    cx_comm *c;
    if (cx_comm_get(comm, &c) || cx_comm_nodes(c)) {
        printf("FAIL rank %d: cannot build node communicators\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int nsize = -1, nrank = -1, lsize = -1, lrank = -1;
    MPI_Comm_size(c->node, &nsize);
    MPI_Comm_rank(c->node, &nrank);
    if (nsize != want_node || nrank != rank - first) {
        printf("FAIL rank %d (k=%d, p=%d): node communicator size %d rank %d, "
               "want %d and %d\n", rank, k, size, nsize, nrank, want_node, rank - first);
        bad++;
    }
    int leader = rank == first;
    if (leader != (c->leaders != MPI_COMM_NULL)) {
        printf("FAIL rank %d: leader communicator %s\n", rank,
               leader ? "missing" : "present on a non-leader");
        bad++;
    } else if (leader) {
        MPI_Comm_size(c->leaders, &lsize);
        MPI_Comm_rank(c->leaders, &lrank);
        if (lsize != want_leaders || lrank != node) {
            printf("FAIL rank %d (k=%d, p=%d): leader communicator size %d rank %d, "
                   "want %d and %d\n", rank, k, size, lsize, lrank, want_leaders, node);
            bad++;
        }
    }
    /* A second call returns the cached communicators. */
    MPI_Comm before = c->node;
    if (cx_comm_nodes(c) || c->node != before) {
        printf("FAIL rank %d: cx_comm_nodes rebuilt the cached node communicator\n", rank);
        bad++;
    }
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("nodes: p=%d ranks per node %d: %s\n", size, k, total ? "FAILED" : "OK");
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return total ? 1 : 0;
}
