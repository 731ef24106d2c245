/* tuw Gatherv/Scatterv (and Gather/Scatter) on Träff's six problem types
 * against PMPI_, on sub-communicators of sizes 1..17, 32, 33 (those that fit
 * in the world; or only the size given as argument), every root up to 17
 * ranks and 4 roots above.
 *
 * Non-root ranks pass NULL recvcounts/displs (gatherv) and NULL
 * sendcounts/displs (scatterv) to collx: the algorithm must never read them
 * there. Root buffers are laid out in rank order (in-place receive path) and
 * reversed with gaps (hindexed path); the root uses MPI_IN_PLACE in the
 * reversed layout. Every third case also runs CX_Igatherv/CX_Iscatterv.
 * COLLX_TUW_DIRECT_THRESHOLD set by the test forces degradation paths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "collx.h"
#include "problems.h"

static int errors;

static void check(int ok, const char *what, int n, int pr, int b, int root, int mode)
{
    if (!ok && errors++ < 10)
        fprintf(stderr, "FAIL %s p=%d %s b=%d root=%d mode=%d\n", what, n,
                pr_names[pr], b, root, mode);
}

static int val(int rank, int j) { return rank * 100003 + j + 1; }

/* Root layout: mode 0 = rank order, packed; mode 1 = reversed with gaps. */
static int layout(const int *m, int n, int mode, int *displs)
{
    int pos = 0;
    for (int k = 0; k < n; k++) {
        int i = mode ? n - 1 - k : k;
        displs[i] = pos;
        pos += m[i] + (mode ? 3 : 0);
    }
    return pos + 1;
}

static void one_case(MPI_Comm comm, int pr, int b, int root, int mode, int nb)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int *m = malloc(n * sizeof *m), *displs = malloc(n * sizeof *displs);
    pr_fill(pr, n, b, (unsigned long long)(root + 17 * b), m);
    int len = layout(m, n, mode, displs), is_root = rank == root;
    int in_place = is_root && mode == 1;
    int *mine = malloc((m[rank] + 1) * sizeof *mine);
    int *ref = malloc(len * sizeof *ref), *got = malloc(len * sizeof *got);
    for (int j = 0; j < m[rank]; j++)
        mine[j] = val(rank, j);
    for (int k = 0; k < len; k++)
        ref[k] = got[k] = -1;

    /* Gatherv. */
    if (in_place)
        for (int j = 0; j < m[rank]; j++)
            ref[displs[rank] + j] = got[displs[rank] + j] = val(rank, j);
    PMPI_Gatherv(in_place ? MPI_IN_PLACE : mine, m[rank], MPI_INT, ref, m, displs,
                 MPI_INT, root, comm);
    const int *rc = is_root ? m : NULL, *rd = is_root ? displs : NULL;
    const void *sb = in_place ? MPI_IN_PLACE : mine;
    if (nb) {
        CX_Request req;
        CX_Igatherv(sb, m[rank], MPI_INT, got, rc, rd, MPI_INT, root, comm, &req);
        CX_Wait(&req);
    } else {
        CX_Gatherv(sb, m[rank], MPI_INT, got, rc, rd, MPI_INT, root, comm);
    }
    check(!is_root || memcmp(ref, got, len * sizeof *ref) == 0, "gatherv", n, pr, b,
          root, mode);

    /* Scatterv: the root sends the gathered buffer back out. */
    int *rref = malloc((m[rank] + 1) * sizeof *rref);
    int *rgot = malloc((m[rank] + 1) * sizeof *rgot);
    for (int j = 0; j <= m[rank]; j++)
        rref[j] = rgot[j] = -2;
    PMPI_Scatterv(ref, m, displs, MPI_INT, in_place ? MPI_IN_PLACE : rref, m[rank],
                  MPI_INT, root, comm);
    void *rb = in_place ? MPI_IN_PLACE : rgot;
    if (nb) {
        CX_Request req;
        CX_Iscatterv(is_root ? ref : NULL, rc, rd, MPI_INT, rb, m[rank], MPI_INT, root,
                     comm, &req);
        CX_Wait(&req);
    } else {
        CX_Scatterv(is_root ? ref : NULL, rc, rd, MPI_INT, rb, m[rank], MPI_INT, root,
                    comm);
    }
    check(in_place || memcmp(rref, rgot, (m[rank] + 1) * sizeof *rref) == 0, "scatterv",
          n, pr, b, root, mode);
    free(m), free(displs), free(mine), free(ref), free(got), free(rref), free(rgot);
}

/* Regular gather/scatter with the rank-ordered tuw tree. */
static void regular_case(MPI_Comm comm, int b, int root)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int *mine = malloc((b + 1) * sizeof *mine), *all = malloc((n * b + 1) * sizeof *all);
    int *ref = malloc((n * b + 1) * sizeof *ref);
    for (int j = 0; j < b; j++)
        mine[j] = val(rank, j);
    for (int k = 0; k < n * b; k++)
        all[k] = ref[k] = -1;
    PMPI_Gather(mine, b, MPI_INT, ref, b, MPI_INT, root, comm);
    CX_Gather(mine, b, MPI_INT, all, b, MPI_INT, root, comm);
    check(rank != root || memcmp(ref, all, n * b * sizeof *ref) == 0, "gather", n, 0, b,
          root, 0);
    int *back = malloc((b + 1) * sizeof *back);
    for (int j = 0; j < b; j++)
        back[j] = -3;
    CX_Scatter(ref, b, MPI_INT, back, b, MPI_INT, root, comm);
    check(memcmp(back, mine, b * sizeof *back) == 0, "scatter", n, 0, b, root, 0);
    free(mine), free(all), free(ref), free(back);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                17, 32, 33, 64};
    static const int bs[] = {1, 10, 300};
    int wrank, wsize, cases = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const char *colls[] = {"gatherv", "scatterv", "gather", "scatter"};
    for (int c = 0; c < 4; c++)
        if (CX_Algorithm_set(colls[c], "tuw") != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        int n = argc > 1 ? atoi(argv[1]) : sizes[si]; /* argument: one size only */
        if (n > wsize || (argc > 1 && si > 0))
            break;
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, wrank < n, wrank, &comm);
        if (wrank < n) {
            int roots[] = {0, 1, n / 2, n - 1}, nroots = n <= 17 ? n : 4;
            for (int ri = 0; ri < nroots; ri++) {
                int root = n <= 17 ? ri : roots[ri];
                for (int pr = 0; pr < PR_COUNT; pr++)
                    for (size_t bi = 0; bi < sizeof bs / sizeof *bs; bi++, cases++)
                        one_case(comm, pr, bs[bi], root, (int)(bi + pr) % 2, cases % 3 == 0);
                regular_case(comm, 1 + root % 5, root);
            }
        }
        MPI_Comm_free(&comm);
    }
    int total;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("tuw problems: world %d, threshold %s: %d cases on rank 0, %d errors\n",
               wsize, getenv("COLLX_TUW_DIRECT_THRESHOLD") ? getenv("COLLX_TUW_DIRECT_THRESHOLD")
                                                           : "default", cases, total);
    MPI_Finalize();
    return total != 0;
}
