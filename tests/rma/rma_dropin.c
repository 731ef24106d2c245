#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* usleep */
#endif
/* The drop-in one-sided MPI_Bcast (rma_linear, rma_binomial) back to back:
 * acknowledgements go up the tree and a receiver releases its part only
 * after it unpacked the staging window (hold_acks). Many broadcasts with
 * no barrier in between, a new root each time (so concurrent parts of
 * consecutive broadcasts), sizes that change, a derived type, and ranks
 * that enter late (a slow receiver must hold back the next broadcast, or
 * its staging would be overwritten before it was read). Run with p not a
 * power of two too. Checks the data and that the algorithm really ran.
 * Small messages go by LL (src/rma/ll.h), larger ones by descriptors, so
 * the rounds mix both protocols; erroneous calls whose sizes fall on
 * either side of COLLX_RMA_LL_MAX at the root and at one receiver must
 * give MPI_ERR_TRUNCATE there, correct data elsewhere, and no hang.
 *
 * `stale`: an LL slot left alone for 8160 broadcasts (src/rma/ll.c: the
 * flag period) while its owner was the root, then written again by a
 * late root: the owner must wait for the new data, not take the old
 * broadcast whose flag byte is the same (each rank zeroes its slots
 * every 4096 broadcasts; without that this fails).
 *
 * usage: rma_dropin [rounds] | rma_dropin stale [rma_binomial|rma_linear] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "collx.h"

static int rank, size, failures;

static unsigned char pattern(int round, long i)
{
    return (unsigned char)(round * 29 + i * 11 + (i >> 9));
}

/* Bytes of round r (same on every rank): small, mid and beyond the first
 * staging window (64 KiB), so staging grows between broadcasts too. */
static long round_bytes(int r)
{
    static const long sizes[] = {1, 4000, 70000, 9, 200000, 65536};
    return sizes[r % (int)(sizeof sizes / sizeof *sizes)];
}

static void contiguous_round(int r, int root, unsigned char *buf)
{
    long n = round_bytes(r);
    for (long i = 0; i < n; i++)
        buf[i] = rank == root ? pattern(r, i) : 0;
    /* A late rank: its request waits; the next root must wait for it. */
    if (rank == (r * 7 + 3) % size && rank != root)
        usleep(500);
    CX_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
    for (long i = 0; i < n; i++)
        if (buf[i] != pattern(r, i)) {
            failures++;
            printf("FAIL rank %d: round %d root %d bytes %ld: byte %ld is %d, want %d\n",
                   rank, r, root, n, i, buf[i], pattern(r, i));
            break;
        }
}

/* Every third int: arrives packed and is unpacked from staging. */
static void strided_round(int r, int root)
{
    int v[300];
    MPI_Datatype t;
    MPI_Type_vector(100, 1, 3, MPI_INT, &t);
    MPI_Type_commit(&t);
    for (int i = 0; i < 300; i++)
        v[i] = rank == root ? r * 1000 + i : -1;
    CX_Bcast(v, 1, t, root, MPI_COMM_WORLD);
    for (int i = 0; i < 300; i++) {
        int want = i % 3 ? (rank == root ? r * 1000 + i : -1) : r * 1000 + i;
        if (v[i] != want) {
            failures++;
            printf("FAIL rank %d: strided round %d root %d: int %d is %d, want %d\n", rank,
                   r, root, i, v[i], want);
            break;
        }
    }
    MPI_Type_free(&t);
}

/* Root posts rbytes, rank bad posts bbytes (erroneous), everyone else
 * rbytes: bad gets MPI_ERR_TRUNCATE, the others the root's data. */
