/* Local work in SMPI. With smpi/simulate-computation:no a memcpy or a local
 * reduction costs no simulated time, while an intra-node MPI message pays
 * the loopback link: every shared-memory algorithm would look free. So the
 * executor charges each local copy and reduction at the platform's rates,
 * which sim/run exports from the platform's .cfg file (collx:copy_bw and
 * collx:reduce_bw, bytes per second; calibration in sim/README.md).
 * SMPI build only (sim.h: a real MPI's are no-ops). */
#include <stdlib.h>
#include <simgrid/host.h>
#include "util.h"

/* Seconds for bytes at the rate of knob k; a platform that names none
 * gets the default, 5 GB/s, a 2015 server core's memcpy. */
static double seconds(cx_knob k, MPI_Count bytes)
{
    return bytes > 0 ? (double)bytes / cx_knob_real(k) : 0;
}

double cx_copy_seconds(MPI_Count bytes)
{
    return seconds(CX_KNOB_SMPI_COPY_BW, bytes);
}

double cx_reduce_seconds(MPI_Count bytes)
{
    return seconds(CX_KNOB_SMPI_REDUCE_BW, bytes);
}

/* smpi_execute drops anything below smpi/cpu-threshold (1 us by
 * default): a small copy, a flag handoff, would cost nothing. So the
 * seconds go in as flops at this host's speed, which is never dropped. */
void cx_charge(double *pending)
{
    if (*pending > 0)
        smpi_execute_flops(*pending * sg_host_get_speed(sg_host_self()));
    *pending = 0;
    /* the copies' host time is charged here, not timed; and the other
     * ranks ran on this thread meanwhile: SMPI times around some calls the
     * macros of smpi_bench.h do not name (without this drop, hier_ms at
     * p = 64 with computation: 3.3 -> 127 ms) */
    cx_bench_drop();
}
void cx_charge_copy(MPI_Count bytes)
{
    double t = cx_copy_seconds(bytes);
    cx_charge(&t);
}

void cx_charge_sync(int ranks)
{
    double t = cx_knob_real(CX_KNOB_SMPI_SYNC) +
               (ranks > 2 ? ranks - 2 : 0) * cx_knob_real(CX_KNOB_SMPI_SYNC_RANK);
    cx_charge(&t);
}

void cx_charge_call(int collx_algorithm)
{
    double t = cx_knob_real(collx_algorithm ? CX_KNOB_SMPI_CALL : CX_KNOB_SMPI_MPI_CALL);
    cx_charge(&t);
}
