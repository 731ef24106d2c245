/* Emulated process arrival patterns (PAP paper, section 5). */
#ifndef CB_PAP_H
#define CB_PAP_H

#include <stdint.h>
#include <mpi.h>

/* Delay of rank in repetition rep: uniform in [0, max_delay] seconds,
 * a pure function of (seed, rep, rank), so every run and every algorithm
 * sees the same pattern. */
double cb_pap_delay(uint64_t seed, int rep, int rank, double max_delay);

/* Emulated computation of `delay` seconds: sleeps half, reaches the edge
 * point (50 % of the computation), sleeps the other half. */
void cb_pap_compute(MPI_Comm comm, double delay);

/* The edge point of the emulated computation. */
void pap_edge(MPI_Comm comm);

#endif
