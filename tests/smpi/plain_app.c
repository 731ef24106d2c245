/* A plain MPI program that knows nothing of collx (no collx header, no
 * CX_ call): built with collx-smpicc it runs collx's algorithms for its
 * collectives under SMPI (tests/smpi/CMakeLists.txt says which). Each
 * collective checks its own result; the last line says how many failed.
 *   MPI_Allreduce   sum, and a non-commutative user operation
 *   MPI_Ialltoallv  uneven counts, waited for in one MPI_Waitall with a
 *                   point-to-point pair (ring neighbours)
 *   MPI_Iallreduce  completed by an MPI_Test loop
 *   MPI_Bcast
 *   MPI_Scan, MPI_Exscan  sum, and the non-commutative operation
 *   MPI_Waitall     2(p-1) point-to-point requests and a null one, with
 *                   statuses
 *   MPI_<Name>_init where the MPI has MPI-4's persistent collectives
 * "plain_app scans": the scans alone (in SMPI native's stand-in: at 1024
 * ranks SMPI's own would take minutes of host time each).
 * "plain_app alltoall": MPI_Alltoall of 1 KiB blocks, out of place and
 * in place (from 128 ranks native's stand-in in SMPI: SMPI's own posts
 * every exchange at once, tens of minutes of host time at 256 ranks). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fails++;                                                           \
            fprintf(stderr, __VA_ARGS__);                                      \
        }                                                                      \
    } while (0)

/* x o y = x: the reduction in MPI's canonical order gives rank 0's value. */
static void first(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = ((int *)in)[i];
}

/* What rank r sends rank d in the alltoallv: (r + d) % 3 ints. */
static int count_of(int r, int d) { return (r + d) % 3; }

static void alltoallv(int rank, int p, int iters)
{
    int *sc = malloc(sizeof(int) * (size_t)p), *sd = malloc(sizeof(int) * (size_t)p);
    int *rc = malloc(sizeof(int) * (size_t)p), *rd = malloc(sizeof(int) * (size_t)p);
    int ns = 0, nr = 0;
    for (int d = 0; d < p; d++) {
        sc[d] = count_of(rank, d), sd[d] = ns, ns += sc[d];
        rc[d] = count_of(d, rank), rd[d] = nr, nr += rc[d];
    }
    int *sb = malloc(sizeof(int) * (size_t)(ns + 1)), *rb = malloc(sizeof(int) * (size_t)(nr + 1));
    for (int it = 0; it < iters; it++) {
        for (int d = 0; d < p; d++)
            for (int k = 0; k < sc[d]; k++)
                sb[sd[d] + k] = 1000 * rank + 10 * d + k + it;
        int token = rank, got = -1;
        MPI_Request req[3];
        MPI_Irecv(&got, 1, MPI_INT, (rank + p - 1) % p, 7, MPI_COMM_WORLD, &req[0]);
        MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(&token, 1, MPI_INT, (rank + 1) % p, 7, MPI_COMM_WORLD, &req[2]);
        MPI_Waitall(3, req, MPI_STATUSES_IGNORE);
        CHECK(got == (rank + p - 1) % p, "rank %d: ring token %d\n", rank, got);
        for (int s = 0; s < p; s++)
            for (int k = 0; k < rc[s]; k++)
                CHECK(rb[rd[s] + k] == 1000 * s + 10 * rank + k + it,
                      "rank %d: alltoallv from %d [%d] = %d\n", rank, s, k, rb[rd[s] + k]);
    }
    free(sc), free(sd), free(rc), free(rd), free(sb), free(rb);
}

/* Inclusive and exclusive, a sum and the non-commutative operation. */
static void scans(int rank)
{
    MPI_Op op;
    int x = rank + 1, sum = 0;
    MPI_Scan(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == (rank + 1) * (rank + 2) / 2, "rank %d: scan %d\n", rank, sum);
    MPI_Exscan(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rank == 0 || sum == rank * (rank + 1) / 2, "rank %d: exscan %d\n", rank, sum);
    MPI_Op_create(first, 0, &op);
    int y = 10 + rank, z = -1;
    MPI_Scan(&y, &z, 1, MPI_INT, op, MPI_COMM_WORLD);
    CHECK(z == 10, "rank %d: non-commutative scan %d\n", rank, z);
    z = -1;
    MPI_Exscan(&y, &z, 1, MPI_INT, op, MPI_COMM_WORLD);
    CHECK(rank == 0 || z == 10, "rank %d: non-commutative exscan %d\n", rank, z);
    MPI_Op_free(&op);
}

/* Every rank sends its rank to every other; one MPI_Waitall with
 * statuses completes the receives, the sends and an MPI_REQUEST_NULL. */
