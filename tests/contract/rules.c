/* The rules file (COLLX_RULES): which algorithm each call runs, per message
 * size, communicator size and ranks per node, with results equal to PMPI_;
 * and a file that cannot be used makes the calls fail with MPI_ERR_ARG.
 *   rules good BCAST_ALG   (COLLX_RULES=rules/good.json)
 *   rules bad              (COLLX_RULES=a broken file) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "collx.h"

static int rank, size, fails;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "rules: rank %d: FAIL %s\n", rank, what);
        fails++;
    }
}

/* Runs CX_Gather with n ints per rank; returns the algorithm that ran. */
static const char *gather_with(int n)
{
    static const char *const algs[] = {"native", "linear", "binomial", "linear_sync"};
    long before[4];
    for (int i = 0; i < 4; i++)
        before[i] = CX_Algorithm_calls("gather", algs[i]);
    int *s = malloc(sizeof(int) * (size_t)n), *r = malloc(sizeof(int) * (size_t)n * size);
    int *ref = malloc(sizeof(int) * (size_t)n * size);
    for (int i = 0; i < n; i++)
        s[i] = rank * 1000003 + i;
    CX_Gather(s, n, MPI_INT, r, n, MPI_INT, size - 1, MPI_COMM_WORLD);
    PMPI_Gather(s, n, MPI_INT, ref, n, MPI_INT, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1)
        check(!memcmp(r, ref, sizeof(int) * (size_t)n * size), "gather result");
    free(s); free(r); free(ref);
    for (int i = 0; i < 4; i++)
        if (CX_Algorithm_calls("gather", algs[i]) != before[i])
            return algs[i];
    return "?";
}

static const char *gatherv_ran(void)
{
    long tuw = CX_Algorithm_calls("gatherv", "tuw");
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int total = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = i % 3;
        displs[i] = total;
        total += counts[i];
    }
    int mine[2] = {rank, -rank}, *r = malloc(sizeof(int) * (size_t)(total + 1));
    int *ref = malloc(sizeof(int) * (size_t)(total + 1));
    CX_Gatherv(mine, counts[rank], MPI_INT, r, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    PMPI_Gatherv(mine, counts[rank], MPI_INT, ref, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        check(!memcmp(r, ref, sizeof(int) * (size_t)total), "gatherv result");
    free(counts); free(displs); free(r); free(ref);
    return CX_Algorithm_calls("gatherv", "tuw") != tuw ? "tuw" : "other";
}

static const char *bcast_ran(void)
{
    long lin = CX_Algorithm_calls("bcast", "linear"), bin = CX_Algorithm_calls("bcast", "binomial");
    int v[3] = {0, 0, 0};
    if (rank == 1 % size)
        v[0] = 7, v[1] = 8, v[2] = 9;
    CX_Bcast(v, 3, MPI_INT, 1 % size, MPI_COMM_WORLD);
    check(v[0] == 7 && v[1] == 8 && v[2] == 9, "bcast result");
    return CX_Algorithm_calls("bcast", "linear") != lin ? "linear"
           : CX_Algorithm_calls("bcast", "binomial") != bin ? "binomial" : "other";
}

static void good(const char *bcast_alg)
{
    /* 256 ints = 1024 B: the first rule's upper bound, inclusive */
    check(!strcmp(gather_with(256), "binomial"), "gather 1024 B -> binomial");
    check(!strcmp(gather_with(257), "linear"), "gather 1028 B -> linear");
    check(!strcmp(gather_with(0), "binomial"), "gather 0 B -> binomial");
    check(!strcmp(gatherv_ran(), size >= 3 ? "tuw" : "other"), "gatherv by comm_size");
    check(!strcmp(bcast_ran(), bcast_alg), "bcast by ranks_per_node");
    /* explicit choice and the environment come before the rules */
    CX_Algorithm_set("gather", "linear_sync");
    check(!strcmp(gather_with(10), "linear_sync"), "CX_Algorithm_set before rules");
    CX_Algorithm_set("gather", NULL);
    check(!strcmp(CX_Algorithm_get("gather"), "native"), "CX_Algorithm_get ignores rules");
}

static void bad(void)
{
    int v = rank, all[64];
    check(CX_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_ERR_ARG, "bcast: MPI_ERR_ARG");
    check(CX_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD) == MPI_ERR_ARG,
          "allgather: MPI_ERR_ARG");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (argc > 2 && !strcmp(argv[1], "good"))
        good(argv[2]);
    else if (argc > 1 && !strcmp(argv[1], "bad") && size <= 64)
        bad();
    else
        check(0, "usage: rules good BCAST_ALG | rules bad");
    int all;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rules: %s\n", all ? "FAILED" : "OK");
    MPI_Finalize();
    return all != 0;
}
