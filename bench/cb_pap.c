#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <time.h>
#include <mpi.h> /* in SMPI, redirects nanosleep to simulated time */
#include "cb_pap.h"
#include "cb_rng.h"

double cb_pap_delay(uint64_t seed, int rep, int rank, double max_delay)
{
    return max_delay * cb_uniform(seed ^ 0x5041505041505ULL, (uint64_t)rep,
                                  (uint64_t)rank);
}

static void sleep_seconds(double s)
{
    if (s <= 0)
        return;
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
}

/* ===================================================================
 * PAP EDGE POINT — intentionally empty for now.
 * This is the single place where the benchmark tells collx that 50 % of
 * this iteration's computation is done. It is to be wired to the PAP API:
 *     CX_Pat_edge(comm, 0.5);
 * (with CX_Pat_init/CX_Pat_finalize around the measurement loop), so the
 * arrival-aware algorithms can predict arrival times.
 * =================================================================== */
void pap_edge(MPI_Comm comm)
{
    (void)comm;
}

void cb_pap_compute(MPI_Comm comm, double delay)
{
    sleep_seconds(0.5 * delay);
    pap_edge(comm);
    sleep_seconds(delay - 0.5 * delay);
}