static void waitall_many(int rank, int p)
{
    int n = 2 * (p - 1) + 1, k = 0;
    int *in = malloc(sizeof(int) * (size_t)p);
    MPI_Request *q = malloc(sizeof(MPI_Request) * (size_t)n);
    MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)n);
    q[k++] = MPI_REQUEST_NULL;
    for (int d = 0; d < p; d++)
        if (d != rank) {
            in[d] = -1;
            MPI_Irecv(&in[d], 1, MPI_INT, d, 100 + d, MPI_COMM_WORLD, &q[k++]);
            MPI_Isend(&rank, 1, MPI_INT, d, 100 + rank, MPI_COMM_WORLD, &q[k++]);
        }
    CHECK(MPI_Waitall(n, q, st) == MPI_SUCCESS, "rank %d: waitall failed\n", rank);
    for (int d = 0, j = 1; d < p; d++)   /* q[j]: d's receive */
        if (d != rank) {
            int cnt = -1;
            MPI_Get_count(&st[j], MPI_INT, &cnt);
            CHECK(in[d] == d && st[j].MPI_SOURCE == d && st[j].MPI_TAG == 100 + d && cnt == 1,
                  "rank %d: waitall receive from %d: %d (source %d tag %d count %d)\n", rank,
                  d, in[d], st[j].MPI_SOURCE, st[j].MPI_TAG, cnt);
            j += 2;
        }
    for (int i = 0; i < n; i++)
        CHECK(q[i] == MPI_REQUEST_NULL, "rank %d: request %d not freed\n", rank, i);
    free(in), free(q), free(st);
}

static void every_call(int rank, int p)
{
    int n = 1000;
    int *v = malloc(sizeof(int) * (size_t)n), *w = malloc(sizeof(int) * (size_t)n);

    for (int it = 0; it < 3; it++) {
        for (int i = 0; i < n; i++)
            v[i] = rank + i + it;
        MPI_Allreduce(v, w, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            CHECK(w[i] == p * (p - 1) / 2 + p * (i + it), "rank %d: allreduce[%d] = %d\n",
                  rank, i, w[i]);
    }

    MPI_Op op;
    MPI_Op_create(first, 0, &op);
    for (int i = 0; i < n; i++)
        v[i] = 100 * rank + i;
    MPI_Allreduce(v, w, n, MPI_INT, op, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        CHECK(w[i] == i, "rank %d: non-commutative allreduce[%d] = %d\n", rank, i, w[i]);
    MPI_Op_free(&op);

    alltoallv(rank, p, 2);

    MPI_Request r;
    int flag = 0, x = rank + 1, sum = 0;
    MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    while (!flag)
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    CHECK(sum == p * (p + 1) / 2, "rank %d: iallreduce %d\n", rank, sum);

    for (int i = 0; i < n; i++)
        v[i] = rank == 1 % p ? 3 * i : -1;
    MPI_Bcast(v, n, MPI_INT, 1 % p, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        CHECK(v[i] == 3 * i, "rank %d: bcast[%d] = %d\n", rank, i, v[i]);

    scans(rank);
    waitall_many(rank, p);

#if MPI_VERSION >= 4
    for (int i = 0; i < n; i++)
        v[i] = rank;
    MPI_Allreduce_init(v, w, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    for (int it = 0; it < 2; it++) {
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK(w[0] == p * (p - 1) / 2, "rank %d: persistent allreduce %d\n", rank, w[0]);
    }
    MPI_Request_free(&r);
#endif
    free(v), free(w);
}

static void alltoall(int rank, int p)
{
    enum { n = 256 };   /* ints per block: 1 KiB */
    int *sb = malloc(sizeof(int) * n * (size_t)p), *rb = malloc(sizeof(int) * n * (size_t)p);
    for (int pass = 0; pass < 2; pass++) {
        int *out = pass ? rb : sb;
        for (int d = 0; d < p; d++)
            for (int k = 0; k < n; k++)
                out[d * n + k] = (rank * p + d) * n + k;
        MPI_Alltoall(pass ? MPI_IN_PLACE : sb, n, MPI_INT, rb, n, MPI_INT, MPI_COMM_WORLD);
        int wrong = 0;
        for (int s = 0; s < p; s++)
            for (int k = 0; k < n; k++)
                wrong += rb[s * n + k] != (s * p + rank) * n + k;
        CHECK(!wrong, "rank %d: alltoall (%s): %d wrong\n", rank, pass ? "in place" : "out of place",
              wrong);
    }
    free(sb), free(rb);
}

int main(int argc, char **argv)
{
    int rank, p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc > 1 && strcmp(argv[1], "scans") == 0)
        scans(rank);
    else if (argc > 1 && strcmp(argv[1], "alltoall") == 0)
        alltoall(rank, p);
    else
        every_call(rank, p);

    int all = 0;
    MPI_Reduce(&fails, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("plain_app: %d ranks, %d failed checks\n", p, all);
    MPI_Finalize();
    return all != 0;
}
