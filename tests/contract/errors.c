/* Error contract: bad arguments return the right MPI error class through
 * the communicator's error handler, for every registered algorithm, and
 * nothing hangs (the test runs under a ctest TIMEOUT).
 *
 * usage: errors              all checks
 *        errors --env-unknown expects COLLX_GATHERV_ALGORITHM=<unknown> in
 *                            the environment: CX_Gatherv returns MPI_ERR_ARG */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collx.h"

enum { GATHER, GATHERV, SCATTER, SCATTERV, BCAST, ALLGATHER, ALLGATHERV,
       ALLTOALLV, REDUCE_SCATTER_BLOCK, NCOLL };
static const char *const names[NCOLL] = {
    "gather", "gatherv", "scatter", "scatterv", "bcast", "allgather",
    "allgatherv", "alltoallv", "reduce_scatter_block"};

static int rank, size, failures;
static int handler_calls, handler_class;

/* Records what reached the handler and returns, like MPI_ERRORS_RETURN. */
static void record(MPI_Comm *comm, int *err, ...)
{
    (void)comm;
    handler_calls++;
    MPI_Error_class(*err, &handler_class);
}

/* Arguments of one call; bad fields are set per scenario. */
typedef struct args {
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype stype, rtype;
    MPI_Op op;
    int root;
} args;

static int call(int c, const args *a, MPI_Comm comm)
{
    switch (c) {
    case GATHER:
        return CX_Gather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype,
                         a->root, comm);
    case GATHERV:
        return CX_Gatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts,
                          a->rdispls, a->rtype, a->root, comm);
    case SCATTER:
        return CX_Scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype,
                          a->root, comm);
    case SCATTERV:
        return CX_Scatterv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf,
                           a->rcount, a->rtype, a->root, comm);
    case BCAST:
        return CX_Bcast(a->rbuf, a->rcount, a->rtype, a->root, comm);
    case ALLGATHER:
        return CX_Allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                            a->rtype, comm);
    case ALLGATHERV:
        return CX_Allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts,
                             a->rdispls, a->rtype, comm);
    case ALLTOALLV:
        return CX_Alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf,
                            a->rcounts, a->rdispls, a->rtype, comm);
    case REDUCE_SCATTER_BLOCK:
        return CX_Reduce_scatter_block(a->sbuf, a->rbuf, a->rcount, a->rtype, a->op,
                                       comm);
    }
    return MPI_ERR_INTERN;
}

static int sbuf[64], rbuf[64 * 64];
static int ones[64], idx[64], negative[64];

/* A valid call of one int per rank. */
static args valid(void)
{
    args a = {sbuf, rbuf, 1, 1, ones, idx, ones, idx, MPI_INT, MPI_INT, MPI_SUM, 0};
    return a;
}

