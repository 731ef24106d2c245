/* What a node's synchronization and collx's own work cost on these cores:
 * the numbers SMPI's model of a node phase is calibrated with (issue 61;
 * sim/README.md, "Node synchronization").
 *
 *   handoff   one-way latency of a flag between local ranks 0 and 1
 *             (ping-pong on two cache lines of node-shared memory)
 *   exchange  one flag exchange among the first L ranks of the node:
 *             each stores its sequence number (release) and waits until
 *             all L did (acquire) -- what a hierarchical call's node phase
 *             costs on one node (src/hier/small.c) -- for L = 2, 4, 8, ...
 *             and the node's size
 *   call      collx's own work in a call: CX_Bcast of 8 B with a collx
 *             algorithm (binomial) on MPI_COMM_SELF minus PMPI_Bcast there
 *
 * Run with one rank per core, bound (mpirun --bind-to core): an
 * oversubscribed node measures the scheduler. Prints a table, the
 * platform lines sim/platforms/NAME.cfg takes (collx:sync,
 * collx:sync_rank, collx:call; sim/run exports them as COLLX_SMPI_*),
 * and with --csv FILE the rows.
 *
 * usage: node_sync [--iters N] [--csv FILE] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "collx.h"

#define LINE 128   /* bytes between two ranks' flags */

static volatile uint64_t *flag_of(char *base, int local)
{
    return (volatile uint64_t *)(void *)(base + (size_t)local * LINE);
}

static double now(void) { return MPI_Wtime(); }

/* One-way latency: local rank 0 and 1 bounce a counter. */
static double handoff(MPI_Comm node, char *base, int iters)
{
    int me;
    MPI_Comm_rank(node, &me);
    MPI_Barrier(node);
    double t = now();
    if (me < 2) {
        volatile uint64_t *mine = flag_of(base, me), *peer = flag_of(base, 1 - me);
        for (uint64_t i = 1; i <= (uint64_t)iters; i++) {
            if (me == 0) {
                __atomic_store_n(mine, i, __ATOMIC_RELEASE);
                while (__atomic_load_n(peer, __ATOMIC_ACQUIRE) < i)
                    ;
            } else {
                while (__atomic_load_n(peer, __ATOMIC_ACQUIRE) < i)
                    ;
                __atomic_store_n(mine, i, __ATOMIC_RELEASE);
            }
        }
    }
    t = now() - t;
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, node);
    return t / (2.0 * iters);
}

/* Seconds per all-wait exchange among the first l ranks (seq continues
 * from *seq on every rank alike). */
static double exchange(MPI_Comm node, char *base, int l, int iters, uint64_t *seq)
{
    int me;
    MPI_Comm_rank(node, &me);
    MPI_Barrier(node);
    double t = now();
    if (me < l)
        for (int i = 0; i < iters; i++) {
            uint64_t s = ++*seq;
            __atomic_store_n(flag_of(base, me), s, __ATOMIC_RELEASE);
            for (int j = 0; j < l; j++)
                while (__atomic_load_n(flag_of(base, j), __ATOMIC_ACQUIRE) < s)
                    ;
        }
    else
        *seq += (uint64_t)iters;
    t = now() - t;
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, node);
    return t / iters;
}

/* Seconds of collx's own work per call (8 B bcast, binomial, on
 * MPI_COMM_SELF: no message, all engine). */
static double engine_call(int iters)
{
    double b = 0, best_cx = 1e9, best_mpi = 1e9;
    CX_Algorithm_set("bcast", "binomial");
    for (int rep = 0; rep < 5; rep++) {
        double t = now();
        for (int i = 0; i < iters; i++)
            CX_Bcast(&b, 1, MPI_DOUBLE, 0, MPI_COMM_SELF);
        t = now() - t;
        best_cx = t < best_cx ? t : best_cx;
        t = now();
        for (int i = 0; i < iters; i++)
            PMPI_Bcast(&b, 1, MPI_DOUBLE, 0, MPI_COMM_SELF);
        t = now() - t;
        best_mpi = t < best_mpi ? t : best_mpi;
    }
    return (best_cx - best_mpi) / iters;
}

int main(int argc, char **argv)
{
    int iters = 100000, rank, me, l_all;
    const char *csv = NULL;
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = argv[++i];
        else {
            fprintf(stderr, "usage: node_sync [--iters N] [--csv FILE]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &me);
    MPI_Comm_size(node, &l_all);
    char *base;
    MPI_Win win;
    MPI_Aint bytes = (MPI_Aint)l_all * LINE, size;
    int disp;
    MPI_Win_allocate_shared(me == 0 ? bytes : 0, 1, MPI_INFO_NULL, node, &base, &win);
    MPI_Win_shared_query(win, 0, &size, &disp, &base);
    if (me == 0)
        memset(base, 0, (size_t)bytes);
    MPI_Win_fence(0, win);
    FILE *out = NULL;
    if (rank == 0 && csv && !(out = fopen(csv, "w"))) {
        fprintf(stderr, "node_sync: cannot write %s\n", csv);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (out)
        fprintf(out, "metric,ranks,seconds\n");
    if (rank == 0)
        printf("# node_sync: %d ranks on rank 0's node, %d iterations\n", l_all, iters);
    double call = engine_call(iters / 10 > 0 ? iters / 10 : 1);
    if (rank == 0) {
        printf("call      %8.3f us  collx's own work per call (binomial bcast, 8 B, p=1)\n",
               call * 1e6);
        if (out)
            fprintf(out, "call,1,%.9g\n", call);
    }
    if (l_all < 2) {
        if (rank == 0)
            printf("# one rank per node: no handoff to measure\n");
        MPI_Win_free(&win);
        MPI_Finalize();
        return 0;
    }
    double h = handoff(node, base, iters);
    memset(base + (size_t)me * LINE, 0, LINE);   /* own line only */
    MPI_Barrier(node);
    if (rank == 0) {
        printf("handoff   %8.3f us  one way, local ranks 0 -> 1\n", h * 1e6);
        if (out)
            fprintf(out, "handoff,2,%.9g\n", h);
    }
    uint64_t seq = 0;
    double first = 0, last = 0;
    int lfirst = 2, llast = 2;
    for (int l = 2; l <= l_all; l = l < l_all && 2 * l > l_all ? l_all : 2 * l) {
        double t = exchange(node, base, l, iters, &seq);
        if (l == 2)
            first = t;
        last = t;
        llast = l;
        if (rank == 0) {
            printf("exchange  %8.3f us  %d ranks\n", t * 1e6, l);
            if (out)
                fprintf(out, "exchange,%d,%.9g\n", l, t);
        }
        if (l == l_all)
            break;
    }
    if (rank == 0) {
        double slope = llast > lfirst ? (last - first) / (llast - lfirst) : 0;
        printf("# for sim/platforms/NAME.cfg (sync: an exchange of 2 ranks; sync_rank: "
               "each rank more%s):\n", llast > 2 ? "" : ", not measured with 2");
        printf("collx:sync=%.3g\ncollx:sync_rank=%.3g\ncollx:call=%.3g\n", first, slope,
               call > 0 ? call : 0);
    }
    if (out)
        fclose(out);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
