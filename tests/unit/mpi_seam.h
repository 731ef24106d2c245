/* mpi_seam.c: the MPI calls unit_select answers itself (no MPI_Init). */
#ifndef COLLX_UNIT_MPI_SEAM_H
#define COLLX_UNIT_MPI_SEAM_H

#include <mpi.h>

/* The operation that stands for a user-defined one that does not commute
 * (no operation can be created before MPI_Init): MPI_REPLACE, never given
 * to a collective by the tests otherwise. */
#define UNIT_NONCOMMUTATIVE_OP MPI_REPLACE

#endif
