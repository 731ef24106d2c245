#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* usleep */
#endif
/* The one-sided broadcast API (CX_Rma_*) on real windows: every root, both
 * algorithms, sizes 0..MBs, a window with a displacement unit of 4, a
 * derived type, repeated broadcasts without any barrier, all ranks as
 * roots at once (serialised, never mixed), flush/test semantics, error
 * classes, and the engine that was chosen.
 *
 * usage: rma_api single|multiple [max_bytes]
 * COLLX_RMA_EXPECT_ENGINE=thread|inline: fail if another engine runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "collx.h"
#include "../common/check.h"

#define GUARD 64
static int rank, size, failures;
static CX_Rma rma;
static int trace;

static unsigned char pattern(int root, long k, long i)
{
    return (unsigned char)(root * 31 + k * 7 + i * 13 + (i >> 8));
}

/* Waits (forwarding meanwhile) until n broadcasts have arrived here. */
static void wait_arrived(MPI_Win win, long long n)
{
    long long got = 0;
    double t0 = MPI_Wtime();
    /* A polling loop must let others run: in SMPI ranks are cooperative
     * actors and a local atomic does not yield. */
    for (CX_Rma_bcast_arrived(win, &got); got < n && MPI_Wtime() - t0 < 60;
         CX_Rma_bcast_arrived(win, &got))
        usleep(2);
    CHECK(got == n, "arrived %lld broadcasts, want %lld", got, n);
}

static long long arrived(MPI_Win win)
{
    long long n = 0;
    CX_Rma_bcast_arrived(win, &n);
    return n;
}

/* One broadcast of bytes from root into win at disp (units of unit),
 * checked everywhere, guards included. */
static void one(MPI_Win win, unsigned char *base, int unit, int alg, int root,
                long bytes, long k)
{
    MPI_Aint disp = GUARD / unit;
    if (trace)
        printf("rank %d: alg %d root %d bytes %ld\n", rank, alg, root, bytes);
    memset(base, 0xEE, (size_t)(bytes + 2 * GUARD));
    MPI_Win_sync(win);
    long long before = arrived(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == root) {
        unsigned char *buf = malloc((size_t)bytes + 1);
        for (long i = 0; i < bytes; i++)
            buf[i] = pattern(root, k, i);
        int flag = -1, err = CX_Rma_bcast(buf, (int)bytes, MPI_BYTE, root, win, disp, alg);
        CHECK(err == MPI_SUCCESS, "CX_Rma_bcast returned %d", err);
        memset(buf, 0, (size_t)bytes);   /* buf is the caller's again */
        CHECK(CX_Rma_bcast_test(win, &flag) == MPI_SUCCESS && (flag == 0 || flag == 1),
              "test gave flag %d", flag);
        CHECK(CX_Rma_bcast_flush(win) == MPI_SUCCESS, "flush failed");
        CHECK(CX_Rma_bcast_test(win, &flag) == MPI_SUCCESS && flag == 1,
              "test after flush gave flag %d", flag);
        free(buf);
        for (long i = 0; i < bytes + 2 * GUARD; i++)
            if (base[i] != 0xEE) {
                CHECK(0, "root's own window changed at %ld", i);
                break;
            }
    } else {
        wait_arrived(win, before + 1);
        MPI_Win_sync(win);
        for (long i = 0; i < bytes + 2 * GUARD; i++) {
            int in = i >= GUARD && i < GUARD + bytes;
            unsigned char want = in ? pattern(root, k, i - GUARD) : 0xEE;
            if (base[i] != want) {
                CHECK(0, "alg %d root %d bytes %ld: byte %ld is %d, want %d", alg, root,
                      bytes, i - GUARD, base[i], want);
                break;
            }
        }
    }
}

