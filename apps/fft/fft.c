/* Parallel radix-2 decimation-in-frequency FFT, the PAP paper's use case
 * (Proficz 2020, section 6): the master runs the first log2(p) DIF stages,
 * sends block i to rank i (point-to-point), every rank finishes its block
 * (OpenMP inside the rank) and the results are collected with CX_Gather by
 * the selected algorithm. Iterative, with CX_Pat_edge at half of each
 * rank's stages. Reports per gather algorithm (Table 5 shape): total time,
 * mean run time r and mean elapsed time e of the gather.
 *
 * usage: fft [-n LOG2N] [-i ITERS] [--algs a,b,...] [--gflops G] [--noise F]
 *   -n      log2 of the complex points per iteration (default 17: 256K floats)
 *   --gflops  emulated compute rate of one rank (all its threads) in SMPI,
 *           independent of the host (default 0.1; 0 = no emulation); on
 *           real MPI the computation is real
 *   --noise F each rank's compute of an iteration is stretched by up to F
 *           (uniform, per rank and iteration): imbalanced arrivals
 * Before timing, a 256-point transform is checked against a direct DFT;
 * after each algorithm, its last transform against a one-rank transform.
 * Exit status 1 when a check fails. */
#define _POSIX_C_SOURCE 200809L
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* M_PI */
#endif
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "collx.h"

typedef float complex cplx;

static int rank, size, threads = 1;
static double gflops = 0.1, noise;

/* DIF stages of lengths len = from, from/2, ..., down to `to` (inclusive) on
 * x[0..n): butterflies of each len-block, the second half twiddled. */
static void dif_stages(cplx *x, long n, long from, long to)
{
    for (long len = from; len >= to && len >= 2; len /= 2) {
        long half = len / 2;
        const double ang = -2.0 * M_PI / (double)len;
        cplx *w = malloc(sizeof(cplx) * (size_t)half);  /* this stage's twiddles */
        for (long j = 0; j < half; j++)
            w[j] = (cplx)cexp(I * ang * (double)j);
#pragma omp parallel for schedule(static)
        for (long k = 0; k < n / 2; k++) {
            long b = (k / half) * len, j = k % half;
            cplx u = x[b + j], v = x[b + j + half];
            x[b + j] = u + v;
            x[b + j + half] = (u - v) * w[j];
        }
        free(w);
    }
}

static long bitrev(long k, int bits)
{
    long r = 0;
    for (int i = 0; i < bits; i++, k >>= 1)
        r = (r << 1) | (k & 1);
    return r;
}

