/* Test doubles for the three MPI calls that selection and decisions make
 * on a call's arguments, which an MPI answers only after MPI_Init (Open
 * MPI aborts the process): the size of a datatype (message sizes, node
 * memory), whether an operation commutes, and adding an error code
 * (COLLX_FALLBACK=error). Linked into unit_select and unit_v_size only:
 * the program's own definitions come before libmpi's, for the library's
 * objects linked into it as well. Anything else is a mistake of the
 * test: said, and abort. */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "mpi_seam.h"

int PMPI_Type_size_x(MPI_Datatype t, MPI_Count *size)
{
    if (t == MPI_BYTE || t == MPI_CHAR)
        *size = 1;
    else if (t == MPI_INT || t == MPI_FLOAT)
        *size = 4;
    else if (t == MPI_DOUBLE)
        *size = 8;
    else {
        fprintf(stderr, "unit (mpi_seam.c): PMPI_Type_size_x of a datatype it does not know\n");
        abort();
    }
    return MPI_SUCCESS;
}

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    if (op == MPI_SUM || op == MPI_MAX || op == MPI_MIN)
        *commute = 1;
    else if (op == UNIT_NONCOMMUTATIVE_OP)
        *commute = 0;
    else {
        fprintf(stderr, "unit (mpi_seam.c): PMPI_Op_commutative of an operation it does not "
                "know\n");
        abort();
    }
    return MPI_SUCCESS;
}

/* As an MPI that cannot add codes: collx then returns the class itself. */
int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    (void)errorclass;
    (void)errorcode;
    return MPI_ERR_OTHER;
}
