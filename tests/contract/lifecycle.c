/* Communicator lifecycle: many communicators created, used by collx (which
 * caches state with a private duplicate, node and leader communicators on
 * each) and freed. A leak runs MPICH out of context ids (a few thousand)
 * long before the loop ends.
 *
 * usage: lifecycle [iterations] (default 1000) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collx.h"
#include "persist/persist.h"

static int rank, size, failures;

static void fail(int it, const char *what, int err)
{
    if (failures++ < 10)
        printf("FAIL lifecycle iteration %d rank %d: %s (err %d)\n", it, rank, what, err);
}

/* Allgather (ring asked) on an intercommunicator between the even and
 * odd ranks of the world: every rank gets the other group's values. */
static void intercomm_allgather(int it)
{
    MPI_Comm half, inter;
    int err, color = rank % 2, remote = 0, mine = rank * 1000 + it;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    if ((err = MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &inter))) {
        fail(it, "MPI_Intercomm_create", err);
        MPI_Comm_free(&half);
        return;
    }
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_remote_size(inter, &remote);
    int *got = malloc(sizeof(int) * (size_t)remote);
    if ((err = CX_Allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, inter)))
        fail(it, "CX_Allgather on an intercommunicator", err);
    for (int i = 0; i < remote && !err; i++)   /* the other group, in rank order */
        if (got[i] != (2 * i + 1 - color) * 1000 + it)
            fail(it, "CX_Allgather on an intercommunicator: wrong result", 0);
    free(got);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

/* u(a, b) = 3a + b: not commutative; and a sum. */
static void fold3(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = 3 * a[i] + b[i];
}

static void add(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
}

/* Rabenseifner's allreduce (commutative operations only) with a
 * commutative user-defined operation, freed, then a non-commutative one,
 * which MPI likely gives the freed one's handle: collx must not take the
 * decision it made for the first (rabenseifner serves) for the second
 * (it needs the fallback). Checked against PMPI_Allreduce. */
static void op_lifecycle(int it)
{
    unsigned mine[4], got[4], want[4];
    for (int k = 0; k < 2; k++) {
        MPI_Op op;
        MPI_Op_create(k ? fold3 : add, !k, &op);
        for (int i = 0; i < 4; i++)
            mine[i] = (unsigned)(rank * 7 + i + it);
        int err = CX_Allreduce(mine, got, 4, MPI_UNSIGNED, op, MPI_COMM_WORLD);
        PMPI_Allreduce(mine, want, 4, MPI_UNSIGNED, op, MPI_COMM_WORLD);
        if (err)
            fail(it, k ? "CX_Allreduce, non-commutative op" : "CX_Allreduce, commutative op",
                 err);
        else if (memcmp(got, want, sizeof got))
            fail(it, k ? "CX_Allreduce/rabenseifner with a non-commutative op made after a "
                         "commutative one was freed: wrong result"
                       : "CX_Allreduce/rabenseifner, commutative op: wrong result", 0);
        MPI_Op_free(&op);
    }
}

/* A call like the last one of its collective on a communicator keeps
 * the decision made for that one (issue 76), but a CX_Algorithm_set
 * between two such calls takes effect on the second: what ran is counted
 * per algorithm (CX_Algorithm_calls), and the results are right. */
static void decision_follows_set(int it)
{
    static const char *const algs[] = {"recursive_doubling", "reduce_bcast", "native",
                                       "recursive_doubling"};
    for (int k = 0; k < 4; k++) {
        CX_Algorithm_set("allreduce", algs[k]);
        long before = CX_Algorithm_calls("allreduce", algs[k]);
        for (int i = 0; i < 3; i++) {
            double x = rank + i, y = -1;
            int err = CX_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            if (err || y != size * (size - 1) / 2.0 + size * i)
                fail(it, "CX_Allreduce after CX_Algorithm_set: wrong result", err);
        }
        long ran = CX_Algorithm_calls("allreduce", algs[k]) - before;
        if (ran != 3) {
            char what[160];
            snprintf(what, sizeof what, "CX_Algorithm_set(\"allreduce\", \"%s\") between two "
                     "identical calls: it ran %ld of 3 of the calls after it", algs[k], ran);
            fail(it, what, 0);
        }
    }
    CX_Algorithm_set("allreduce", "rabenseifner");
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 1000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CX_Algorithm_set("allgather", "ring");
    CX_Algorithm_set("gatherv", "linear");
    CX_Algorithm_set("allreduce", "rabenseifner");
    int *all = malloc(sizeof(int) * (size_t)size), *counts = malloc(sizeof(int) * (size_t)size);
    int *displs = malloc(sizeof(int) * (size_t)size);
    for (int it = 0; it < iters; it++) {
        MPI_Comm dup, split;
        int err, srank, ssize;
        if ((err = MPI_Comm_dup(MPI_COMM_WORLD, &dup)) ||
            (err = MPI_Comm_split(MPI_COMM_WORLD, rank % (2 + it % 2), size - rank, &split))) {
            fail(it, "cannot create a communicator", err);
            break;
        }
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(split, MPI_ERRORS_RETURN);
        /* A non-native collective creates collx's state on dup ... */
        int mine = rank * 1000 + it;
        if ((err = CX_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, dup)))
            fail(it, "CX_Allgather/ring", err);
        for (int i = 0; i < size && !err; i++)
            if (all[i] != i * 1000 + it)
                fail(it, "CX_Allgather/ring: wrong result", 0);
        /* ... with its node and leader communicators ... */
        cx_comm *c;
        if ((err = cx_comm_get(dup, &c)) || (err = cx_comm_nodes(c)))
            fail(it, "cx_comm_nodes", err);
        /* ... and on the (reordered) split. */
        MPI_Comm_rank(split, &srank);
        MPI_Comm_size(split, &ssize);
        for (int i = 0; i < ssize; i++) {
            counts[i] = 1;
            displs[i] = ssize - 1 - i;
        }
        if ((err = CX_Gatherv(&mine, 1, MPI_INT, all, counts, displs, MPI_INT, 0, split)))
            fail(it, "CX_Gatherv/linear", err);
        int *peers = malloc(sizeof(int) * (size_t)ssize);
        MPI_Allgather(&rank, 1, MPI_INT, peers, 1, MPI_INT, split);
        for (int i = 0; srank == 0 && !err && i < ssize; i++)
            if (all[ssize - 1 - i] != peers[i] * 1000 + it)
                fail(it, "CX_Gatherv/linear: wrong result", 0);
        free(peers);
        /* split, the last one collx served, is freed last: its handle
         * is the likeliest to come back for the next dup (collx must not
         * take it for the old one), or for an intercommunicator (collx
         * hands it to MPI), and the split's size changes every time. */
        MPI_Comm_free(&dup);
        MPI_Comm_free(&split);
        if (size >= 2 && it % 10 == 0)
            intercomm_allgather(it);
        if (it % 10 == 5)
            op_lifecycle(it);
        if (it % 100 == 7)
            decision_follows_set(it);
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("lifecycle: %d iterations (2 communicators each): %s\n", iters,
               total ? "FAILED" : "OK");
    free(all);
    free(counts);
    free(displs);
    MPI_Finalize();
    return total ? 1 : 0;
}
