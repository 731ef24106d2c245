/* The one-sided broadcasts across real nodes: rma_linear and rma_binomial
 * as MPI_Bcast (LL and descriptor sizes, two roots) against PMPI_Bcast,
 * and every rank must have decided alike: the same number of calls served
 * by the algorithm itself and handed to its fallback. Usage: rma served|fallback
 * (served: the algorithm ran at least once on every rank, e.g. MPICH;
 * fallback: never, e.g. Open MPI, which cannot create windows over TCP). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "collx.h"
#include "../common/check.h"

static int rank, size, failures;

static void bcasts(const char *alg, int want_served)
{
    static const int counts[] = {1, 1000, 100000};   /* ints: LL and descriptor */
    long served0 = CX_Algorithm_calls("bcast", alg);
    long left0 = CX_Algorithm_fallbacks("bcast", alg);
    CX_Algorithm_set("bcast", alg);
    for (int root = 0; root < size; root += size - 1) {
        for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
            int n = counts[i], *got = malloc(sizeof(int) * n), *want = malloc(sizeof(int) * n);
            for (int k = 0; k < n; k++)
                got[k] = want[k] = rank == root ? k * 31 + root : -1;
            CX_Bcast(got, n, MPI_INT, root, MPI_COMM_WORLD);
            PMPI_Bcast(want, n, MPI_INT, root, MPI_COMM_WORLD);
            CHECK(!memcmp(got, want, sizeof(int) * n), "%s root %d count %d: bytes differ",
                  alg, root, n);
            free(got), free(want);
        }
        if (size == 1)
            break;
    }
    CX_Algorithm_set("bcast", NULL);
    long mine[2] = {CX_Algorithm_calls("bcast", alg) - served0,
                    CX_Algorithm_fallbacks("bcast", alg) - left0};
    long *all = malloc(sizeof(long) * 2 * size);
    MPI_Allgather(mine, 2, MPI_LONG, all, 2, MPI_LONG, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        CHECK(all[2 * r] == all[0] && all[2 * r + 1] == all[1],
              "%s: rank %d served %ld and handed over %ld, rank 0 %ld and %ld", alg, r,
              all[2 * r], all[2 * r + 1], all[0], all[1]);
    CHECK(want_served ? mine[0] > 0 : mine[0] == 0, "%s served %ld calls itself, want %s",
          alg, mine[0], want_served ? "some" : "none");
    if (rank == 0)
        printf("rma %s: served %ld calls itself, left %ld to its fallback, on every rank alike\n",
               alg, all[0], all[1]);
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);   /* the drop-in needs no MPI_THREAD_MULTIPLE */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || (strcmp(argv[1], "served") && strcmp(argv[1], "fallback"))) {
        if (rank == 0)
            fprintf(stderr, "usage: rma served|fallback\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int want_served = !strcmp(argv[1], "served");
    bcasts("rma_linear", want_served);
    bcasts("rma_binomial", want_served);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("cluster rma p=%d (%s): %s (%d failures)\n", size, argv[1],
               all ? "FAILED" : "OK", all);
    MPI_Finalize();
    return all != 0;
}