/* k broadcasts from one root without barriers, each into its own slot. */
static void repeated(MPI_Win win, unsigned char *base, int alg, int root, int n)
{
    const long slot = 256;
    memset(base, 0, (size_t)(n * slot));
    MPI_Win_sync(win);
    long long before = arrived(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == root) {
        unsigned char buf[256];
        for (int k = 0; k < n; k++) {
            for (int i = 0; i < slot; i++)
                buf[i] = pattern(root, k, i);
            CHECK(CX_Rma_bcast(buf, (int)slot, MPI_BYTE, root, win, k * slot, alg) == 0,
                  "repeated bcast %d", k);
            if (trace)
                printf("rank %d: repeated %d sent\n", rank, k);
        }
        CHECK(CX_Rma_bcast_flush(win) == MPI_SUCCESS, "flush after repeated");
    } else {
        wait_arrived(win, before + n);
        MPI_Win_sync(win);
        for (int k = 0; k < n; k++)
            for (int i = 0; i < slot; i++)
                if (base[k * slot + i] != pattern(root, k, i)) {
                    CHECK(0, "repeated alg %d root %d: slot %d byte %d", alg, root, k, i);
                    return;
                }
    }
}

/* Every rank is a root at the same moment, twice in a row, each into its
 * own region of a window with a displacement unit of 4 (disp in ints):
 * the runtime serialises them. */
