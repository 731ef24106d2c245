/* SMPI: local copies and reductions cost simulated time at the platform's
 * rates (sim/run exports COLLX_SMPI_COPY_BW / COLLX_SMPI_REDUCE_BW from the
 * platform's .cfg), or shared-memory algorithms would look free. On one
 * rank a collx gather is a single copy of n bytes: it must take n /
 * copy_bw; so is a recursive-doubling allreduce (input to result, where
 * its partial result lives; in place, none). A model check on the
 * simulator's clock, not a timing of real hardware. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "collx.h"

static int near(double got, double want)
{
    return fabs(got - want) <= 1e-3 * want + 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *v = getenv("COLLX_SMPI_COPY_BW");
    double bw = v ? atof(v) : 0;
    int n = 64 << 20, bad = 0;
    char *a = malloc(n), *b = malloc(n);
    CX_Algorithm_set("gather", "linear");
    CX_Algorithm_set("allreduce", "recursive_doubling");
    CX_Gather(a, 1, MPI_BYTE, b, 1, MPI_BYTE, 0, MPI_COMM_SELF);   /* state set-up */
    double t0 = MPI_Wtime();
    CX_Gather(a, n, MPI_BYTE, b, n, MPI_BYTE, 0, MPI_COMM_SELF);
    double t1 = MPI_Wtime();
    CX_Allreduce(a, b, n / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
    double t2 = MPI_Wtime();
    printf("copy of %d bytes: %.6f s simulated, want %.6f (copy_bw %.3g B/s)\n", n,
           t1 - t0, n / bw, bw);
    CX_Allreduce(MPI_IN_PLACE, b, n / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
    double t3 = MPI_Wtime();
    printf("allreduce on one rank (one copy): %.6f s, want %.6f; in place %.6f s, want ~0\n",
           t2 - t1, n / bw, t3 - t2);
    bad = !(bw > 0) || !near(t1 - t0, n / bw) || !near(t2 - t1, n / bw) ||
          !(t3 - t2 < 1e-5);   /* the call's own charge only */
    printf("charge: %s\n", bad ? "FAILED" : "OK");
    free(a);
    free(b);
    MPI_Finalize();
    return bad;
}
