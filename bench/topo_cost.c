/* The cost of learning the topology: the first topo call on a
 * communicator measures the node distances (leaders' tournament
 * ping-pong); compared with one allgather of BYTES per rank (native).
 * Prints one CSV row: placement,nodes,p,measure_s,pairs,allgather_bytes,
 * allgather_s,ratio.   topo_cost [BYTES] [PLACEMENT-LABEL] */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "collx.h"
#include "collx_tools.h"
#ifdef CB_SMPI
#include <smpi/smpi.h>
#define BIG_ALLOC(n) SMPI_SHARED_MALLOC(n)   /* contents do not matter */
#define BIG_FREE(p) SMPI_SHARED_FREE(p)
#else
#define BIG_ALLOC(n) malloc(n)
#define BIG_FREE(p) free(p)
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    long bytes = argc > 1 ? atol(argv[1]) : 2097152;
    const char *label = argc > 2 ? argv[2] : "";
    MPI_Comm reordered;
    int nodes, pairs;
    double cost;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (CX_Comm_reorder(MPI_COMM_WORLD, "ring", &reordered) ||
        CX_Topo_cost(MPI_COMM_WORLD, &nodes, &pairs, &cost))
        MPI_Abort(MPI_COMM_WORLD, 1);
    double first = MPI_Wtime() - t0;
    char *in = BIG_ALLOC((size_t)bytes), *out = BIG_ALLOC((size_t)bytes * p);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    MPI_Allgather(in, (int)bytes, MPI_BYTE, out, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
    double ag = MPI_Wtime() - t0, ag_max = 0;
    MPI_Reduce(&ag, &ag_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("placement,nodes,p,measure_s,pairs,allgather_bytes,allgather_s,ratio\n");
        printf("%s,%d,%d,%.6f,%d,%ld,%.6f,%.4f\n", label, nodes, p, cost, pairs, bytes,
               ag_max, cost / ag_max);
        fprintf(stderr, "topo_cost: p=%d, %d nodes: measuring %.6f s (first reorder "
                "call %.6f s) = %.3f allgathers of %ld B (%.6f s)\n", p, nodes, cost, first,
                cost / ag_max, bytes, ag_max);
    }
    BIG_FREE(in);
    BIG_FREE(out);
    MPI_Comm_free(&reordered);
    MPI_Finalize();
    return 0;
}
