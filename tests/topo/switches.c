/* SMPI, two switches joined by one uplink (cse-2switch-30x8) with a
 * scattered or round-robin placement, or the emulated cluster of
 * tests/cluster (usage: switches [HOST...]: the hosts of the second switch;
 * default: the hosts named cseB*): the measured node distances separate
 * the switches (every pair across the uplink is farther than every pair
 * on one switch), the ring orders keep nodes whole and cross the uplink
 * only twice, the rd order keeps the last stage's partners on one node,
 * every rank holds the same orders, and the topo algorithms give the
 * native result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "topo.h"

static int rank, size, failures;
#define CHECK(c, ...)                                                           \
    do {                                                                        \
        if (!(c)) {                                                             \
            failures++;                                                         \
            printf("FAIL rank %d %s:%d: ", rank, __FILE__, __LINE__);           \
            printf(__VA_ARGS__);                                                \
            printf("\n");                                                       \
        }                                                                       \
    } while (0)

static int *sw;   /* switch of every rank: 0 = cseA, 1 = cseB */

static int changes(const int *o, const int *key, int closed)
{
    int c = 0;
    for (int v = 1; v < size + closed; v++)
        c += key[o[v % size]] != key[o[v - 1]];
    return c;
}

static void same_as_rank0(const int *o, const char *what)
{
    int *z = malloc(sizeof(int) * size);
    memcpy(z, o, sizeof(int) * size);
    MPI_Bcast(z, size, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(!memcmp(z, o, sizeof(int) * size), "%s differs from rank 0's", what);
    free(z);
}

/* alg of coll against PMPI_ (ints; sum for reductions). */
static void check(const char *coll, const char *alg)
{
    enum { N = 5000 };   /* above the eager limits */
    int *in = malloc(sizeof(int) * N), *got = calloc((size_t)N * size, sizeof(int));
    int *want = calloc((size_t)N * size, sizeof(int)), *counts = malloc(sizeof(int) * size);
    int *displs = malloc(sizeof(int) * size);
    for (int i = 0; i < N; i++)
        in[i] = rank * 7919 + i;
    for (int r = 0; r < size; r++)
        counts[r] = N, displs[r] = r * N;
    long before = CX_Algorithm_calls(coll, alg);
    CX_Algorithm_set(coll, alg);
    int root = size / 3, n = N;
    if (!strcmp(coll, "allgather")) {
        CX_Allgather(in, N, MPI_INT, got, N, MPI_INT, MPI_COMM_WORLD);
        PMPI_Allgather(in, N, MPI_INT, want, N, MPI_INT, MPI_COMM_WORLD);
        n = N * size;
    } else if (!strcmp(coll, "allgatherv")) {
        CX_Allgatherv(in, N, MPI_INT, got, counts, displs, MPI_INT, MPI_COMM_WORLD);
        PMPI_Allgatherv(in, N, MPI_INT, want, counts, displs, MPI_INT, MPI_COMM_WORLD);
        n = N * size;
    } else if (!strcmp(coll, "gather")) {
        CX_Gather(in, N, MPI_INT, got, N, MPI_INT, root, MPI_COMM_WORLD);
        PMPI_Gather(in, N, MPI_INT, want, N, MPI_INT, root, MPI_COMM_WORLD);
        n = rank == root ? N * size : 0;
    } else if (!strcmp(coll, "bcast")) {
        memcpy(got, in, sizeof(int) * N);
        memcpy(want, in, sizeof(int) * N);
        CX_Bcast(got, N, MPI_INT, root, MPI_COMM_WORLD);
        PMPI_Bcast(want, N, MPI_INT, root, MPI_COMM_WORLD);
    } else if (!strcmp(coll, "allreduce")) {
        CX_Allreduce(in, got, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Allreduce(in, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else {   /* reduce_scatter_block: N / size each */
        n = N / size;
        CX_Reduce_scatter_block(in, got, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Reduce_scatter_block(in, want, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    CX_Algorithm_set(coll, NULL);
    CHECK(!memcmp(got, want, sizeof(int) * n), "%s %s bytes", coll, alg);
    CHECK(CX_Algorithm_calls(coll, alg) == before + 1, "%s %s ran", coll, alg);
    free(in), free(got), free(want), free(counts), free(displs);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char name[MPI_MAX_PROCESSOR_NAME];
    int len, mine;
    MPI_Get_processor_name(name, &len);
    mine = argc < 2 && strncmp(name, "cseB", 4) == 0;
    for (int a = 1; a < argc; a++)
        mine |= strcmp(name, argv[a]) == 0;
    sw = malloc(sizeof(int) * size);
    MPI_Allgather(&mine, 1, MPI_INT, sw, 1, MPI_INT, MPI_COMM_WORLD);
    int both = 0;
    for (int r = 0; r < size; r++)
        both |= sw[r] != sw[0];

    cx_comm *c;
    cx_topo *t;
    CHECK(cx_comm_get(MPI_COMM_WORLD, &c) == 0 && cx_topo_get(c, &t) == 0, "topo state");
    if (rank == 0)
        printf("p=%d nodes=%d: %d node pairs measured in %.6f s\n", size, t->nn, t->pairs,
               t->cost);
    double same_max = 0, cross_min = 1e30;
    for (int i = 0; i < t->nn; i++)
        for (int j = 0; j < t->nn; j++) {
            if (i == j)
                continue;
            double d = t->node_dist[i * t->nn + j];
            int si = sw[c->node_leader[i]], sj = sw[c->node_leader[j]];
            if (si == sj)
                same_max = d > same_max ? d : same_max;
            else
                cross_min = d < cross_min ? d : cross_min;
        }
    CHECK(!both || same_max < cross_min, "one switch up to %g s, across from %g s",
          same_max, cross_min);
    for (int i = 0; rank == 0 && i < t->nn; i++) {   /* the matrix, in ms */
        printf("node %d (switch %s):", i, sw[c->node_leader[i]] ? "B" : "A");
        for (int j = 0; j < t->nn; j++)
            printf(" %8.3f", 1e3 * t->node_dist[i * t->nn + j]);
        printf("\n");
    }
    for (int h = 0; h < CX_TOPO_HEURISTICS; h++) {
        const int *ring = cx_topo_order_with(t, h, CX_TOPO_RING, 0);
        same_as_rank0(ring, "ring order");
        CHECK(changes(ring, c->node_of, 0) == t->nn - 1, "h%d ring: nodes whole", h);
        CHECK(changes(ring, sw, 1) == (both ? 2 : 0), "h%d ring crosses the uplink %d "
              "times", h, changes(ring, sw, 1));
        const int *rd = cx_topo_order_with(t, h, CX_TOPO_RD, 0);
        same_as_rank0(rd, "rd order");
        int top = 1;
        while (top * 2 < size)
            top *= 2;
        /* The greedy heuristic fills a node with partners of the last stages
         * when a node holds a power of two of ranks (uneven nodes, as the
         * emulated cluster's 3+3+2, cannot hold whole pairs). */
        int ppn = c->max_ranks_per_node, pow2 = c->uniform && !(ppn & (ppn - 1));
        for (int v = 0; v < size && (pow2 || (c->uniform && h == CX_TOPO_HIER)); v++)
            CHECK((v ^ top) >= size || c->node_of[rd[v]] == c->node_of[rd[v ^ top]],
                  "h%d rd: last stage %d-%d on one node", h, v, v ^ top);
    }
    check("allgather", "ring_topo");
    check("allgather", "rd_topo");
    check("allgatherv", "ring_topo");
    check("bcast", "binomial_topo");
    check("gather", "binomial_topo");
    check("allreduce", "rd_topo");
    check("allreduce", "rabenseifner_topo");
    check("reduce_scatter_block", "ring_topo");
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("topo switches p=%d: %s (%d failures)\n", size, all ? "FAILED" : "OK", all);
    free(sw);
    MPI_Finalize();
    return all != 0;
}
