/* Common clock. In SMPI MPI_Wtime is the simulated global clock, so the
 * offset is 0. On a real MPI every rank r > 0 estimates the offset of its
 * MPI_Wtime to rank 0's by a ping-pong (Cristian's method): r sends at t0,
 * rank 0 answers with its time T, r receives at t1; if the two halves of the
 * round trip are equally long, rank 0's clock read T at r-time (t0+t1)/2, so
 * offset = T - (t0+t1)/2. The error is at most half the round trip, so of
 * CB_PINGS samples we keep the one with the smallest round trip. collbench
 * measures the offsets again before every case, so drift only matters
 * within one case's repetitions. */
#include "cb_clock.h"

#define CB_PINGS 30
#define CB_TAG 4711

static double offset; /* per process: privatized in SMPI, unused there */

/* MPI_WTIME_IS_GLOBAL is not trusted: Intel MPI 2021 sets it while each
 * process reads its own calibrated TSC (two ranks of one node 70 ms
 * apart), which made every synchronized metric of collbench wrong there.
 * Measuring costs 30 ping-pongs a rank and finds ~0 where it is true. */
static int clock_is_global(MPI_Comm comm)
{
    (void)comm;
#ifdef CB_SMPI
    return 1;
#else
    return 0;
#endif
}

int cb_clock_init(MPI_Comm comm)
{
    int rank, size;
    offset = 0;
    if (clock_is_global(comm))
        return 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Barrier(comm);
    if (rank == 0) {
        for (int r = 1; r < size; r++)
            for (int k = 0; k < CB_PINGS; k++) {
                double t;
                MPI_Recv(&t, 0, MPI_DOUBLE, r, CB_TAG, comm, MPI_STATUS_IGNORE);
                t = MPI_Wtime();
                MPI_Send(&t, 1, MPI_DOUBLE, r, CB_TAG, comm);
            }
    } else {
        double best = 1e300;
        for (int k = 0; k < CB_PINGS; k++) {
            double t0 = MPI_Wtime(), T;
            MPI_Send(&t0, 0, MPI_DOUBLE, 0, CB_TAG, comm);
            MPI_Recv(&T, 1, MPI_DOUBLE, 0, CB_TAG, comm, MPI_STATUS_IGNORE);
            double t1 = MPI_Wtime();
            if (t1 - t0 < best) {
                best = t1 - t0;
                offset = T - 0.5 * (t0 + t1);
            }
        }
    }
    MPI_Barrier(comm);
    return 0;
}

double cb_now(void) { return MPI_Wtime() + offset; }
double cb_clock_offset(void) { return offset; }
