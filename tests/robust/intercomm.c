/* Every collective that MPI defines on intercommunicators, on real
 * intercommunicators of every shape p allows (groups 1|p-1 ... p-1|1 and
 * even|odd ranks), results checked here. A plain MPI program (no collx
 * header or library): the robust.intercomm tests run it under
 * LD_PRELOAD=libcollx_pmpi.so with nothing selected and with every
 * registered algorithm forced, where collx must hand the call to PMPI_.
 * Scan and Exscan are not defined on intercommunicators.
 * Only point-to-point messages outside the tested calls, so that a forced
 * algorithm cannot fail the harness itself. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 5          /* elements per block */
#define RS_TOTAL 12  /* reduce_scatter: elements reduced, the same in both groups */
#define SENTINEL (-77)

static int wrank, wsize, bad;
static int mygroup, lrank, lsize, rsize;
static char shape[64];

static void fail(const char *coll, const char *fmt, ...)
{
    if (bad++ < 20) {
        char what[160];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        fprintf(stderr, "FAIL intercomm shape=%s coll=%s world=%d group=%d rank=%d: %s\n",
                shape, coll, wrank, mygroup, lrank, what);
    }
}

static void ok(const char *coll, int rc)
{
    if (rc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, s, &len);
        fprintf(stderr, "FAIL intercomm shape=%s coll=%s world=%d: returned %s\n", shape,
                coll, wrank, s);
        bad++;
    }
}

static void expect(const char *coll, const int *buf, long i, int want)
{
    if (buf[i] != want)
        fail(coll, "element %ld is %d, want %d", i, buf[i], want);
}

/* Contribution of rank r of group g, element i. */
static int val(int g, int r, long i) { return (g * 64 + r) * 1000 + (int)i; }
/* Block for remote rank j from rank r of group g. */
static int sval(int g, int r, int j, long i) { return ((g * 16 + r) * 16 + j) * 1000 + (int)i; }
/* Variable counts (zero included): what rank r of group g sends (to j). */
static int vcnt(int g, int r) { return (r + 2 * g) % 4; }
static int wcnt(int g, int r, int j) { return (r + 2 * j + g) % 4; }
/* Reduce_scatter: elements of rank r in a group of n. */
static int rs_cnt(int n, int r) { return RS_TOTAL / n + (r < RS_TOTAL % n); }

static int *ints(long n)
{
    int *b = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (long i = 0; i < n; i++)
        b[i] = SENTINEL;
    return b;
}

/* Displacements of v-layouts: blocks in reverse rank order with a gap of 1. */
static long rev_displs(const int *counts, int n, int *displs)
{
    long d = 0;
    for (int j = n - 1; j >= 0; j--) {
        displs[j] = (int)d;
        d += counts[j] + 1;
    }
    return d;
}

static void test_barrier(MPI_Comm ic) { ok("Barrier", MPI_Barrier(ic)); }

/* Rooted collectives: root r of group g; the other group names it by r,
 * the root passes MPI_ROOT, its group mates MPI_PROC_NULL. */
static int root_arg(int g, int r)
{
    if (mygroup != g)
        return r;
    return lrank == r ? MPI_ROOT : MPI_PROC_NULL;
}

static void test_bcast(MPI_Comm ic, int g, int r)
{
    int *b = ints(N);
    if (mygroup == g && lrank == r)
        for (int i = 0; i < N; i++)
            b[i] = val(g, r, i);
    ok("Bcast", MPI_Bcast(b, N, MPI_INT, root_arg(g, r), ic));
    for (int i = 0; i < N; i++) {
        if (mygroup != g)
            expect("Bcast", b, i, val(g, r, i));
        else if (lrank != r)
            expect("Bcast(proc_null untouched)", b, i, SENTINEL);
    }
    free(b);
}

static void test_gather(MPI_Comm ic, int g, int r)
{
    int *s = ints(N), *b = ints((long)rsize * N);
    for (int i = 0; i < N; i++)
        s[i] = val(mygroup, lrank, i);
    ok("Gather", MPI_Gather(s, N, MPI_INT, b, N, MPI_INT, root_arg(g, r), ic));
    if (mygroup == g && lrank == r)
        for (int j = 0; j < rsize; j++)
            for (int i = 0; i < N; i++)
                expect("Gather", b, (long)j * N + i, val(1 - g, j, i));
    free(s);
    free(b);
}

