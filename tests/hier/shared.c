/* CX_<Name>_shared (the result left in node-shared memory) against the
 * PMPI_ call: bcast (every root), allgather, allgatherv (blocks back to
 * back, and reversed with gaps), allreduce (MPI_SUM and a non-commutative
 * user op), counts 0, 1, 17, 20000 ints, a derived receive type (served
 * through the per-communicator buffer), the result still valid after a
 * barrier, MPI_BOTTOM with datatypes of absolute addresses, and bad input
 * (MPI_IN_PLACE, NULL result).
 *
 * Usage: hier_shared [--zero-copy]: with --zero-copy (every node's ranks
 * consecutive), the calls that can be served in the segment must be:
 * consecutive calls alternate between the segment's two halves, so their
 * results lie at different addresses, and never in the fallback buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collx.h"
#include "../common/absolute.h"

static int rank, size, failures;
static const void *fallback_buf;   /* the per-communicator buffer, once seen */

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            failures++;                                                        \
            fprintf(stderr, "FAIL hier_shared rank %d: ", rank);               \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

static void same(const char *what, int n, const void *got, const void *want, size_t bytes)
{
    CHECK(got != NULL, "%s n=%d: NULL result", what, n);
    if (got && bytes)
        CHECK(memcmp(got, want, bytes) == 0, "%s n=%d: result differs from PMPI_", what, n);
}

#ifdef OPEN_MPI
/* The node's windows start no MPI_T on Open MPI: its MPI_T_init opens
 * every component (0.2 s on a program's first hierarchical call where
 * PSM's libraries are installed), and only MPICH has the variable collx
 * sets through it (core/engine/shared_win.mpi.c). This definition comes
 * before the library's for collx's calls. */
static int mpit_starts;
int MPI_T_init_thread(int required, int *provided)
{
    mpit_starts++;
    return PMPI_T_init_thread(required, provided);
}
#endif

/* x op y = 2x2 matrix product mod 2^16 (non-commutative). */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        int c[4] = {(a[0] * b[0] + a[1] * b[2]) & 0xffff, (a[0] * b[1] + a[1] * b[3]) & 0xffff,
                    (a[2] * b[0] + a[3] * b[2]) & 0xffff, (a[2] * b[1] + a[3] * b[3]) & 0xffff};
        memcpy(b, c, sizeof c);
    }
}

/* Zero copy: two calls in a row, results at two different addresses,
 * neither the fallback buffer. */
