/* What collx linked in costs with nothing chosen (issue 63): a plain MPI
 * program, alltoallv-dominated as the issue's, built twice, with smpicc
 * and with collx-smpicc. Under SMPI the clock is simulated and the runs
 * are deterministic: rank 0 prints the simulated seconds from MPI_Init to
 * before MPI_Finalize, and SimGrid (smpi/display-timing) those to the end.
 *   cost_app [iterations [ints per pair [work]]]  (default 20, 64, 0; 0
 *   ints: no alltoallv, the allreduce only: thousands of ranks in seconds;
 *   work: microseconds of computation per iteration, a busy loop on this
 *   host's CPU, which SMPI charges with smpi/simulate-computation:yes) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* us of this thread's CPU time (SMPI times the same clock); the host's
 * clock, not smpicc's simulated one (smpi_helpers.h renames it) */
#ifdef clock_gettime
#undef clock_gettime
#endif
static void work(int us)
{
    struct timespec t0, t;
    volatile double sink = 0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do {
        for (int i = 0; i < 1000; i++)
            sink += i * 0.5;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();
    int rank, p, iters = argc > 1 ? atoi(argv[1]) : 20, m = argc > 2 ? atoi(argv[2]) : 64,
        us = argc > 3 ? atoi(argv[3]) : 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int *sc = malloc(sizeof(int) * (size_t)p), *sd = malloc(sizeof(int) * (size_t)p);
    int *rc = malloc(sizeof(int) * (size_t)p), *rd = malloc(sizeof(int) * (size_t)p);
    int ns = 0, nr = 0;
    for (int d = 0; d < p; d++) {   /* uneven: 0.5m .. 1.5m per pair */
        sc[d] = m / 2 + (rank + d) % (m + 1), sd[d] = ns, ns += sc[d];
        rc[d] = m / 2 + (d + rank) % (m + 1), rd[d] = nr, nr += rc[d];
    }
    int *sb = calloc((size_t)ns + 1, sizeof(int)), *rb = calloc((size_t)nr + 1, sizeof(int));
    double x[8] = {0}, y[8];
    for (int it = 0; it < iters; it++) {
        if (m > 0)
            MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
        x[0] = rb[0] + it;
        if (us > 0)
            work(us);
        MPI_Allreduce(x, y, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("cost_app: %d ranks, %d iterations, %d ints per pair: %.9f s simulated\n", p,
               iters, m, MPI_Wtime() - t0);
    free(sc), free(sd), free(rc), free(rd), free(sb), free(rb);
    MPI_Finalize();
    return 0;
}