static void mismatch_round(int r, int root, int bad, long rbytes, long bbytes,
                           unsigned char *buf)
{
    long n = rank == bad ? bbytes : rbytes;
    for (long i = 0; i < n; i++)
        buf[i] = rank == root ? pattern(r, i) : 0;
    int err = CX_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD), cls = MPI_SUCCESS;
    MPI_Error_class(err, &cls);
    if (rank == bad && cls != MPI_ERR_TRUNCATE) {
        failures++;
        printf("FAIL rank %d: mismatch round %d (root %ld bytes, mine %ld): error class %d, "
               "want MPI_ERR_TRUNCATE\n", rank, r, rbytes, bbytes, cls);
    } else if (rank != bad) {
        long i = 0;
        while (i < n && buf[i] == pattern(r, i))
            i++;
        if (err || i < n) {
            failures++;
            printf("FAIL rank %d: mismatch round %d: error %d, byte %ld wrong\n", rank, r,
                   err, i);
        }
    }
}

/* See the top: rank 1 receives the first broadcast (LL, root 0), roots
 * the next 8159, then the root of the last one (root 0 again, same slot
 * and flag byte) sends late. */
static void stale_slot(const char *alg)
{
    enum { BYTES = 600, PERIOD = 255 * 32 };
    unsigned char buf[BYTES];
    CX_Algorithm_set("bcast", alg);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < BYTES; i++)
            buf[i] = rank == 0 ? pattern(round, i) : 0;
        if (round == 1) {
            for (int c = 1; c < PERIOD; c++) {
                unsigned char one = (unsigned char)c;
                CX_Bcast(&one, 1, MPI_BYTE, 1, MPI_COMM_WORLD);
            }
            if (rank == 0)
                usleep(300000);   /* rank 1 polls its slot meanwhile */
        }
        CX_Bcast(buf, BYTES, MPI_BYTE, 0, MPI_COMM_WORLD);
        for (int i = 0; i < BYTES; i++)
            if (buf[i] != pattern(round, i)) {
                failures++;
                printf("FAIL rank %d: %s stale-slot round %d: byte %d is %d, want %d\n", rank,
                       alg, round, i, buf[i], pattern(round, i));
                break;
            }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && !strcmp(argv[1], "stale")) {
        if (argc < 3 || !strcmp(argv[2], "rma_binomial"))
            stale_slot("rma_binomial");
        if (argc < 3 || !strcmp(argv[2], "rma_linear"))
            stale_slot("rma_linear");
        int all = 0;
        MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0)
            printf("rma_dropin stale p=%d: %s (%d failures)\n", size, all ? "FAILED" : "OK", all);
        MPI_Finalize();
        return all != 0;
    }
    int rounds = argc > 1 ? atoi(argv[1]) : 60;
    unsigned char *buf = malloc(200000);
    const char *algs[] = {"rma_binomial", "rma_linear"};
    for (int a = 0; a < 2; a++) {
        CX_Algorithm_set("bcast", algs[a]);
        for (int r = 0; r < rounds; r++) {
            int root = (r * 5 + a) % size;
            if (r % 6 == 5)
                strided_round(r, root);
            else
                contiguous_round(r, root, buf);
        }
        /* Erroneous sizes across the LL limit (default 32 KiB) both ways,
         * then a correct round: the state must be sane afterwards. */
        if (size > 2) {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            mismatch_round(rounds, 0, size - 1, 100, 40000, buf);
            mismatch_round(rounds + 1, 1, 0, 40000, 100, buf);
            mismatch_round(rounds + 2, 2, 1, 5000, 100, buf);
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
            contiguous_round(rounds + 3, size - 1, buf);
        }
        long want = rounds + (size > 2 ? 4 : 0);
        long ran = CX_Algorithm_calls("bcast", algs[a]);
        if (ran != want) {
            failures++;
            printf("FAIL rank %d: %s ran %ld times, want %ld\n", rank, algs[a], ran, want);
        }
    }
    free(buf);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_dropin p=%d: %s (%d failures, %d broadcasts per algorithm)\n", size,
               all ? "FAILED" : "OK", all, rounds);
    MPI_Finalize();
    return all != 0;
}
