/* hier's small bcast goes one way (src/hier/guard.c, one_way): its root
 * leaves once its data are in its cell, its other ranks wait for the
 * root only. What keeps the root from running ahead into the words and
 * cells its readers have not read yet is its wait, in its next call, for
 * every rank to have published the one before (previous_read; a
 * nonblocking call's poll step, hier_guard_free). This test runs what
 * breaks without it, on one node, with ranks paused at random steps
 * (COLLX_HIER_PAUSE in the test's environment):
 *
 * 1. Runs of bcasts from one root, no other call between them, whose
 *    sizes change (empty, inline in the line, in the cell, above the
 *    cell: through the segment) and whose values differ per call: every
 *    rank checks every value.
 * 2. The same runs with a nonblocking call of the same communicator
 *    started after every few bcasts (CX_Ibcast from that root, CX_Iallreduce),
 *    waited later, and a blocking allreduce among them.
 * 3. An erroneous bcast (one non-root posts fewer elements than the root
 *    sends): that rank returns MPI_ERR_TRUNCATE, every rank returns, and
 *    the runs of 1 go on right after it.
 * usage: hier_one_way [calls per run] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <collx.h>

enum { CELL_INTS = 1024, BIG = 5000 };   /* 4 KiB: COLLX_NODE_CELL's default */

static int rank, size, failures;

static void fail(const char *what, int call, int got, int want)
{
    if (failures++ < 10)
        fprintf(stderr, "hier_one_way: rank %d, %s, call %d: got %d, want %d\n", rank, what,
                call, got, want);
}

/* ints of call i: 0, 1-24 (inline), up to the cell, and now and then
 * above it */
static int count_of(int i)
{
    static const int n[] = {1, 0, 3, 24, 200, CELL_INTS, 0, 2, 700, 1};
    return i % 97 == 50 ? BIG : n[i % 10];
}

static void check_buf(const int *buf, int n, int salt, const char *what, int i)
{
    for (int k = 0; k < n; k++)
        if (buf[k] != salt + k * 3) {
            fail(what, i, buf[k], salt + k * 3);
            return;
        }
}

static void run(MPI_Comm comm, int root, int calls, int with_nonblocking, int *buf, int *nbuf)
{
    const char *what = with_nonblocking ? "bcasts among nonblocking calls" : "bcasts";
    CX_Request req[2] = {CX_REQUEST_NULL, CX_REQUEST_NULL};
    int sum_in = rank + 1, sum_out = 0, nb_at = -1;
    for (int i = 0; i < calls; i++) {
        int n = count_of(i), salt = 7919 * i + root;
        for (int k = 0; k < n; k++)
            buf[k] = rank == root ? salt + k * 3 : -1;
        if (CX_Bcast(buf, n, MPI_INT, root, comm) != MPI_SUCCESS)
            fail("bcast returned an error", i, 1, 0);
        check_buf(buf, n, salt, what, i);
        if (!with_nonblocking)
            continue;
        if (i % 7 == 3 && req[0] == CX_REQUEST_NULL) {   /* two in flight */
            for (int k = 0; k < 16; k++)
                nbuf[k] = rank == root ? 31 * i + k : -1;
            nb_at = i;
            CX_Ibcast(nbuf, 16, MPI_INT, root, comm, &req[0]);
            CX_Iallreduce(&sum_in, &sum_out, 1, MPI_INT, MPI_SUM, comm, &req[1]);
        } else if (i % 7 == 5 && req[0] != CX_REQUEST_NULL) {
            CX_Wait(&req[1]);
            CX_Wait(&req[0]);
            for (int k = 0; k < 16; k++)
                if (nbuf[k] != 31 * nb_at + k)
                    fail("CX_Ibcast among bcasts", nb_at, nbuf[k], 31 * nb_at + k);
            if (sum_out != size * (size + 1) / 2)
                fail("CX_Iallreduce among bcasts", nb_at, sum_out, size * (size + 1) / 2);
        } else if (i % 11 == 6) {
            int one = 1, all = 0;
            CX_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, comm);
            if (all != size)
                fail("allreduce among bcasts", i, all, size);
        }
    }
    CX_Wait(&req[0]);
    CX_Wait(&req[1]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int calls = argc > 1 ? atoi(argv[1]) : 3000;
    int *buf = malloc(sizeof(int) * BIG), *nbuf = malloc(sizeof(int) * 16);
    if (!buf || !nbuf || size < 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (CX_Algorithm_set("bcast", "hier") || CX_Algorithm_set("allreduce", "hier")) {
        fprintf(stderr, "hier_one_way: no hier algorithm\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int root = 0; root < size; root += size - 1) {   /* first and last */
        run(comm, root, calls, 0, buf, nbuf);
        run(comm, root, calls / 3, 1, buf, nbuf);
    }
    /* 3. a non-root that posts fewer elements than its root sends */
    int trunc = size - 1, n = rank == trunc ? 2 : 8;
    for (int k = 0; k < 8; k++)
        buf[k] = rank == 0 ? k : -1;
    int err = CX_Bcast(buf, n, MPI_INT, 0, comm), cls = MPI_SUCCESS;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    if (rank == trunc && cls != MPI_ERR_TRUNCATE)
        fail("erroneous bcast: the truncating rank's class", 0, cls, MPI_ERR_TRUNCATE);
    for (int k = 0; rank != trunc && k < 8; k++)   /* the others agree with the root */
        if (buf[k] != k)
            fail("erroneous bcast: a rank whose size is the root's", k, buf[k], k);
    if (rank != trunc && cls != MPI_SUCCESS)
        fail("erroneous bcast: a rank whose size is the root's returned", 0, cls, MPI_SUCCESS);
    run(comm, 0, calls / 10, 0, buf, nbuf);
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("hier_one_way: %d ranks, %d calls a run: %s\n", size, calls,
               all ? "FAILED" : "OK");
    MPI_Comm_free(&comm);
    free(buf);
    free(nbuf);
    MPI_Finalize();
    return all != 0;
}
