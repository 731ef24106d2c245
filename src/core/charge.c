/* Local work in SMPI. With smpi/simulate-computation:no a memcpy or a local
 * reduction costs no simulated time, while an intra-node MPI message pays
 * the loopback link: every shared-memory algorithm would look free. So the
 * executor charges each local copy and reduction at the platform's rates,
 * which sim/run exports from the platform's .cfg file (collx:copy_bw and
 * collx:reduce_bw, bytes per second; calibration in sim/README.md). */
#include <stdlib.h>
#include "dtype.h"

#ifdef SMPI_H
static double rate(const char *var, double dflt)
{
    const char *v = getenv(var);
    double r = v ? atof(v) : 0.0;
    return r > 0 ? r : dflt;
}

/* Defaults when a platform names no rate: a DDR4 socket's memcpy. */
void cx_charge_copy(MPI_Count bytes)
{
    static double bw;
    if (!bw)
        bw = rate("COLLX_SMPI_COPY_BW", 5e9);
    if (bytes > 0)
        smpi_execute((double)bytes / bw);
}

void cx_charge_reduce(MPI_Count bytes)
{
    static double bw;
    if (!bw)
        bw = rate("COLLX_SMPI_REDUCE_BW", 2.5e9);
    if (bytes > 0)
        smpi_execute((double)bytes / bw);
}
#else
void cx_charge_copy(MPI_Count bytes) { (void)bytes; }
void cx_charge_reduce(MPI_Count bytes) { (void)bytes; }
#endif