static void zero_copy(const char *what, const void *r1, const void *r2)
{
    CHECK(r1 != r2, "%s: two calls in a row gave the same address (no segment)", what);
    CHECK(r1 != fallback_buf && r2 != fallback_buf, "%s: served by the fallback buffer",
          what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int expect_zero = argc > 1 && !strcmp(argv[1], "--zero-copy");
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Op noncomm;
    MPI_Op_create(matmul, 0, &noncomm);
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    /* a derived receive type: every other int (holes) */
    MPI_Datatype strided;
    MPI_Type_vector(1, 1, 2, MPI_INT, &strided);
    MPI_Datatype strided_r;
    MPI_Type_create_resized(strided, 0, 2 * sizeof(int), &strided_r);
    MPI_Type_commit(&strided_r);

    const int counts[] = {0, 1, 17, 20000};
    int big = 20000 * size + 64;
    int *send = malloc(sizeof(int) * (size_t)big), *want = malloc(sizeof(int) * 2 * (size_t)big);
    int *rc = malloc(sizeof(int) * (size_t)size), *dp = malloc(sizeof(int) * (size_t)size);
    for (int ci = 0; ci < 4; ci++) {
        int n = counts[ci];
        for (int i = 0; i < big; i++)
            send[i] = rank * 1000003 + i * 7 + 1;
        const void *r1, *r2;
        int err;
        /* the fallback buffer: allgather into a type with holes */
        memset(want, 0, sizeof(int) * 2 * (size_t)big);
        PMPI_Allgather(send, n, MPI_INT, want, n, strided_r, comm);
        err = CX_Allgather_shared(send, n, MPI_INT, n, strided_r, comm, &r1);
        CHECK(err == MPI_SUCCESS, "allgather strided n=%d: error %d", n, err);
        for (int i = 0; !err && i < n * size; i++)
            CHECK(((const int *)r1)[2 * i] == want[2 * i], "allgather strided n=%d: element %d", n, i);
        if (!err)
            fallback_buf = r1;
        /* allgather */
        PMPI_Allgather(send, n, MPI_INT, want, n, MPI_INT, comm);
        err = CX_Allgather_shared(send, n, MPI_INT, n, MPI_INT, comm, &r1);
        CHECK(err == MPI_SUCCESS, "allgather n=%d: error %d", n, err);
        same("allgather", n, r1, want, sizeof(int) * (size_t)n * (size_t)size);
        MPI_Barrier(comm);   /* still valid: no collx call since */
        same("allgather after a barrier", n, r1, want, sizeof(int) * (size_t)n * (size_t)size);
        err = CX_Allgather_shared(send, n, MPI_INT, n, MPI_INT, comm, &r2);
        same("allgather again", n, r2, want, sizeof(int) * (size_t)n * (size_t)size);
        if (expect_zero && n && !err)
            zero_copy("allgather", r1, r2);
        /* allgatherv, back to back: rank r sends (r % 3) * n / 2 + 1 */
        int off = 0;
        for (int r = 0; r < size; r++) {
            rc[r] = (r % 3) * n / 2 + (n > 0);
            dp[r] = off;
            off += rc[r];
        }
        PMPI_Allgatherv(send, rc[rank], MPI_INT, want, rc, dp, MPI_INT, comm);
        err = CX_Allgatherv_shared(send, rc[rank], MPI_INT, rc, dp, MPI_INT, comm, &r1);
        same("allgatherv", n, r1, want, sizeof(int) * (size_t)off);
        err |= CX_Allgatherv_shared(send, rc[rank], MPI_INT, rc, dp, MPI_INT, comm, &r2);
        same("allgatherv again", n, r2, want, sizeof(int) * (size_t)off);
        if (expect_zero && off && !err)
            zero_copy("allgatherv", r1, r2);
        /* allgatherv, reversed with gaps: through the fallback buffer */
        off = 3;
        for (int r = size - 1; r >= 0; r--) {
            dp[r] = off;
            off += rc[r] + 2;
        }
        memset(want, 0, sizeof(int) * (size_t)off);
        PMPI_Allgatherv(send, rc[rank], MPI_INT, want, rc, dp, MPI_INT, comm);
        err = CX_Allgatherv_shared(send, rc[rank], MPI_INT, rc, dp, MPI_INT, comm, &r1);
        CHECK(err == MPI_SUCCESS, "allgatherv gaps n=%d: error %d", n, err);
        for (int r = 0; !err && r < size; r++)
            CHECK(!memcmp((const int *)r1 + dp[r], want + dp[r], sizeof(int) * (size_t)rc[r]),
                  "allgatherv gaps n=%d: block %d", n, r);
        /* bcast, every root */
        for (int root = 0; root < size; root++) {
            memcpy(want, send, sizeof(int) * (size_t)n);
            PMPI_Bcast(want, n, MPI_INT, root, comm);
            err = CX_Bcast_shared(rank == root ? send : NULL, n, MPI_INT, root, comm, &r1);
            CHECK(err == MPI_SUCCESS, "bcast n=%d root=%d: error %d", n, root, err);
            same("bcast", n, r1, want, sizeof(int) * (size_t)n);
            if (rank == root)
                CHECK(r1 == send, "bcast n=%d: the root's result is not its buffer", n);
        }
        /* MPI_BOTTOM: the addresses in the datatypes (the root's buffer,
         * a send buffer, and a receive layout whose address is the
         * result's: the data then lie at result + that address) */
        MPI_Datatype at_send = absolute_at(MPI_INT, send), at_want = absolute_at(MPI_INT, want);
        for (int root = 0; root < size; root++) {
            memcpy(want, send, sizeof(int) * (size_t)n);
            PMPI_Bcast(want, n, MPI_INT, root, comm);
            err = rank == root ? CX_Bcast_shared(MPI_BOTTOM, n, at_send, root, comm, &r1)
                               : CX_Bcast_shared(NULL, n, MPI_INT, root, comm, &r1);
            CHECK(err == MPI_SUCCESS, "bcast MPI_BOTTOM n=%d root=%d: error %d", n, root, err);
            if (rank != root)
                same("bcast MPI_BOTTOM", n, r1, want, sizeof(int) * (size_t)n);
        }
        PMPI_Allgather(send, n, MPI_INT, want, n, MPI_INT, comm);
        err = CX_Allgather_shared(MPI_BOTTOM, n, at_send, n, MPI_INT, comm, &r1);
        CHECK(err == MPI_SUCCESS, "allgather from MPI_BOTTOM n=%d: error %d", n, err);
        same("allgather from MPI_BOTTOM", n, r1, want, sizeof(int) * (size_t)n * (size_t)size);
        err = CX_Allgather_shared(send, n, MPI_INT, n, at_want, comm, &r1);
        CHECK(err == MPI_SUCCESS, "allgather to an absolute layout n=%d: error %d", n, err);
        MPI_Aint q;
        MPI_Get_address(want, &q);
        if (!err && n)
            same("allgather to an absolute layout", n, (const char *)r1 + q, want,
                 sizeof(int) * (size_t)n * (size_t)size);
        MPI_Type_free(&at_send);
        MPI_Type_free(&at_want);
        /* allreduce: sum, and the non-commutative matrix product */
        PMPI_Allreduce(send, want, n, MPI_INT, MPI_SUM, comm);
        err = CX_Allreduce_shared(send, n, MPI_INT, MPI_SUM, comm, &r1);
        same("allreduce sum", n, r1, want, sizeof(int) * (size_t)n);
        err |= CX_Allreduce_shared(send, n, MPI_INT, MPI_SUM, comm, &r2);
        same("allreduce sum again", n, r2, want, sizeof(int) * (size_t)n);
        if (expect_zero && n && !err)
            zero_copy("allreduce", r1, r2);
        for (int i = 0; i < 4 * n; i++)
            send[i] &= 0xff;
        PMPI_Allreduce(send, want, n, mat, noncomm, comm);
        err = CX_Allreduce_shared(send, n, mat, noncomm, comm, &r1);
        CHECK(err == MPI_SUCCESS, "allreduce noncomm n=%d: error %d", n, err);
        same("allreduce noncomm", n, r1, want, sizeof(int) * 4 * (size_t)n);
    }
    /* bad input */
    const void *r = NULL;
    int err = CX_Allgather_shared(MPI_IN_PLACE, 1, MPI_INT, 1, MPI_INT, comm, &r), cls;
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "MPI_IN_PLACE: class %d, want MPI_ERR_BUFFER", cls);
    err = CX_Allreduce_shared(send, 1, MPI_INT, MPI_SUM, comm, NULL);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "NULL result: class %d, want MPI_ERR_ARG", cls);

#ifdef OPEN_MPI
    CHECK(mpit_starts == 0, "collx started MPI_T %d times on Open MPI (0.2 s each)",
          mpit_starts);
#endif
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("hier_shared p=%d%s: %s (%d failures)\n", size,
               expect_zero ? " zero-copy" : "", all ? "FAILED" : "OK", all);
    free(send);
    free(want);
    free(rc);
    free(dp);
    MPI_Type_free(&mat);
    MPI_Type_free(&strided);
    MPI_Type_free(&strided_r);
    MPI_Op_free(&noncomm);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return all ? 1 : 0;
}