static void expect(int c, const char *alg, const char *what, const args *a,
                   MPI_Comm comm, int want)
{
    int cls = MPI_SUCCESS;
    handler_calls = 0;
    int err = call(c, a, comm);
    MPI_Error_class(err, &cls);
    if (cls != want || handler_calls != 1 || handler_class != want) {
        char got[MPI_MAX_ERROR_STRING], exp[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(cls, got, &len);
        MPI_Error_string(want, exp, &len);
        printf("FAIL %s alg=%s p=%d rank=%d %s: got class %d (%s), want %d (%s); "
               "error handler called %d times\n", names[c], alg, size, rank, what,
               cls, got, want, exp, handler_calls);
        fflush(stdout);
        failures++;
    }
}

static int rooted(int c) { return c <= BCAST; }

/* Every scenario for collective c with algorithm alg on comm (intra). */
static void scenarios(int c, const char *alg, MPI_Comm comm)
{
    args a;
    if (rooted(c)) {
        a = valid();
        a.root = -1;
        expect(c, alg, "root=-1", &a, comm, MPI_ERR_ROOT);
        a.root = size;
        expect(c, alg, "root=p", &a, comm, MPI_ERR_ROOT);
    }
    /* Negative counts on every significant side of every rank. */
    a = valid();
    a.scount = a.rcount = -1;
    a.scounts = a.rcounts = negative;
    expect(c, alg, "negative count", &a, comm, MPI_ERR_COUNT);
    a = valid();
    a.stype = a.rtype = MPI_DATATYPE_NULL;
    expect(c, alg, "MPI_DATATYPE_NULL", &a, comm, MPI_ERR_TYPE);
    if (c == REDUCE_SCATTER_BLOCK) {
        a = valid();
        a.op = MPI_OP_NULL;
        expect(c, alg, "MPI_OP_NULL", &a, comm, MPI_ERR_OP);
    }
    /* MPI_IN_PLACE where only the root may use it: only the ranks that see
     * the error locally call, since the others would wait for them. */
    if ((c == GATHER || c == GATHERV || c == SCATTER || c == SCATTERV) && rank != 0) {
        a = valid();
        if (c == GATHER || c == GATHERV)
            a.sbuf = MPI_IN_PLACE;
        else
            a.rbuf = MPI_IN_PLACE;
        expect(c, alg, "MPI_IN_PLACE on a non-root", &a, comm, MPI_ERR_BUFFER);
    }
}

/* After all errors, each algorithm still gives the right answer. */
static void still_works(int c, const char *alg, MPI_Comm comm)
{
    args a = valid();
    sbuf[0] = rank + 1;
    for (int i = 0; i < size; i++)
        rbuf[i] = -1;
    if (c == GATHER || c == GATHERV || c == ALLGATHER || c == ALLGATHERV) {
        int err = call(c, &a, comm), ok = !err;
        if (c >= ALLGATHER || rank == 0)
            for (int i = 0; i < size; i++)
                ok &= rbuf[i] == i + 1;
        if (!ok) {
            printf("FAIL %s alg=%s p=%d rank=%d: wrong result after the error "
                   "calls (err %d)\n", names[c], alg, size, rank, err);
            failures++;
        }
    }
}

/* A message longer than the root's receive (an erroneous program) makes
 * the root's request fail inside collx's schedule: the caller must get
 * MPI_ERR_TRUNCATE, not the MPI_ERR_IN_STATUS of collx's internal Waitall. */
static void truncation(MPI_Comm comm)
{
    int big[2] = {1, 2}, cls = MPI_SUCCESS;
    if (size < 2)
        return;
    CX_Algorithm_set("gather", "linear");
    handler_calls = 0;
    int err = CX_Gather(big, 2, MPI_INT, rbuf, 1, MPI_INT, 0, comm);
    CX_Algorithm_set("gather", NULL);
    MPI_Error_class(err, &cls);
    if (rank == 0 && (cls != MPI_ERR_TRUNCATE || handler_calls != 1)) {
        printf("FAIL gather alg=linear p=%d: truncated receive gave class %d, "
               "want MPI_ERR_TRUNCATE (%d); handler called %d times\n", size, cls,
               MPI_ERR_TRUNCATE, handler_calls);
        failures++;
    }
    if (rank != 0 && err) {
        printf("FAIL gather alg=linear rank %d: sender got error %d\n", rank, err);
        failures++;
    }
}

static void check_set_unknown(void)
{
    if (CX_Algorithm_set("gatherv", "nope") != MPI_ERR_ARG ||
        CX_Algorithm_set("nope", "linear") != MPI_ERR_ARG) {
        printf("FAIL CX_Algorithm_set with an unknown name does not return "
               "MPI_ERR_ARG\n");
        failures++;
    }
}

static int env_unknown(MPI_Comm comm)
{
    args a = valid();
    handler_calls = 0;
    int err = call(GATHERV, &a, comm), cls;
    MPI_Error_class(err, &cls);
    if (cls != MPI_ERR_ARG || handler_calls != 1) {
        printf("FAIL gatherv with COLLX_GATHERV_ALGORITHM=%s: class %d, want "
               "MPI_ERR_ARG (%d); handler called %d times\n",
               getenv("COLLX_GATHERV_ALGORITHM"), cls, MPI_ERR_ARG, handler_calls);
        failures++;
    }
    return failures;
}

int main(int argc, char **argv)
{
    MPI_Comm comm;
    MPI_Errhandler eh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < 64; i++) {
        ones[i] = 1;
        idx[i] = i;
        negative[i] = i == size - 1 ? -1 : 1;
    }
    /* MPICH 4.0 raises errors found by MPI_Wait and MPI_Waitall (of collx's
     * internal requests) on MPI_COMM_WORLD's handler, not the request's. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_create_errhandler(record, &eh);
    MPI_Comm_set_errhandler(comm, eh);

    if (argc > 1 && strcmp(argv[1], "--env-unknown") == 0) {
        env_unknown(comm);
    } else {
        check_set_unknown();
        truncation(comm);
        for (int c = 0; c < NCOLL; c++) {
            int n = CX_Algorithm_count(names[c]);
            for (int i = 0; i < n; i++) {
                const char *alg = CX_Algorithm_name(names[c], i);
                /* native is the MPI library's own call, with its own checks
                 * (which may leave the other ranks waiting when only one
                 * rank's arguments are wrong) */
                if (strcmp(alg, "native") == 0)
                    continue;
                CX_Algorithm_set(names[c], alg);
                scenarios(c, alg, comm);
                still_works(c, alg, comm);
            }
            CX_Algorithm_set(names[c], NULL);
        }
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("errors: %s (%d failures over all ranks)\n", total ? "FAILED" : "OK",
               total);
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return total ? 1 : 0;
}
