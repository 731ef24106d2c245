/* hier (and hier_ms) allgather(v) / alltoall(v) / gather(v) / scatter(v) /
 * reduce_scatter(_block) / scan / exscan above the segment budget: the
 * data goes through the segment in bands of local ranks (reduce_scatter:
 * chunks of consecutive ranks' blocks; scan: chunks of the vector). Run
 * with a small COLLX_SHM_MAX; every call is checked against the PMPI_ result and must have been served by the
 * algorithm (not handed to native):
 * ints, a vector type with holes on the receive side, MPI_IN_PLACE,
 * uneven allgatherv counts (one rank sends nothing), and sizes that need
 * one pass, a few bands, and one band per local rank.
 *
 * Usage: hier_bands (COLLX_SHM_MAX and a layout of at most 3 nodes from
 * the environment: one local rank's blocks on all nodes must fit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collx.h"

static int rank, size, failures;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            failures++;                                                        \
            fprintf(stderr, "FAIL hier_bands rank %d: ", rank);                \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

/* Forces alg for coll around one call, then checks that alg served it:
 * no error, and not handed to native. */
typedef struct {
    const char *coll, *alg;
    long served, natives;
} forced;

static forced force(const char *coll, const char *alg)
{
    CX_Algorithm_set(coll, alg);
    return (forced){coll, alg, CX_Algorithm_calls(coll, alg), CX_Algorithm_calls(coll, "native")};
}

static void served(forced f, int err, int n)
{
    CX_Algorithm_set(f.coll, NULL);
    CHECK(err == MPI_SUCCESS, "%s %s n=%d: error %d", f.coll, f.alg, n, err);
    CHECK(CX_Algorithm_calls(f.coll, f.alg) == f.served + 1 &&
              CX_Algorithm_calls(f.coll, "native") == f.natives,
          "%s %s n=%d: not served by %s (ran native)", f.coll, f.alg, n, f.alg);
}

/* Receive side: plain ints, or every second int (a vector with holes). */
static MPI_Datatype holes;

static int value(int r, int i) { return r * 100003 + i * 7 + 1; }

/* One allgather(v) of n ints per rank (v: rank r sends n (r + 1) / p,
 * the last one nothing), in place or not, with alg, compared with PMPI_. */
static void one(const char *alg, int v, int n, int in_place, int holey)
{
    const char *coll = v ? "allgatherv" : "allgather";
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int total = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = !v ? n : r == size - 1 ? 0 : (int)((long)n * (r + 1) / size);
        displs[r] = total + (v ? 5 : 0);   /* v: gaps between blocks */
        total = displs[r] + counts[r];
    }
    int span = holey ? 2 * total + 2 : total + 1;
    MPI_Datatype rt = holey ? holes : MPI_INT;
    int *sbuf = malloc(sizeof(int) * (size_t)(counts[rank] + 1));
    int *got = malloc(sizeof(int) * (size_t)span), *want = malloc(sizeof(int) * (size_t)span);
    for (int i = 0; i < counts[rank]; i++)
        sbuf[i] = value(rank, i);
    for (int i = 0; i < span; i++)
        got[i] = want[i] = -1;
    int stride = holey ? 2 : 1;
    if (in_place)   /* my block already in the receive buffer */
        for (int i = 0; i < counts[rank]; i++)
            got[(displs[rank] + i) * stride] = want[(displs[rank] + i) * stride] = value(rank, i);
    const void *sb = in_place ? MPI_IN_PLACE : sbuf;
    if (v)
        PMPI_Allgatherv(sb, counts[rank], MPI_INT, want, counts, displs, rt, MPI_COMM_WORLD);
    else
        PMPI_Allgather(sb, n, MPI_INT, want, n, rt, MPI_COMM_WORLD);
    forced f = force(coll, alg);
    served(f, v ? CX_Allgatherv(sb, counts[rank], MPI_INT, got, counts, displs, rt,
                                MPI_COMM_WORLD)
                : CX_Allgather(sb, n, MPI_INT, got, n, rt, MPI_COMM_WORLD), n);
    CHECK(memcmp(got, want, sizeof(int) * (size_t)span) == 0,
          "%s %s n=%d in_place=%d holes=%d: result differs from PMPI_", coll, alg, n,
          in_place, holey);
    free(sbuf);
    free(got);
    free(want);
    free(counts);
    free(displs);
}