static void test_gatherv(MPI_Comm ic, int g, int r)
{
    int counts[64], displs[64];
    for (int j = 0; j < rsize; j++)
        counts[j] = vcnt(1 - g, j);
    long len = rev_displs(counts, rsize, displs);
    int n = vcnt(mygroup, lrank), *s = ints(n + 1), *b = ints(len);
    for (int i = 0; i < n; i++)
        s[i] = val(mygroup, lrank, i);
    ok("Gatherv", MPI_Gatherv(s, n, MPI_INT, b, counts, displs, MPI_INT, root_arg(g, r), ic));
    if (mygroup == g && lrank == r)
        for (int j = 0; j < rsize; j++) {
            for (int i = 0; i < counts[j]; i++)
                expect("Gatherv", b, displs[j] + i, val(1 - g, j, i));
            expect("Gatherv(gap)", b, displs[j] + counts[j], SENTINEL);
        }
    free(s);
    free(b);
}

static void test_scatter(MPI_Comm ic, int g, int r)
{
    int *s = ints((long)rsize * N), *b = ints(N);
    for (int j = 0; j < rsize; j++)
        for (int i = 0; i < N; i++)
            s[j * N + i] = sval(g, r, j, i);
    ok("Scatter", MPI_Scatter(s, N, MPI_INT, b, N, MPI_INT, root_arg(g, r), ic));
    for (int i = 0; i < N; i++)
        expect("Scatter", b, i, mygroup != g ? sval(g, r, lrank, i) : SENTINEL);
    free(s);
    free(b);
}

static void test_scatterv(MPI_Comm ic, int g, int r)
{
    int counts[64], displs[64];
    for (int j = 0; j < rsize; j++)
        counts[j] = vcnt(1 - g, j);
    long len = rev_displs(counts, rsize, displs);
    int n = vcnt(mygroup, lrank), *s = ints(len), *b = ints(n + 1);
    for (int j = 0; j < rsize; j++)
        for (int i = 0; i < counts[j]; i++)
            s[displs[j] + i] = sval(g, r, j, i);
    ok("Scatterv", MPI_Scatterv(s, counts, displs, MPI_INT, b, n, MPI_INT, root_arg(g, r), ic));
    if (mygroup != g)
        for (int i = 0; i < n; i++)
            expect("Scatterv", b, i, sval(g, r, lrank, i));
    expect("Scatterv(past the block)", b, mygroup != g ? n : 0, SENTINEL);
    free(s);
    free(b);
}

static void test_allgather(MPI_Comm ic)
{
    int *s = ints(N), *b = ints((long)rsize * N);
    for (int i = 0; i < N; i++)
        s[i] = val(mygroup, lrank, i);
    ok("Allgather", MPI_Allgather(s, N, MPI_INT, b, N, MPI_INT, ic));
    for (int j = 0; j < rsize; j++)
        for (int i = 0; i < N; i++)
            expect("Allgather", b, (long)j * N + i, val(1 - mygroup, j, i));
    free(s);
    free(b);
}

static void test_allgatherv(MPI_Comm ic)
{
    int counts[64], displs[64];
    for (int j = 0; j < rsize; j++)
        counts[j] = vcnt(1 - mygroup, j);
    long len = rev_displs(counts, rsize, displs);
    int n = vcnt(mygroup, lrank), *s = ints(n + 1), *b = ints(len);
    for (int i = 0; i < n; i++)
        s[i] = val(mygroup, lrank, i);
    ok("Allgatherv", MPI_Allgatherv(s, n, MPI_INT, b, counts, displs, MPI_INT, ic));
    for (int j = 0; j < rsize; j++) {
        for (int i = 0; i < counts[j]; i++)
            expect("Allgatherv", b, displs[j] + i, val(1 - mygroup, j, i));
        expect("Allgatherv(gap)", b, displs[j] + counts[j], SENTINEL);
    }
    free(s);
    free(b);
}

