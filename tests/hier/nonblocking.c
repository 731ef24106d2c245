/* Nonblocking hierarchical calls (src/hier/queue.c), on real processes.
 *
 * 1. Served: hier (or hier_ms: --ms) runs CX_I<coll> itself (its call
 *    counter grows, native's does not).
 * 2. In flight together: several calls started before any completes, a
 *    blocking hierarchical call in between, completed in reverse order by
 *    CX_Test polling and CX_Wait: every result equals the PMPI_ one.
 * 3. Local start: rank r starts its call (and tests it once) only after
 *    rank r - 1 started its own and sent it a token. If starting waited for another rank of
 *    the node (a node barrier, a size exchange, a segment that grows), the
 *    chain would never end: the test's TIMEOUT catches it.
 * 4. Beside other families' set-up: while they are in flight, the first
 *    topo, RMA drop-in and PAP calls of the communicator (collectives on
 *    its private and leader communicators) run, and all results are right.
 * 5. The leaders' broadcast of a nonblocking call: collx's binomial
 *    below 16 KiB, its pipelined binary tree from there (hier's built-in
 *    rules, src/hier/leaders_nonblocking.rules.json), seen in
 *    CX_Algorithm_inner_calls summed over the
 *    ranks (none on one node; hier_ms's columns broadcast shares, by
 *    either), results against PMPI_Bcast.
 * 6. The same for allgather: the leaders' allgatherv is Bruck for small
 *    node regions, neighbour exchange above 64 KiB per node (hier only).
 * gatherv, scatterv and alltoallv agree on their sizes in steps (agree.c)
 * instead of a blocking exchange: the chain (3.) tests exactly that.
 * usage: hier_nonblocking [--ms] [--interleaved]
 * (--interleaved: nodes whose ranks are not consecutive, where scan runs
 * native: hier's scan needs them consecutive) */
#define _POSIX_C_SOURCE 200809L   /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <collx.h>

enum { N = 20000 };   /* ints: 80 KB, above the MPIs' eager limits */
enum { C_BCAST, C_ALLREDUCE, C_ALLGATHER, C_REDUCE, C_GATHER, C_SCATTER, C_SCAN,
       C_BARRIER, C_ALLTOALL, C_RSB, C_GATHERV, C_SCATTERV, C_ALLTOALLV, C_COUNT };
static const char *names[C_COUNT] = {"bcast", "allreduce", "allgather", "reduce",
                                     "gather", "scatter", "scan", "barrier", "alltoall",
                                     "reduce_scatter_block", "gatherv", "scatterv",
                                     "alltoallv"};
static const int in_ms[C_COUNT] = {1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1};

static int rank, size, failures;

typedef struct call {
    int coll, n;     /* ints per block */
    int *in, *out;
} call;

static void fill(call *k, int salt)
{
    int blocks = k->coll == C_ALLTOALL || k->coll == C_SCATTER || k->coll == C_RSB ||
                 k->coll == C_SCATTERV || k->coll == C_ALLTOALLV ? size : 1;
    for (int i = 0; i < k->n * blocks; i++)
        k->in[i] = rank * 1000 + i * 7 + salt;
    for (int i = 0; i < k->n * size; i++)
        k->out[i] = -1;
    if (k->coll == C_BCAST)
        memcpy(k->out, k->in, sizeof(int) * (size_t)k->n);
}

static call make(int coll, int n)
{
    call k = {coll, n, malloc(sizeof(int) * (size_t)n * (size_t)size),
              malloc(sizeof(int) * (size_t)n * (size_t)size)};
    if (!k.in || !k.out)
        MPI_Abort(MPI_COMM_WORLD, 2);
    return k;
}

/* v collectives: rank r's block is n (1 + r % 2) / 2 ints (every second
 * rank's half as long), blocks back to back; alltoallv: the block between
 * ranks r and j is n (1 + (r + j) % 2) / 2 ints each way, at j n. */
static int vcounts[2][256], vdispls[2][256];

