/* A clock common to all ranks, for arrival (a_i) and finish (f_i) times. */
#ifndef CB_CLOCK_H
#define CB_CLOCK_H

#include <mpi.h>

/* Estimates this rank's offset to rank 0's clock (collective over comm).
 * Returns 1 if the clock was already global (SMPI's; MPI_WTIME_IS_GLOBAL
 * is not trusted, cb_clock.c says why). */
int cb_clock_init(MPI_Comm comm);
/* MPI_Wtime() shifted onto rank 0's clock. */
double cb_now(void);
double cb_clock_offset(void);

#endif