static void test_alltoall(MPI_Comm ic)
{
    int *s = ints((long)rsize * N), *b = ints((long)rsize * N);
    for (int j = 0; j < rsize; j++)
        for (int i = 0; i < N; i++)
            s[j * N + i] = sval(mygroup, lrank, j, i);
    ok("Alltoall", MPI_Alltoall(s, N, MPI_INT, b, N, MPI_INT, ic));
    for (int j = 0; j < rsize; j++)
        for (int i = 0; i < N; i++)
            expect("Alltoall", b, (long)j * N + i, sval(1 - mygroup, j, lrank, i));
    free(s);
    free(b);
}

/* Alltoallv, or Alltoallw with byte displacements and a send type that is
 * a different type with the same signature for every other peer. */
static void test_alltoallvw(MPI_Comm ic, int w)
{
    const char *name = w ? "Alltoallw" : "Alltoallv";
    int sc[64], sd[64], rc[64], rd[64];
    MPI_Datatype st[64], rt[64], one;
    MPI_Type_contiguous(1, MPI_INT, &one);
    MPI_Type_commit(&one);
    for (int j = 0; j < rsize; j++) {
        sc[j] = wcnt(mygroup, lrank, j);
        rc[j] = wcnt(1 - mygroup, j, lrank);
        st[j] = j % 2 ? one : MPI_INT;
        rt[j] = MPI_INT;
    }
    long slen = rev_displs(sc, rsize, sd), rlen = rev_displs(rc, rsize, rd);
    int *s = ints(slen), *b = ints(rlen);
    for (int j = 0; j < rsize; j++)
        for (int i = 0; i < sc[j]; i++)
            s[sd[j] + i] = sval(mygroup, lrank, j, i);
    if (w) {
        int sdb[64], rdb[64];
        for (int j = 0; j < rsize; j++) {
            sdb[j] = sd[j] * (int)sizeof(int);
            rdb[j] = rd[j] * (int)sizeof(int);
        }
        ok(name, MPI_Alltoallw(s, sc, sdb, st, b, rc, rdb, rt, ic));
    } else {
        ok(name, MPI_Alltoallv(s, sc, sd, MPI_INT, b, rc, rd, MPI_INT, ic));
    }
    for (int j = 0; j < rsize; j++) {
        for (int i = 0; i < rc[j]; i++)
            expect(name, b, rd[j] + i, sval(1 - mygroup, j, lrank, i));
        expect(name, b, rd[j] + rc[j], SENTINEL);
    }
    MPI_Type_free(&one);
    free(s);
    free(b);
}

/* Sum over the ranks of group g of val(g, j, i). */
static int sum_of_group(int g, int n, long i)
{
    int t = 0;
    for (int j = 0; j < n; j++)
        t += val(g, j, i);
    return t;
}

static void test_reduce(MPI_Comm ic, int g, int r)
{
    int *s = ints(N), *b = ints(N);
    for (int i = 0; i < N; i++)
        s[i] = val(mygroup, lrank, i);
    ok("Reduce", MPI_Reduce(s, b, N, MPI_INT, MPI_SUM, root_arg(g, r), ic));
    for (int i = 0; i < N; i++)
        expect("Reduce", b, i,
               mygroup == g && lrank == r ? sum_of_group(1 - g, rsize, i) : SENTINEL);
    free(s);
    free(b);
}

static void test_allreduce(MPI_Comm ic)
{
    int *s = ints(N), *b = ints(N);
    for (int i = 0; i < N; i++)
        s[i] = val(mygroup, lrank, i);
    ok("Allreduce", MPI_Allreduce(s, b, N, MPI_INT, MPI_SUM, ic));
    for (int i = 0; i < N; i++)
        expect("Allreduce", b, i, sum_of_group(1 - mygroup, rsize, i));
    free(s);
    free(b);
}

/* The reduction of the other group's RS_TOTAL-element vectors, scattered
 * over this group by recvcounts (one entry per rank of this group). */
static void test_reduce_scatter(MPI_Comm ic)
{
    int counts[64], off = 0;
    for (int j = 0; j < lsize; j++) {
        counts[j] = rs_cnt(lsize, j);
        if (j < lrank)
            off += counts[j];
    }
    int *s = ints(RS_TOTAL), *b = ints(counts[lrank] + 1);
    for (int i = 0; i < RS_TOTAL; i++)
        s[i] = val(mygroup, lrank, i);
    ok("Reduce_scatter", MPI_Reduce_scatter(s, b, counts, MPI_INT, MPI_SUM, ic));
    for (int i = 0; i < counts[lrank]; i++)
        expect("Reduce_scatter", b, i, sum_of_group(1 - mygroup, rsize, off + i));
    expect("Reduce_scatter(past the block)", b, counts[lrank], SENTINEL);
    free(s);
    free(b);
}

