/* Emulated process arrival patterns (PAP paper, section 5). */
#ifndef CB_PAP_H
#define CB_PAP_H

#include <stdint.h>
#include <mpi.h>
#include "cb_colls.h"

/* Delay of rank in repetition rep: uniform in [0, max_delay] seconds,
 * a pure function of (seed, rep, rank), so every run and every algorithm
 * sees the same pattern. */
double cb_pap_delay(uint64_t seed, int rep, int rank, double max_delay);

/* Emulated computation of `delay` seconds: sleeps half, reaches the edge
 * point (50 % of the computation), sleeps the other half. */
void cb_pap_compute(MPI_Comm comm, double delay);

/* The edge point of the emulated computation. */
void pap_edge(MPI_Comm comm);

/* Around the timed repetitions of --pap runs: CX_Pat_init, and registration
 * of the timed gather/scatter (root < 0: rotating root, not registered);
 * CX_Pat_finalize. */
void pap_begin(const cb_op *op, int root);
void pap_end(MPI_Comm comm);

#endif
