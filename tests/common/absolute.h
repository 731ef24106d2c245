/* Test helper: datatypes of absolute addresses, for calls at MPI_BOTTOM. */
#ifndef TESTS_ABSOLUTE_H
#define TESTS_ABSOLUTE_H

#include <mpi.h>

/* t moved to the address of p: count elements of the result at
 * MPI_BOTTOM are count elements of t at p (same extent). Committed; the
 * caller frees it. */
static inline MPI_Datatype absolute_at(MPI_Datatype t, const void *p)
{
    MPI_Aint at, lb, ext;
    MPI_Datatype one, out;
    int len = 1;
    MPI_Get_address(p, &at);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_create_struct(1, &len, &at, &t, &one);
    MPI_Type_create_resized(one, at + lb, ext, &out);
    MPI_Type_free(&one);
    MPI_Type_commit(&out);
    return out;
}

#endif