/* One alltoall of n ints per block (in place or not, receive type with
 * holes or not) with alg, compared with PMPI_. */
static void one_a2a(const char *alg, int n, int in_place, int holey)
{
    int stride = holey ? 2 : 1;
    size_t span = (size_t)size * (size_t)n * (size_t)stride + 1;
    int *sbuf = malloc(sizeof(int) * (size_t)size * (size_t)n + 1);
    int *got = malloc(sizeof(int) * span), *want = malloc(sizeof(int) * span);
    for (int i = 0; i < size * n; i++)
        sbuf[i] = value(rank, i);
    for (size_t i = 0; i < span; i++)
        got[i] = want[i] = -1;
    if (in_place) {   /* the send data is the receive buffer, in its type */
        for (int i = 0; i < size * n; i++)
            got[(size_t)i * (size_t)stride] = want[(size_t)i * (size_t)stride] = sbuf[i];
    }
    MPI_Datatype rt = holey ? holes : MPI_INT;
    const void *sb = in_place ? MPI_IN_PLACE : sbuf;
    PMPI_Alltoall(sb, n, MPI_INT, want, n, rt, MPI_COMM_WORLD);
    forced f = force("alltoall", alg);
    served(f, CX_Alltoall(sb, n, MPI_INT, got, n, rt, MPI_COMM_WORLD), n);
    CHECK(memcmp(got, want, sizeof(int) * span) == 0,
          "alltoall %s n=%d in_place=%d holes=%d: result differs from PMPI_", alg, n,
          in_place, holey);
    free(sbuf);
    free(got);
    free(want);
}

/* One gather or scatter of n ints per block at root (the root in place
 * or not) with hier, compared with PMPI_. */
static void one_rooted(int gather, int n, int root, int in_place)
{
    const char *coll = gather ? "gather" : "scatter";
    size_t all = (size_t)size * (size_t)n;
    int *big = malloc(sizeof(int) * all + 1), *big_want = malloc(sizeof(int) * all + 1);
    int *mine = malloc(sizeof(int) * (size_t)n + 1), *mine_want = malloc(sizeof(int) * (size_t)n + 1);
    for (size_t i = 0; i < all; i++)
        big[i] = big_want[i] = gather ? -1 : value(rank, (int)i);
    for (int i = 0; i < n; i++)
        mine[i] = mine_want[i] = gather ? value(rank, i) : -1;
    int ip = in_place && rank == root;
    if (gather && ip)   /* the root's block already in place */
        for (int i = 0; i < n; i++)
            big[(size_t)root * (size_t)n + (size_t)i] =
                big_want[(size_t)root * (size_t)n + (size_t)i] = mine[i];
    if (gather)
        PMPI_Gather(ip ? MPI_IN_PLACE : mine, n, MPI_INT, big_want, n, MPI_INT, root,
                    MPI_COMM_WORLD);
    else
        PMPI_Scatter(big_want, n, MPI_INT, ip ? MPI_IN_PLACE : mine_want, n, MPI_INT, root,
                     MPI_COMM_WORLD);
    forced f = force(coll, "hier");
    served(f, gather ? CX_Gather(ip ? MPI_IN_PLACE : mine, n, MPI_INT, big, n, MPI_INT, root,
                                 MPI_COMM_WORLD)
                     : CX_Scatter(big, n, MPI_INT, ip ? MPI_IN_PLACE : mine, n, MPI_INT, root,
                                  MPI_COMM_WORLD), n);
    if (gather && rank == root)
        CHECK(memcmp(big, big_want, sizeof(int) * all) == 0,
              "gather hier n=%d root=%d in_place=%d: result differs from PMPI_", n, root, ip);
    if (!gather && !ip)
        CHECK(memcmp(mine, mine_want, sizeof(int) * (size_t)n) == 0,
              "scatter hier n=%d root=%d: result differs from PMPI_", n, root);
    free(big);
    free(big_want);
    free(mine);
    free(mine_want);
}

