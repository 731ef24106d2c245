/* Stops the process with a message when the interposer was preloaded into
 * a program of another MPI than the one it was built for (which_mpi.c). */
#ifndef CX_PMPI_WHICH_MPI_H
#define CX_PMPI_WHICH_MPI_H
void cx_pmpi_check_mpi(void);
#endif