/* MPI-3.1 5.10.1: each group provides vectors of n * recvcount elements
 * (n its own size), the same number in both groups, and receives the other
 * group's reduction in blocks of recvcount: uneven groups have different
 * recvcounts. */
static void test_reduce_scatter_block(MPI_Comm ic)
{
    int total = 2 * lsize * rsize, rc = total / lsize;
    int *s = ints(total), *b = ints(rc + 1);
    for (int i = 0; i < total; i++)
        s[i] = val(mygroup, lrank, i);
    ok("Reduce_scatter_block", MPI_Reduce_scatter_block(s, b, rc, MPI_INT, MPI_SUM, ic));
    for (int i = 0; i < rc; i++)
        expect("Reduce_scatter_block", b, i,
               sum_of_group(1 - mygroup, rsize, (long)lrank * rc + i));
    expect("Reduce_scatter_block(past the block)", b, rc, SENTINEL);
    free(s);
    free(b);
}

static void run_shape(MPI_Comm ic)
{
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    MPI_Comm_rank(ic, &lrank);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_remote_size(ic, &rsize);
    test_barrier(ic);
    for (int g = 0; g < 2; g++) {
        int gsize = mygroup == g ? lsize : rsize;
        /* first and last rank of each group as root */
        for (int r = 0; r < gsize; r += gsize > 1 ? gsize - 1 : 1) {
            test_bcast(ic, g, r);
            test_gather(ic, g, r);
            test_gatherv(ic, g, r);
            test_scatter(ic, g, r);
            test_scatterv(ic, g, r);
            test_reduce(ic, g, r);
        }
    }
    test_allgather(ic);
    test_allgatherv(ic);
    test_alltoall(ic);
    test_alltoallvw(ic, 0);
    test_alltoallvw(ic, 1);
    test_allreduce(ic);
    test_reduce_scatter(ic);
    test_reduce_scatter_block(ic);
    /* A duplicate (MPI_Comm_dup of an intercommunicator) behaves alike. */
    MPI_Comm dup;
    ok("Comm_dup", MPI_Comm_dup(ic, &dup));
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    test_barrier(dup);
    test_allreduce(dup);
    test_bcast(dup, 1, 0);
    MPI_Comm_free(&dup);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2 || wsize > 16) {
        if (wrank == 0)
            fprintf(stderr, "intercomm: needs 2..16 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int shapes = 0;
    /* split k: group 0 = ranks < k (sizes k | p-k); k = p: even | odd ranks */
    for (int k = 1; k <= wsize; k++) {
        if (k == wsize) {
            mygroup = wrank % 2;
            snprintf(shape, sizeof shape, "even|odd(%d|%d)", (wsize + 1) / 2, wsize / 2);
        } else {
            mygroup = wrank >= k;
            snprintf(shape, sizeof shape, "%d|%d", k, wsize - k);
        }
        /* world rank of the other group's first member */
        int remote_leader = k == wsize ? 1 - mygroup : (mygroup ? 0 : k);
        MPI_Comm local, ic;
        MPI_Comm_split(MPI_COMM_WORLD, mygroup, wrank, &local);
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 100 + k, &ic);
        int inter = 0;
        MPI_Comm_test_inter(ic, &inter);
        if (!inter)
            fail("Intercomm_create", "not an intercommunicator");
        run_shape(ic);
        MPI_Comm_free(&ic);
        MPI_Comm_free(&local);
        shapes++;
    }
    /* Failures per rank to world rank 0 (point to point only). */
    int total = bad;
    if (wrank == 0) {
        for (int j = 1; j < wsize; j++) {
            int b = 0;
            MPI_Recv(&b, 1, MPI_INT, j, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += b;
        }
        if (total)
            printf("intercomm: FAILED (%d failures, p=%d)\n", total, wsize);
        else
            printf("intercomm: OK (p=%d, %d shapes, 15 collectives)\n", wsize, shapes);
        fflush(stdout);
    } else {
        MPI_Send(&bad, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