static void all_roots(MPI_Win win, unsigned char *base, int alg)
{
    const long region = 4096;
    memset(base, 0, (size_t)(size * region));
    MPI_Win_sync(win);
    long long before = arrived(win);
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char *buf = malloc(region);
    for (int rep = 0; rep < 2; rep++) {
        for (long i = 0; i < region; i++)
            buf[i] = pattern(rank, rep, i);
        CHECK(CX_Rma_bcast(buf, (int)region, MPI_BYTE, rank, win, rank * region / 4, alg) == 0,
              "all-roots bcast");
    }
    if (trace)
        printf("rank %d: all-roots sent\n", rank);
    CHECK(CX_Rma_bcast_flush(win) == MPI_SUCCESS, "all-roots flush");
    wait_arrived(win, before + 2 * (size - 1));
    MPI_Win_sync(win);
    for (int r = 0; r < size; r++)
        for (long i = 0; r != rank && i < region; i++)
            if (base[r * region + i] != pattern(r, 1, i)) {
                CHECK(0, "all-roots alg %d: region of root %d byte %ld", alg, r, i);
                break;
            }
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A strided type at the root arrives packed. */
static void derived(MPI_Win win, unsigned char *base, int alg)
{
    MPI_Datatype vec;
    MPI_Type_vector(100, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int src[600];
    for (int i = 0; i < 600; i++)
        src[i] = i * 7 + 1;
    memset(base, 0, 2 * 400);
    MPI_Win_sync(win);
    long long before = arrived(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int root = size - 1;
    if (rank == root) {
        CHECK(CX_Rma_bcast(src, 2, vec, root, win, 0, alg) == 0, "derived bcast");
        CHECK(CX_Rma_bcast_flush(win) == 0, "derived flush");
    } else {
        wait_arrived(win, before + 1);
        MPI_Win_sync(win);
        int got[200];
        memcpy(got, base, sizeof got);
        for (int i = 0; i < 200; i++)
            if (got[i] != ((i / 100) * 298 + (i % 100) * 3) * 7 + 1) {
                CHECK(0, "derived alg %d: int %d is %d", alg, i, got[i]);
                break;
            }
    }
    MPI_Type_free(&vec);
}

static void errors(MPI_Win win, MPI_Aint wbytes)
{
    char b[8] = {0};
    MPI_Win other;
    void *ob;
    CHECK(CX_Rma_bcast(b, 1, MPI_BYTE, (rank + 1) % size, win, 0, CX_RMA_BINOMIAL) ==
              (size > 1 ? MPI_ERR_ROOT : MPI_SUCCESS), "wrong root not MPI_ERR_ROOT");
    if (size > 1)
        CHECK(CX_Rma_bcast(b, 8, MPI_BYTE, rank, win, wbytes - 4, CX_RMA_BINOMIAL) ==
                  MPI_ERR_RMA_RANGE, "out of range not MPI_ERR_RMA_RANGE");
    CHECK(CX_Rma_bcast(b, -1, MPI_BYTE, rank, win, 0, CX_RMA_BINOMIAL) == MPI_ERR_COUNT,
          "negative count");
    CHECK(CX_Rma_bcast(b, 1, MPI_BYTE, rank, win, 0, 7) == MPI_ERR_ARG, "bad alg");
    MPI_Win_allocate(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &ob, &other);
    MPI_Win_set_errhandler(other, MPI_ERRORS_RETURN);
    CHECK(CX_Rma_bcast(b, 1, MPI_BYTE, rank, other, 0, CX_RMA_BINOMIAL) == MPI_ERR_WIN,
          "unregistered window not MPI_ERR_WIN");
    MPI_Win_free(&other);
    CHECK(CX_Rma_bcast_flush(win) == MPI_SUCCESS, "flush after errors");
}

int main(int argc, char **argv)
{
    int provided, want = argc > 1 && strcmp(argv[1], "multiple") == 0
                             ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
    long max = argc > 2 ? atol(argv[2]) : 3L << 20;
    MPI_Init_thread(&argc, &argv, want, &provided);
    setvbuf(stdout, NULL, _IOLBF, 0);
    trace = getenv("RMA_TRACE") != NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(CX_Rma_init(MPI_COMM_WORLD, &rma) == MPI_SUCCESS, "CX_Rma_init");
    const char *engine = "?", *expect = getenv("COLLX_RMA_EXPECT_ENGINE");
    CX_Rma_engine(rma, &engine);
    if (rank == 0)
        printf("rma_api p=%d engine=%s max=%ld\n", size, engine, max);
    CHECK(!expect || strcmp(expect, engine) == 0, "engine %s, expected %s", engine, expect);

    /* Window 1: allocated, unit 1. Window 2: created on user memory with a
     * unit of 4 bytes. */
    MPI_Aint wbytes = max + 2 * GUARD;
    if (wbytes < 64 * 256 + 2 * GUARD)
        wbytes = 64 * 256 + 2 * GUARD;
    if (wbytes < size * 4096)
        wbytes = size * 4096;
    unsigned char *b1, *b2 = malloc((size_t)wbytes);
    MPI_Win w1, w2;
    MPI_Win_allocate(wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b1, &w1);
    /* Debian's Open MPI cannot MPI_Win_create (osc/rdma without a usable
     * transport): then an allocated window with a unit of 4. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int ok = MPI_Win_create(b2, wbytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &w2) == 0, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (ok)
            MPI_Win_free(&w2);
        free(b2);
        MPI_Win_allocate(wbytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &b2, &w2);
    }
    if (rank == 0)
        printf("window 2: %s, unit 4\n", all_ok ? "MPI_Win_create" : "MPI_Win_allocate");
    MPI_Win_set_errhandler(w1, MPI_ERRORS_RETURN);
    MPI_Win_set_errhandler(w2, MPI_ERRORS_RETURN);
    int wid1 = -1, wid2 = -1;
    CHECK(CX_Rma_win_register(rma, w1, &wid1) == 0, "register w1");
    CHECK(CX_Rma_win_register(rma, w2, &wid2) == 0 && wid2 != wid1, "register w2");

    const long sizes[] = {0, 1, 7, 4096, 100000, 1L << 20, max};
    long k = 0;
    for (int alg = 0; alg < 2; alg++) {
        for (int root = 0; root < size; root++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
                if (sizes[s] <= max && (s < 5 || root == 0 || root == size - 1))
                    one(s % 2 ? w2 : w1, s % 2 ? b2 : b1, s % 2 ? 4 : 1, alg, root,
                        sizes[s], k++);
        if (trace)
            printf("rank %d: repeated, all roots, derived\n", rank);
        repeated(w1, b1, alg, size / 2, 40);
        all_roots(w2, b2, alg);
        derived(w1, b1, alg);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (trace)
        printf("rank %d: errors, finalize\n", rank);
    errors(w1, wbytes);
    CHECK(CX_Rma_finalize(&rma) == MPI_SUCCESS && rma == NULL, "CX_Rma_finalize");
    MPI_Win_free(&w1);
    MPI_Win_free(&w2);
    if (all_ok)
        free(b2);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_api: %s (%d failures over all ranks, %ld broadcasts checked)\n",
               all ? "FAILED" : "OK", all, k);
    MPI_Finalize();
    return all != 0;
}