static void v_layout(int n)
{
    for (int r = 0, off = 0; r < size && r < 256; r++) {
        vcounts[0][r] = n * (1 + r % 2) / 2;
        vdispls[0][r] = off;
        off += vcounts[0][r];
        /* alltoallv: what this rank sends to r and receives from it */
        vcounts[1][r] = n * (1 + (rank + r) % 2) / 2;
        vdispls[1][r] = r * n;
    }
}

/* Starts k (req) or runs the PMPI_ reference (req == NULL). */
static int start(call *k, CX_Request *req)
{
    int n = k->n, root = size - 1;
    MPI_Comm w = MPI_COMM_WORLD;
    switch (k->coll) {
    case C_BCAST:
        return req ? CX_Ibcast(k->out, n, MPI_INT, root, w, req)
                   : PMPI_Bcast(k->out, n, MPI_INT, root, w);
    case C_ALLREDUCE:
        return req ? CX_Iallreduce(k->in, k->out, n, MPI_INT, MPI_SUM, w, req)
                   : PMPI_Allreduce(k->in, k->out, n, MPI_INT, MPI_SUM, w);
    case C_ALLGATHER:
        return req ? CX_Iallgather(k->in, n, MPI_INT, k->out, n, MPI_INT, w, req)
                   : PMPI_Allgather(k->in, n, MPI_INT, k->out, n, MPI_INT, w);
    case C_REDUCE:
        return req ? CX_Ireduce(k->in, k->out, n, MPI_INT, MPI_MAX, root, w, req)
                   : PMPI_Reduce(k->in, k->out, n, MPI_INT, MPI_MAX, root, w);
    case C_GATHER:
        return req ? CX_Igather(k->in, n, MPI_INT, k->out, n, MPI_INT, root, w, req)
                   : PMPI_Gather(k->in, n, MPI_INT, k->out, n, MPI_INT, root, w);
    case C_SCATTER:
        return req ? CX_Iscatter(k->in, n, MPI_INT, k->out, n, MPI_INT, root, w, req)
                   : PMPI_Scatter(k->in, n, MPI_INT, k->out, n, MPI_INT, root, w);
    case C_SCAN:
        return req ? CX_Iscan(k->in, k->out, n, MPI_INT, MPI_SUM, w, req)
                   : PMPI_Scan(k->in, k->out, n, MPI_INT, MPI_SUM, w);
    case C_BARRIER:
        return req ? CX_Ibarrier(w, req) : PMPI_Barrier(w);
    case C_ALLTOALL:
        return req ? CX_Ialltoall(k->in, n, MPI_INT, k->out, n, MPI_INT, w, req)
                   : PMPI_Alltoall(k->in, n, MPI_INT, k->out, n, MPI_INT, w);
    case C_GATHERV:
        v_layout(n);
        return req ? CX_Igatherv(k->in, vcounts[0][rank], MPI_INT, k->out, vcounts[0],
                                 vdispls[0], MPI_INT, root, w, req)
                   : PMPI_Gatherv(k->in, vcounts[0][rank], MPI_INT, k->out, vcounts[0],
                                  vdispls[0], MPI_INT, root, w);
    case C_SCATTERV:
        v_layout(n);
        return req ? CX_Iscatterv(k->in, vcounts[0], vdispls[0], MPI_INT, k->out,
                                  vcounts[0][rank], MPI_INT, root, w, req)
                   : PMPI_Scatterv(k->in, vcounts[0], vdispls[0], MPI_INT, k->out,
                                   vcounts[0][rank], MPI_INT, root, w);
    case C_ALLTOALLV:
        v_layout(n);
        return req ? CX_Ialltoallv(k->in, vcounts[1], vdispls[1], MPI_INT, k->out, vcounts[1],
                                   vdispls[1], MPI_INT, w, req)
                   : PMPI_Alltoallv(k->in, vcounts[1], vdispls[1], MPI_INT, k->out,
                                    vcounts[1], vdispls[1], MPI_INT, w);
    default:
        return req ? CX_Ireduce_scatter_block(k->in, k->out, n, MPI_INT, MPI_SUM, w, req)
                   : PMPI_Reduce_scatter_block(k->in, k->out, n, MPI_INT, MPI_SUM, w);
    }
}

