/* Local work in SMPI. With smpi/simulate-computation:no a memcpy or a local
 * reduction costs no simulated time, while an intra-node MPI message pays
 * the loopback link: every shared-memory algorithm would look free. So the
 * executor charges each local copy and reduction at the platform's rates,
 * which sim/run exports from the platform's .cfg file (collx:copy_bw and
 * collx:reduce_bw, bytes per second; calibration in sim/README.md). */
#include <stdlib.h>
#include "dtype.h"

#ifdef SMPI_H
/* bytes at the rate named by var (read once into *bw); a platform that
 * names none gets 5 GB/s, a 2015 server core's memcpy. */
static void charge(double *bw, const char *var, MPI_Count bytes)
{
    if (!*bw) {
        const char *v = getenv(var);
        *bw = v && atof(v) > 0 ? atof(v) : 5e9;
    }
    if (bytes > 0)
        smpi_execute((double)bytes / *bw);
}

void cx_charge_copy(MPI_Count bytes)
{
    static double bw;
    charge(&bw, "COLLX_SMPI_COPY_BW", bytes);
}

void cx_charge_reduce(MPI_Count bytes)
{
    static double bw;
    charge(&bw, "COLLX_SMPI_REDUCE_BW", bytes);
}
#else
void cx_charge_copy(MPI_Count bytes) { (void)bytes; }
void cx_charge_reduce(MPI_Count bytes) { (void)bytes; }
#endif
