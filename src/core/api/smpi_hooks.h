/* collx's work at the start and the end of MPI in SMPI (smpi_finalize.smpi.c),
 * for the C entry points there and the SMPI interposer's Fortran ones
 * (src/pmpi/fortran_init.smpi.c), whose MPI_INIT and MPI_FINALIZE are
 * SimGrid's and never reach the program's MPI_Init. */
#ifndef CX_SMPI_HOOKS_H
#define CX_SMPI_HOOKS_H
void cx_smpi_at_init(void);
void cx_smpi_at_finalize(void);
#endif
