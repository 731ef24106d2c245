/* The eight arrival-aware algorithms against PMPI_ under random ms-scale
 * delays, with and without registration (background start at the edge),
 * with honest and deliberately wrong predictions (the delay after the edge
 * is redrawn), every root, contiguous and strided types; plus the PAT API:
 * the order is a permutation with the root first, identical on all ranks.
 *
 * usage: pap_algs [multiple|funneled] [iters]
 *   multiple: MPI_Init_thread(MULTIPLE) -> thread engine when provided
 *   funneled: MPI_Init_thread(FUNNELED) -> eager engine (the fallback)
 * COLLX_PAP_EXPECT_ENGINE=thread|eager makes the run check the engine. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>
#include "collx.h"
#include "../../src/pap/pap.h"
#include "../common/absolute.h"

static int rank, size, failures;

static void nap_ms(double ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = {(time_t)(ms / 1e3), (long)((ms - 1e3 * (long)(ms / 1e3)) * 1e6)};
    nanosleep(&ts, NULL);
}

static unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

static void check(int ok, const char *what)
{
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        failures++;
        if (rank == 0)
            fprintf(stderr, "FAIL: %s\n", what);
    }
}

/* The order every rank computed for root must be the same permutation. */
static void check_order(int root, const char *what)
{
    cx_pap *pap = cx_pap_get(MPI_COMM_WORLD);
    if (pap) {                  /* as the algorithms do before ordering */
        cx_pap_sync(pap);
        cx_pap_complete(pap);
    }
    const int *o = pap ? cx_pap_order(pap, root, 0) : NULL;
    int ok = 1, *mine = malloc(sizeof(int) * (size_t)size);
    int *all = malloc(sizeof(int) * (size_t)size * (size_t)size);
    for (int v = 0; v < size; v++)
        mine[v] = o ? o[v] : (v + root) % size;
    int *seen = calloc((size_t)size, sizeof(int));
    for (int v = 0; v < size; v++)
        ok &= mine[v] >= 0 && mine[v] < size && !seen[mine[v]]++;
    ok &= mine[0] == root;
    MPI_Allgather(mine, size, MPI_INT, all, size, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        ok &= memcmp(all + (size_t)r * size, mine, sizeof(int) * (size_t)size) == 0;
    char msg[160];
    snprintf(msg, sizeof msg, "%s: order not an identical root-first permutation", what);
    check(ok, msg);
    free(seen);
    free(mine);
    free(all);
}

/* Gathers send from MPI_BOTTOM, the send buffer's address in the type. */
static int at_bottom;

/* One algorithm, one root, one type: iters iterations of
 * compute(delay/2) edge compute(rest) collective, compared with PMPI_.
 * The send data is written after the edge: collx may not read it before
 * the call. */
static void run(const char *coll, const char *alg, int root, int count,
                MPI_Datatype t, int expect, int wrong, int iters, unsigned seed)
{
    int gather = strcmp(coll, "gather") == 0;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    size_t blk = (size_t)count * (size_t)ext, all = blk * (size_t)size;
    char *sb = calloc(gather ? blk : all, 1), *rb = calloc(gather ? all : blk, 1);
    char *ref = calloc(gather ? all : blk, 1);
    const void *sbuf = sb;
    MPI_Datatype st = t;
    if (gather && at_bottom) {
        sbuf = MPI_BOTTOM;
        st = absolute_at(t, sb);
    }
    if (expect && gather)
        CX_Pat_expect_gather(sbuf, count, st, rb, count, t, root, MPI_COMM_WORLD);
    else if (expect)
        CX_Pat_expect_scatter(sb, count, t, rb, count, t, root, MPI_COMM_WORLD);
    CX_Algorithm_set(coll, alg);
    char what[160];
    snprintf(what, sizeof what, "%s/%s root %d count %d %s%s%s", coll, alg, root, count,
             expect ? "expect " : "", wrong ? "wrong" : "",
             sbuf == sb ? "" : " MPI_BOTTOM");
    for (int it = 0; it < iters; it++) {
        unsigned s = seed * 7919u + (unsigned)(it * 131 + rank * 17);
        double d = (double)(lcg(&s) % 4000) / 1000.0;   /* 0..4 ms */
        double rest = wrong ? (double)(lcg(&s) % 4000) / 1000.0 : d / 2;
        /* fill only what the call owns before the call: send buffers,
         * garbage before the edge, the data after it */
        for (size_t i = 0; i < (gather ? blk : all); i++)
            sb[i] = (char)0x77;
        nap_ms(d / 2);
        CX_Pat_edge(MPI_COMM_WORLD, 0.5);
        for (size_t i = 0; i < (gather ? blk : all); i++)
            sb[i] = (char)(rank * 31 + it * 7 + (int)i);
        nap_ms(rest);
        int err = gather ? CX_Gather(sbuf, count, st, rb, count, t, root, MPI_COMM_WORLD)
                         : CX_Scatter(sb, count, t, rb, count, t, root, MPI_COMM_WORLD);
        if (gather)
            PMPI_Gather(sb, count, t, ref, count, t, root, MPI_COMM_WORLD);
        else
            PMPI_Scatter(sb, count, t, ref, count, t, root, MPI_COMM_WORLD);
        /* compare only the typed bytes: gaps of strided types stay 0 */
        int ok = err == MPI_SUCCESS;
        if (!gather || rank == root)
            ok &= memcmp(rb, ref, gather ? all : blk) == 0;
        check(ok, what);
        if (it == 0)
            check_order(root, what);
    }
    CX_Algorithm_set(coll, NULL);
    if (expect)
        CX_Pat_expect_none(MPI_COMM_WORLD);
    if (st != t)
        MPI_Type_free(&st);
    free(sb);
    free(rb);
    free(ref);
}

int main(int argc, char **argv)
{
    int want = argc > 1 && strcmp(argv[1], "funneled") == 0 ? MPI_THREAD_FUNNELED
                                                            : MPI_THREAD_MULTIPLE;
    int iters = argc > 2 ? atoi(argv[2]) : 3, provided;
    MPI_Init_thread(&argc, &argv, want, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Without CX_Pat_init every algorithm is its base algorithm. */
    static const char *sc[] = {"slin", "sbn", "bsln", "bsbn"};
    static const char *ga[] = {"sls", "sbn", "bsls", "bsbn"};
    for (int k = 0; k < 4; k++) {
        run("scatter", sc[k], size - 1, 5, MPI_INT, 0, 0, 1, 1);
        run("gather", ga[k], size / 2, 5, MPI_INT, 0, 0, 1, 2);
    }

    CX_Pat_init(MPI_COMM_WORLD);
    cx_pap *pap = cx_pap_get(MPI_COMM_WORLD);
    const char *eng = pap->engine == CX_PAP_THREAD ? "thread" : "eager";
    if (rank == 0)
        printf("pap_algs: p=%d provided=%d engine=%s\n", size, provided, eng);
    const char *expect_eng = getenv("COLLX_PAP_EXPECT_ENGINE");
    if (expect_eng && strcmp(expect_eng, eng) != 0)
        check(0, "engine is not the expected one");
    check(provided != MPI_THREAD_MULTIPLE || !getenv("COLLX_PAP_ENGINE") ||
              strcmp(getenv("COLLX_PAP_ENGINE"), "eager") != 0 || pap->engine == CX_PAP_EAGER,
          "COLLX_PAP_ENGINE=eager ignored");

    /* A strided type: every other double, extent 2 doubles (gaps stay 0). */
    MPI_Datatype vec;
    MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    unsigned seed = 3;
    for (int k = 0; k < 4; k++)
        for (int ri = 0; ri < 3; ri++)   /* roots 0, p/2, p-1 */
            for (int expect = 0; expect < 2; expect++)
                for (int wrong = 0; wrong < 2; wrong++) {
                    int root = ri == 0 ? 0 : ri == 1 ? size / 2 : size - 1;
                    run("scatter", sc[k], root, 1000, MPI_INT, expect, wrong, iters, seed++);
                    run("gather", ga[k], root, 1000, MPI_INT, expect, wrong, iters, seed++);
                }
    for (int k = 0; k < 4; k++) {
        run("scatter", sc[k], 1 % size, 2, vec, 1, 1, iters, seed++);
        run("gather", ga[k], 0, 2, vec, 1, 1, iters, seed++);
        run("scatter", sc[k], 0, 40000, MPI_INT, 1, 0, 2, seed++);  /* rendezvous */
        run("gather", ga[k], size - 1, 40000, MPI_INT, 1, 0, 2, seed++);
        run("gather", ga[k], 0, 0, MPI_INT, 1, 0, 1, seed++);       /* empty */
        /* MPI_BOTTOM (where it is address 0, as in Open MPI and MPICH) */
        at_bottom = MPI_BOTTOM == NULL;
        run("gather", ga[k], 0, 1000, MPI_INT, 1, 0, iters, seed++);
        run("gather", ga[k], size - 1, 2, vec, 1, 1, iters, seed++);
        at_bottom = 0;
    }
    /* Early starts happened and were all adopted by their calls (the eager
     * engine starts deterministically; the thread may lose the race). */
    long st[2] = {pap->n_early, pap->n_adopted}, sum[2];
    MPI_Allreduce(st, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pap_algs: early starts %ld, adopted %ld\n", sum[0], sum[1]);
    check(st[0] == st[1], "an early start was not adopted");
    check(pap->engine == CX_PAP_THREAD || size < 2 || sum[0] > 0, "nothing started early");
    /* Edges without a registered call: the exchanges just complete. */
    for (int k = 0; k < 3; k++)
        CX_Pat_edge(MPI_COMM_WORLD, 0.5);
    check_order(0, "edges only");
    MPI_Type_free(&vec);
    CX_Pat_finalize(MPI_COMM_WORLD);
    if (rank == 0)
        printf("pap_algs: %s\n", failures ? "FAILED" : "ok");
    MPI_Finalize();
    return failures ? 1 : 0;
}