/* One reduce_scatter_block (v = 0) or reduce_scatter (rank r gets
 * n (r + 1) / p) of ints with MPI_SUM, in place or not, with hier. */
static void one_rs(int v, int n, int in_place)
{
    const char *coll = v ? "reduce_scatter" : "reduce_scatter_block";
    int *counts = malloc(sizeof(int) * (size_t)size), total = 0;
    for (int r = 0; r < size; r++)
        total += counts[r] = v ? (int)((long)n * (r + 1) / size) : n;
    int *in = malloc(sizeof(int) * (size_t)total + 1);
    int *got = malloc(sizeof(int) * (size_t)total + 1), *want = malloc(sizeof(int) * (size_t)total + 1);
    for (int i = 0; i < total; i++)
        in[i] = got[i] = want[i] = value(rank, i) % 1000;
    const void *sb = in_place ? MPI_IN_PLACE : in;
    if (v)
        PMPI_Reduce_scatter(sb, want, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
        PMPI_Reduce_scatter_block(sb, want, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    forced f = force(coll, "hier");
    served(f, v ? CX_Reduce_scatter(sb, got, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                : CX_Reduce_scatter_block(sb, got, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD), n);
    CHECK(memcmp(got, want, sizeof(int) * (size_t)counts[rank]) == 0,
          "%s hier n=%d in_place=%d: result differs from PMPI_", coll, n, in_place);
    free(counts);
    free(in);
    free(got);
    free(want);
}

/* One scan (ex = 0) or exscan of n ints with MPI_SUM, in place or not,
 * with hier (needs every node's ranks consecutive). */
static void one_scan(int ex, int n, int in_place)
{
    const char *coll = ex ? "exscan" : "scan";
    int *in = malloc(sizeof(int) * (size_t)n + 1);
    int *got = malloc(sizeof(int) * (size_t)n + 1), *want = malloc(sizeof(int) * (size_t)n + 1);
    for (int i = 0; i < n; i++)
        in[i] = got[i] = want[i] = value(rank, i) % 1000;
    const void *sb = in_place ? MPI_IN_PLACE : in;
    if (ex)
        PMPI_Exscan(sb, want, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
        PMPI_Scan(sb, want, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    forced f = force(coll, "hier");
    served(f, ex ? CX_Exscan(sb, got, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                 : CX_Scan(sb, got, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD), n);
    if (!ex || rank > 0)   /* exscan: rank 0's result is undefined */
        CHECK(memcmp(got, want, sizeof(int) * (size_t)n) == 0,
              "%s hier n=%d in_place=%d: result differs from PMPI_", coll, n, in_place);
    free(in);
    free(got);
    free(want);
}

/* One alltoallv of ints: rank r sends n (1 + (r + j) % 3) / 2 ints to
 * rank j (symmetric, so the receive counts follow), with gaps between
 * blocks, in place or not, with alg. */
static int a2av_count(int n, int r, int j) { return n * (1 + (r + j) % 3) / 2; }

static void one_a2av(const char *alg, int n, int in_place)
{
    int *sc = malloc(sizeof(int) * 4 * (size_t)size), *sd = sc + size, *rc = sd + size,
        *rd = rc + size, st = 0, rt = 0;
    for (int j = 0; j < size; j++) {
        sc[j] = a2av_count(n, rank, j);
        rc[j] = a2av_count(n, j, rank);
        sd[j] = st + 3;
        rd[j] = rt + 3;
        st = sd[j] + sc[j];
        rt = rd[j] + rc[j];
    }
    int *sbuf = malloc(sizeof(int) * (size_t)st + 1);
    int *got = malloc(sizeof(int) * (size_t)rt + 1), *want = malloc(sizeof(int) * (size_t)rt + 1);
    for (int i = 0; i < st; i++)
        sbuf[i] = value(rank, i);
    for (int i = 0; i < rt; i++)
        got[i] = want[i] = in_place ? value(rank, i) : -1;
    const void *sb = in_place ? MPI_IN_PLACE : sbuf;
    if (in_place) {   /* in place: the receive layout is the send layout */
        PMPI_Alltoallv(sb, NULL, NULL, MPI_INT, want, rc, rd, MPI_INT, MPI_COMM_WORLD);
    } else {
        PMPI_Alltoallv(sb, sc, sd, MPI_INT, want, rc, rd, MPI_INT, MPI_COMM_WORLD);
    }
    forced f = force("alltoallv", alg);
    served(f, CX_Alltoallv(sb, sc, sd, MPI_INT, got, rc, rd, MPI_INT, MPI_COMM_WORLD), n);
    CHECK(memcmp(got, want, sizeof(int) * (size_t)rt) == 0,
          "alltoallv %s n=%d in_place=%d: result differs from PMPI_", alg, n, in_place);
    free(sc);
    free(sbuf);
    free(got);
    free(want);
}

/* One gatherv or scatterv at root: rank r's piece is n (1 + r % 3) / 2
 * ints, the root's blocks with gaps, the root in place or not, with hier. */
static void one_v_rooted(int gather, int n, int root, int in_place)
{
    const char *coll = gather ? "gatherv" : "scatterv";
    int *counts = malloc(sizeof(int) * 2 * (size_t)size), *displs = counts + size, total = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = n * (1 + r % 3) / 2;
        displs[r] = total + 2;
        total = displs[r] + counts[r];
    }
    int mine = counts[rank], ip = in_place && rank == root;
    int *big = malloc(sizeof(int) * (size_t)total + 1), *big_want = malloc(sizeof(int) * (size_t)total + 1);
    int *own = malloc(sizeof(int) * (size_t)mine + 1), *own_want = malloc(sizeof(int) * (size_t)mine + 1);
    for (int i = 0; i < total; i++)
        big[i] = big_want[i] = gather ? -1 : value(rank, i);
    for (int i = 0; i < mine; i++)
        own[i] = own_want[i] = gather ? value(rank, i) : -1;
    if (gather && ip)
        for (int i = 0; i < mine; i++)
            big[displs[rank] + i] = big_want[displs[rank] + i] = own[i];
    if (gather)
        PMPI_Gatherv(ip ? MPI_IN_PLACE : own, mine, MPI_INT, big_want, counts, displs, MPI_INT,
                     root, MPI_COMM_WORLD);
    else
        PMPI_Scatterv(big_want, counts, displs, MPI_INT, ip ? MPI_IN_PLACE : own_want, mine,
                      MPI_INT, root, MPI_COMM_WORLD);
    forced f = force(coll, "hier");
    served(f, gather ? CX_Gatherv(ip ? MPI_IN_PLACE : own, mine, MPI_INT, big, counts, displs,
                                  MPI_INT, root, MPI_COMM_WORLD)
                     : CX_Scatterv(big, counts, displs, MPI_INT, ip ? MPI_IN_PLACE : own, mine,
                                   MPI_INT, root, MPI_COMM_WORLD), n);
    if (gather && rank == root)
        CHECK(memcmp(big, big_want, sizeof(int) * (size_t)total) == 0,
              "gatherv hier n=%d root=%d in_place=%d: result differs from PMPI_", n, root, ip);
    if (!gather && !ip)
        CHECK(memcmp(own, own_want, sizeof(int) * (size_t)mine) == 0,
              "scatterv hier n=%d root=%d: result differs from PMPI_", n, root);
    free(counts);
    free(big);
    free(big_want);
    free(own);
    free(own_want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);   /* errors: FAIL lines */
    MPI_Datatype v2;
    MPI_Type_vector(1, 1, 2, MPI_INT, &v2);
    MPI_Type_create_resized(v2, 0, 2 * sizeof(int), &holes);
    MPI_Type_commit(&holes);
    MPI_Type_free(&v2);
    /* The budget (COLLX_SHM_MAX / 2) decides the bands: sizes from below
     * one pass to one local rank per band. */
    const char *max = getenv("COLLX_SHM_MAX");
    long budget = max ? atol(max) / 2 : 1 << 27;
    int ns[] = {1, (int)(budget / 4 / size / 2), (int)(budget / 4 / size * 2),
                (int)(budget / 4 / 3)};
    const char *algs[] = {"hier", "hier_ms"};
    int checks = 0;
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < 4; k++)
            for (int v = 0; v < 2; v++)
                for (int ip = 0; ip < 2; ip++)
                    for (int h = 0; h < 2; h++) {
                        one(algs[a], v, ns[k], ip, h);
                        checks++;
                    }
    /* alltoall: bands of two source local ranks, and of one (a band's
     * regions hold its ranks' blocks to all p and from 3 nodes of 3). */
    int a2a[] = {(int)(budget / 144), (int)(budget / 80)};
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < 2; k++)
            for (int ip = 0; ip < 2; ip++)
                for (int h = 0; h < 2; h++) {
                    one_a2a(algs[a], a2a[k], ip, h);
                    checks++;
                }
    /* gather, scatter: bands of two local ranks, and of one; roots on
     * different nodes, in place at the root or not. */
    int rooted[] = {(int)(budget / 4 / size + 30), (int)(budget / 12)};
    for (int g = 0; g < 2; g++)
        for (int k = 0; k < 2; k++)
            for (int root = 0; root < size; root += 3)
                for (int ip = 0; ip < 2; ip++) {
                    one_rooted(g, rooted[k], root, ip);
                    checks++;
                }
    /* reduce_scatter(_block): chunks of two ranks' blocks, and of one
     * (a chunk needs a region per local rank, at most 3, and two more). */
    int rs[] = {(int)(budget / 4 / 5 / 3), (int)(budget / 4 / 5 - 200)};
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < 2; k++)
            for (int ip = 0; ip < 2; ip++) {
                one_rs(v, rs[k], ip);
                checks++;
            }
    /* alltoallv: bands of two source local ranks, and of one */
    int a2av[] = {(int)(budget / 130), (int)(budget / 80)};
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < 2; k++)
            for (int ip = 0; ip < 2; ip++) {
                one_a2av(algs[a], a2av[k], ip);
                checks++;
            }
    /* gatherv, scatterv: bands of local ranks (one or two per band). A
     * local rank's column counts its pieces twice (the ranks' sizes and
     * the root's: vrooted.c), 16-32 n bytes on the test's layouts, so
     * from n = budget / 32 one local rank alone would not fit and the
     * call would run native (which served() reports). */
    int vrooted[] = {(int)(budget / 47), (int)(budget / 33)};
    for (int g = 0; g < 2; g++)
        for (int k = 0; k < 2; k++)
            for (int root = 0; root < size; root += 3)
                for (int ip = 0; ip < 2; ip++) {
                    one_v_rooted(g, vrooted[k], root, ip);
                    checks++;
                }
    /* scan, exscan: chunks of the vector (consecutive nodes only) */
    if (!getenv("COLLX_FAKE_NODES"))
        for (int ex = 0; ex < 2; ex++)
            for (int ip = 0; ip < 2; ip++) {
                one_scan(ex, (int)(budget / 6), ip);
                checks++;
            }
    MPI_Type_free(&holes);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("hier_bands: %d calls per rank, %s\n", checks, all ? "FAILED" : "all passed");
    MPI_Finalize();
    return all ? 1 : 0;
}
