/* On the emulated cluster, with no fake layout: the node layout collx
 * finds (MPI_COMM_TYPE_SHARED) is the hosts' (two ranks share a node if
 * and only if they share a hostname), and the node-shared segment is one
 * per host: what a node's first rank writes there its node's ranks read,
 * and no other node's write reaches it. Prints the layout:
 *   hosts: node0 node0 node0 node1 ...
 *   nodes: 0 0 0 1 ...          (collx's node of every rank) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "persist/persist.h"
#include "../common/check.h"

#define NAME_LEN 64
static int rank, size, failures;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char me[NAME_LEN] = {0}, *names = calloc((size_t)size, NAME_LEN);
    int len;
    MPI_Get_processor_name(me, &len);
    MPI_Allgather(me, NAME_LEN, MPI_CHAR, names, NAME_LEN, MPI_CHAR, MPI_COMM_WORLD);

    cx_comm *c;
    if (cx_comm_get(MPI_COMM_WORLD, &c) || cx_comm_nodes(c)) {
        printf("FAIL rank %d: no node layout\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int hosts = 0;
    for (int r = 0; r < size; r++) {
        int first = 1;
        for (int s = 0; s < size; s++) {
            int same_host = !strcmp(names + (size_t)r * NAME_LEN, names + (size_t)s * NAME_LEN);
            CHECK(same_host == (c->node_of[r] == c->node_of[s]),
                  "ranks %d (%s) and %d (%s): collx nodes %d and %d", r,
                  names + (size_t)r * NAME_LEN, s, names + (size_t)s * NAME_LEN,
                  c->node_of[r], c->node_of[s]);
            first &= !(same_host && s < r);
        }
        hosts += first;
    }
    CHECK(c->nnodes == hosts, "%d nodes for %d hosts", c->nnodes, hosts);

    /* The node's first rank writes its hostname into the segment; after
     * the node's barrier every rank of the node reads its own hostname. */
    char *seg;
    CHECK(cx_comm_shm(c, 4096, &seg) == MPI_SUCCESS, "no node-shared segment");
    if (seg && c->local_rank == 0)
        strcpy(seg, me);
    if (seg) {
        MPI_Win_sync(c->shm_win);
        MPI_Barrier(MPI_COMM_WORLD);   /* every node has written */
        MPI_Win_sync(c->shm_win);
        CHECK(!strcmp(seg, me), "segment holds '%.*s', my host is %s", NAME_LEN, seg, me);
    }

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("hosts:");
        for (int r = 0; r < size; r++)
            printf(" %s", names + (size_t)r * NAME_LEN);
        printf("\nnodes:");
        for (int r = 0; r < size; r++)
            printf(" %d", c->node_of[r]);
        printf("\ncluster nodes p=%d: %d nodes, one segment each: %s (%d failures)\n", size,
               c->nnodes, all ? "FAILED" : "OK", all);
    }
    free(names);
    MPI_Finalize();
    return all != 0;
}