/* Ints of the result this rank holds. */
static int result_ints(const call *k)
{
    int root = rank == size - 1;
    switch (k->coll) {
    case C_ALLGATHER: return k->n * size;
    case C_GATHER: return root ? k->n * size : 0;
    case C_REDUCE: return root ? k->n : 0;
    case C_BARRIER: return 0;
    case C_ALLTOALL: return k->n * size;
    case C_GATHERV: return root ? k->n * size : 0;
    case C_ALLTOALLV: return k->n * size;
    default: return k->n;
    }
}

static void check(const call *k, const int *want, const char *what)
{
    for (int i = 0; i < result_ints(k); i++)
        if (k->out[i] != want[i]) {
            fprintf(stderr, "FAIL %s %s rank %d: int %d is %d, want %d\n", what,
                    names[k->coll], rank, i, k->out[i], want[i]);
            failures++;
            return;
        }
}

/* The reference result of k with salt, into a fresh buffer. */
static int *reference(call *k, int salt)
{
    fill(k, salt);
    if (start(k, NULL) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 3);
    int *want = malloc(sizeof(int) * (size_t)k->n * (size_t)size);
    memcpy(want, k->out, sizeof(int) * (size_t)k->n * (size_t)size);
    return want;
}

/* Calls the node leaders ran with algorithm name of coll, over all ranks. */
static long leaders_ran_coll(const char *coll, const char *name)
{
    long mine = CX_Algorithm_inner_calls(coll, name), all;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

static long leaders_ran(const char *name)
{
    return leaders_ran_coll("bcast", name);
}

static void leaders_bcast(const char *alg)
{
    static const int ints[] = {1000, 5000, 60000};   /* 4 KB, 20 KB, 240 KB */
    int leaders = -1;   /* whether this layout has leaders (several nodes) */
    CX_Algorithm_set("bcast", alg);
    for (int j = 0; j < 3; j++) {
        int n = ints[j], root = j % size, *got = malloc(sizeof(int) * (size_t)n);
        int *want = malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++)
            got[i] = want[i] = rank == root ? i * 7 + j : -1;
        long bin = leaders_ran("binomial"), pipe = leaders_ran("pipeline_binary");
        CX_Request req;
        if (CX_Ibcast(got, n, MPI_INT, root, MPI_COMM_WORLD, &req) || CX_Wait(&req)) {
            fprintf(stderr, "FAIL leaders' bcast rank %d: error\n", rank);
            failures++;
        }
        PMPI_Bcast(want, n, MPI_INT, root, MPI_COMM_WORLD);
        if (memcmp(got, want, sizeof(int) * (size_t)n)) {
            fprintf(stderr, "FAIL leaders' bcast rank %d, %d ints: wrong data\n", rank, n);
            failures++;
        }
        bin = leaders_ran("binomial") - bin;
        pipe = leaders_ran("pipeline_binary") - pipe;
        int large = n * (int)sizeof(int) >= 16384;
        if (leaders < 0)
            leaders = bin + pipe > 0;
        /* hier_ms's columns broadcast shares of the message: collx's
         * either way, which one depends on the share */
        int strict = !strcmp(alg, "hier");
        if ((leaders && strict && (large ? pipe == 0 || bin != 0 : bin == 0 || pipe != 0)) ||
            (leaders && bin + pipe == 0) || (!leaders && bin + pipe != 0)) {
            if (rank == 0)
                fprintf(stderr, "FAIL leaders' bcast of %d bytes: binomial %ld, "
                        "pipeline_binary %ld times\n", n * (int)sizeof(int), bin, pipe);
            failures++;
        }
        free(got);
        free(want);
    }
    if (rank == 0)
        printf("leaders' bcast in nonblocking calls: %s\n",
               !leaders ? "one node, none"
               : !strcmp(alg, "hier") ? "binomial below 16 KiB, pipeline_binary above"
                                      : "collx's own");
}