static unsigned long rng_state;
static double uniform(void)
{
    rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* Emulated cost of `stages` DIF stages over m points (SMPI: the host CPU is
 * not simulated), stretched by this iteration's noise factor. */
static void emulate(long m, int stages, double stretch)
{
#ifdef FFT_SMPI
    if (gflops > 0 && stages > 0)
        smpi_execute(stretch * 5.0 * (double)m * stages / 2 / (gflops * 1e9));
#else
    (void)m; (void)stages; (void)stretch;
#endif
}

#ifndef FFT_SMPI
static void sleep_s(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}
#endif

/* One distributed transform of x (master) into y (master, natural order).
 * blk: this rank's block (m points), gat: the master's gather buffer.
 * Returns a, f (gather arrival and finish on this rank). */
static void transform(cplx *x, cplx *y, cplx *blk, cplx *gat, long n, int logn,
                      int edge, double *a, double *f)
{
    long m = n / size;
    int logm = logn, lp = 0;
    while ((1L << lp) < size)
        lp++;
    logm -= lp;
    double stretch = 1.0 + noise * uniform(), t0 = MPI_Wtime();
    if (rank == 0) {
        dif_stages(x, n, n, 2 * m);     /* the first log2(p) stages */
        emulate(n, lp, 1.0);
        for (int r = 1; r < size; r++)
            MPI_Send(x + r * m, (int)(2 * m), MPI_FLOAT, r, 7, MPI_COMM_WORLD);
        memcpy(blk, x, sizeof(cplx) * (size_t)m);
    } else {
        MPI_Recv(blk, (int)(2 * m), MPI_FLOAT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (edge)
        CX_Pat_start(MPI_COMM_WORLD);
    /* local stages: the first half, the edge, the second half */
    long mid = m >> (logm / 2);
    dif_stages(blk, m, m, 2 * mid);
    emulate(m, logm / 2, stretch);
    if (edge)
        CX_Pat_edge(MPI_COMM_WORLD, logm ? (double)(logm / 2) / logm : 1.0);
    dif_stages(blk, m, mid, 2);
    emulate(m, logm - logm / 2, stretch);
#ifndef FFT_SMPI
    if (noise > 0)   /* real MPI: stretch the measured compute */
        sleep_s((stretch - 1.0) * (MPI_Wtime() - t0));
#endif
    (void)t0;
    *a = MPI_Wtime();
    CX_Gather(blk, (int)(2 * m), MPI_FLOAT, gat, (int)(2 * m), MPI_FLOAT, 0, MPI_COMM_WORLD);
    *f = MPI_Wtime();
    if (rank == 0)
        for (long k = 0; k < n; k++)
            y[bitrev(k, logn)] = gat[k];
}

static void fill(cplx *x, long n, int it)
{
    for (long k = 0; k < n; k++)
        x[k] = (float)sin(0.001 * (double)(k * (it + 3))) + I * (float)((k * 7 + it) % 13) / 13.0f;
}

/* 256-point transform against a direct DFT (master decides, all return it). */
static int verify(void)
{
    int logn = 8;
    long n = 1L << logn;
    while (n / size < 2)
        n <<= 1, logn++;
    cplx *x = malloc(sizeof(cplx) * n), *x0 = malloc(sizeof(cplx) * n);
    cplx *y = malloc(sizeof(cplx) * n), *g = malloc(sizeof(cplx) * n);
    cplx *blk = malloc(sizeof(cplx) * (n / size));
    fill(x, n, 1);
    memcpy(x0, x, sizeof(cplx) * n);
    double a, f, err = 0;
    transform(x, y, blk, g, n, logn, 0, &a, &f);
    if (rank == 0)
        for (long k = 0; k < n; k++) {
            double complex s = 0;
            for (long j = 0; j < n; j++)
                s += x0[j] * cexp(-2.0 * I * M_PI * (double)((j * k) % n) / (double)n);
            err = fmax(err, cabs(s - y[k]) / (1.0 + cabs(s)));
        }
    int ok = err < 1e-3;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("# verify n=%ld against direct DFT: max rel err %.2e %s\n", n, err,
               ok ? "ok" : "FAILED");
    free(x); free(x0); free(y); free(g); free(blk);
    return ok;
}

/* The master's y of the last timed iteration against a one-rank transform
 * of the same input (x is scratch): a gather that misplaces a block fails. */
static int last_matches_sequential(cplx *x, const cplx *y, long n, int logn, int it)
{
    if (rank != 0)
        return 1;
    fill(x, n, it);
    dif_stages(x, n, n, 2);
    double err = 0;
    for (long k = 0; k < n; k++)
        err = fmax(err, cabs(x[k] - y[bitrev(k, logn)]) / (1.0 + cabs(x[k])));
    return err < 1e-4;
}

int main(int argc, char **argv)
{
    int logn = 17, iters = 50, provided, bad = 0;
    const char *algs = "linear_sync,binomial,sls,sbn,bsls,bsbn,native";
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) logn = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--algs") && i + 1 < argc) algs = argv[++i];
        else if (!strcmp(argv[i], "--gflops") && i + 1 < argc) gflops = atof(argv[++i]);
        else if (!strcmp(argv[i], "--noise") && i + 1 < argc) noise = atof(argv[++i]);
        else {
            if (rank == 0)
                fprintf(stderr, "usage: %s [-n LOG2N] [-i ITERS] [--algs a,b] "
                                "[--gflops G] [--noise F]\n", argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    if (size & (size - 1)) {
        if (rank == 0)
            fprintf(stderr, "fft: the number of ranks must be a power of two\n");
        MPI_Finalize();
        return 2;
    }
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    rng_state = 0x9e3779b97f4a7c15UL * (unsigned long)(rank + 1);
    if (!verify()) {
        MPI_Finalize();
        return 1;
    }
    long n = 1L << logn, m = n / size;
    cplx *x = malloc(sizeof(cplx) * n), *y = malloc(sizeof(cplx) * n);
    cplx *gat = malloc(sizeof(cplx) * n), *blk = malloc(sizeof(cplx) * m);
    double *A = malloc(sizeof(double) * size), *F = malloc(sizeof(double) * size);
    if (rank == 0)
        printf("# fft p=%d n=2^%d (%ld floats) iters=%d threads=%d gflops=%g noise=%g "
               "thread-level=%d\n# %-12s %10s %10s %10s\n", size, logn, 2 * n, iters,
               threads, gflops, noise, provided, "algorithm", "total_s", "run_s", "elapsed_s");
    char list[512];
    snprintf(list, sizeof list, "%s", algs);
    char *save = NULL;   /* strtok_r: SMPI ranks share libc's strtok state */
    for (char *alg = strtok_r(list, ",", &save); alg; alg = strtok_r(NULL, ",", &save)) {
        if (CX_Algorithm_set("gather", alg) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 2);
        CX_Pat_init(MPI_COMM_WORLD);
        /* the master reads its gather buffer only after the call */
        CX_Pat_expect_gather(blk, (int)(2 * m), MPI_FLOAT, gat, (int)(2 * m), MPI_FLOAT,
                             0, MPI_COMM_WORLD);
        double rsum = 0, esum = 0, a, f;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int it = 0; it < iters; it++) {
            if (rank == 0)
                fill(x, n, it);
            transform(x, y, blk, gat, n, logn, 1, &a, &f);
            MPI_Gather(&a, 1, MPI_DOUBLE, A, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            MPI_Gather(&f, 1, MPI_DOUBLE, F, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                double amin = A[0], fmax_ = F[0], e = 0;
                for (int r = 0; r < size; r++) {
                    amin = fmin(amin, A[r]);
                    fmax_ = fmax(fmax_, F[r]);
                    e += F[r] - A[r];
                }
                rsum += fmax_ - amin;
                esum += e / size;
            }
        }
        double total = MPI_Wtime() - t0;
        CX_Pat_finalize(MPI_COMM_WORLD);
        int same = last_matches_sequential(x, y, n, logn, iters - 1);
        MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("  %-12s %10.3f %10.4f %10.4f%s\n", alg, total, rsum / iters, esum / iters,
                   same ? "" : "  WRONG RESULT");
        if (!same)
            bad = 1;
    }
    CX_Algorithm_set("gather", NULL);
    free(x); free(y); free(gat); free(blk); free(A); free(F);
    MPI_Finalize();
    return bad;
}