/* 6. The leaders' allgatherv of a nonblocking hier allgather: Bruck for
 * small node regions, neighbour exchange above 64 KiB per node. */
static void leaders_allgather(const char *alg)
{
    static const int ints[] = {16, 20000};   /* 64 B, 80 KB per rank */
    const char *want_alg[] = {"bruck", "neighbor_exchange"};
    CX_Algorithm_set("allgather", alg);
    for (int j = 0; j < 2; j++) {
        int n = ints[j], *mine = malloc(sizeof(int) * (size_t)n);
        int *got = malloc(sizeof(int) * (size_t)n * (size_t)size);
        int *want = malloc(sizeof(int) * (size_t)n * (size_t)size);
        for (int i = 0; i < n; i++)
            mine[i] = rank * 100003 + i * 3 + j;
        long ran[2] = {leaders_ran_coll("allgatherv", want_alg[0]),
                       leaders_ran_coll("allgatherv", want_alg[1])};
        CX_Request req;
        if (CX_Iallgather(mine, n, MPI_INT, got, n, MPI_INT, MPI_COMM_WORLD, &req) ||
            CX_Wait(&req)) {
            fprintf(stderr, "FAIL leaders' allgather rank %d: error\n", rank);
            failures++;
        }
        PMPI_Allgather(mine, n, MPI_INT, want, n, MPI_INT, MPI_COMM_WORLD);
        if (memcmp(got, want, sizeof(int) * (size_t)n * (size_t)size)) {
            fprintf(stderr, "FAIL leaders' allgather rank %d, %d ints: wrong data\n", rank, n);
            failures++;
        }
        for (int k = 0; k < 2; k++)
            ran[k] = leaders_ran_coll("allgatherv", want_alg[k]) - ran[k];
        /* one node: no leaders' call; hier_ms's columns gather shares */
        if (!strcmp(alg, "hier") && ran[0] + ran[1] > 0 && (ran[j] == 0 || ran[1 - j] != 0)) {
            if (rank == 0)
                fprintf(stderr, "FAIL leaders' allgatherv of %d bytes per rank: bruck %ld, "
                        "neighbor_exchange %ld times\n", n * (int)sizeof(int), ran[0], ran[1]);
            failures++;
        }
        free(mine);
        free(got);
        free(want);
    }
}

int main(int argc, char **argv)
{
    int provided, ms = 0, interleaved = 0;
    for (int i = 1; i < argc; i++) {
        ms |= !strcmp(argv[i], "--ms");
        interleaved |= !strcmp(argv[i], "--interleaved");
    }
    const char *alg = ms ? "hier_ms" : "hier";
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (ms)
        setenv("COLLX_HIER_SENDERS", "2", 1);   /* before collx reads it */
    int colls[C_COUNT], nc = 0;
    for (int c = 0; c < C_COUNT; c++)
        if (!ms || in_ms[c])
            colls[nc++] = c;
    call k[C_COUNT];
    int *want[C_COUNT];
    for (int i = 0; i < nc; i++) {
        CX_Algorithm_set(names[colls[i]], alg);
        k[i] = make(colls[i], colls[i] == C_ALLTOALL || colls[i] == C_ALLGATHER ||
                              colls[i] == C_GATHER || colls[i] == C_SCATTER ||
                              colls[i] == C_RSB || colls[i] >= C_GATHERV ? N / size : N);
        want[i] = reference(&k[i], 1);
    }

    /* 1 and 2: every call started, a blocking one between, completed in
     * reverse order (the first ones by CX_Test polling). */
    CX_Request req[C_COUNT];
    long served[C_COUNT], natives[C_COUNT];
    for (int i = 0; i < nc; i++) {
        served[i] = CX_Algorithm_calls(names[colls[i]], alg);
        natives[i] = CX_Algorithm_calls(names[colls[i]], "native");
        fill(&k[i], 1);
        if (start(&k[i], &req[i]) != MPI_SUCCESS) {
            fprintf(stderr, "FAIL start %s rank %d\n", names[colls[i]], rank);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
    }
    for (int i = 0; i < nc; i++)
        if (!(interleaved && colls[i] == C_SCAN) &&
            (CX_Algorithm_calls(names[colls[i]], alg) != served[i] + 1 ||
             CX_Algorithm_calls(names[colls[i]], "native") != natives[i])) {
            fprintf(stderr, "FAIL %s rank %d: CX_I%s did not run %s\n", names[colls[i]],
                    rank, names[colls[i]], alg);
            failures++;
        }
    CX_Algorithm_set("allreduce", "hier");
    int one = 1, sum = 0;
    if (CX_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) || sum != size) {
        fprintf(stderr, "FAIL blocking allreduce between: %d, want %d\n", sum, size);
        failures++;
    }
    CX_Algorithm_set("allreduce", alg);
    for (int i = nc - 1; i >= 0; i--) {
        int flag = 0, err = MPI_SUCCESS;
        if (i < nc / 2)
            while (!flag && !err)
                err = CX_Test(&req[i], &flag);
        else
            err = CX_Wait(&req[i]);
        if (err) {
            fprintf(stderr, "FAIL %s rank %d: error %d\n", names[colls[i]], rank, err);
            failures++;
        }
        check(&k[i], want[i], "in flight together:");
    }

    /* 3: a chain of tokens through the ranks, each sent once the sender's
     * call has started. */
    for (int i = 0; i < nc; i++) {
        int token = 0;
        MPI_Request r;
        fill(&k[i], 1);
        if (rank > 0)
            MPI_Recv(&token, 1, MPI_INT, rank - 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (start(&k[i], &req[i]) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 5);
        int flag = 0;   /* a test is local too: it must not wait for a rank */
        if (CX_Test(&req[i], &flag) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 6);
        MPI_Isend(&token, 1, MPI_INT, (rank + 1) % size, 9, MPI_COMM_WORLD, &r);
        if (rank == 0)
            MPI_Recv(&token, 1, MPI_INT, size - 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (CX_Wait(&req[i])) {
            fprintf(stderr, "FAIL chain %s rank %d: error\n", names[colls[i]], rank);
            failures++;
        }
        check(&k[i], want[i], "started one rank after the other:");
    }

    /* 4: in flight while other families set up on the communicator
     * (their first calls run collectives on its private and leader
     * communicators: the calls in flight finish first, cx_comm_quiesce) */
    for (int i = 0; i < nc; i++) {
        fill(&k[i], 1);
        if (start(&k[i], &req[i]) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 7);
    }
    int mine = rank + 5, *ranks = malloc(sizeof(int) * (size_t)size), word = rank ? -1 : 42;
    CX_Algorithm_set("allgather", "rd_topo");
    CX_Algorithm_set("bcast", "rma_binomial");
    int err = CX_Allgather(&mine, 1, MPI_INT, ranks, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; !err && r < size; r++)
        err = ranks[r] != r + 5;
    if (!err)
        err = CX_Bcast(&word, 1, MPI_INT, 0, MPI_COMM_WORLD) || word != 42;
    if (!err)
        err = CX_Pat_init(MPI_COMM_WORLD) || CX_Pat_finalize(MPI_COMM_WORLD);
    if (err) {
        fprintf(stderr, "FAIL rank %d: topo, rma or PAP set up beside calls in flight\n",
                rank);
        failures++;
    }
    CX_Algorithm_set("allgather", alg);
    CX_Algorithm_set("bcast", alg);
    free(ranks);
    for (int i = 0; i < nc; i++) {
        if (CX_Wait(&req[i])) {
            fprintf(stderr, "FAIL %s rank %d: error\n", names[colls[i]], rank);
            failures++;
        }
        check(&k[i], want[i], "in flight while other families set up:");
    }

    leaders_bcast(alg);
    leaders_allgather(alg);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s: %d collectives nonblocking (in flight together, started one "
               "rank after the other, beside other families' set-up) on %d ranks\n",
               all ? "FAIL" : "PASS", alg, nc, size);
    for (int i = 0; i < nc; i++) {
        free(k[i].in);
        free(k[i].out);
        free(want[i]);
    }
    MPI_Finalize();
    return all != 0;
}
