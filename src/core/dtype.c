/* Datatype helpers: sizes, extents and local typed copies. */
#include <string.h>
#include "cx_internal.h"

size_t cx_type_bytes(int count, MPI_Datatype t)
{
    int size = 0;
    if (count <= 0 || t == MPI_DATATYPE_NULL)
        return 0;
    PMPI_Type_size(t, &size);
    return (size_t)count * (size_t)size;
}

MPI_Aint cx_type_extent(MPI_Datatype t)
{
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(t, &lb, &extent);
    return extent;
}

/* A type whose count elements are one dense run of bytes starting at buf. */
static int is_dense(MPI_Datatype t)
{
    int size;
    MPI_Aint lb, extent, tlb, textent;
    if (t == MPI_PACKED)
        return 1;
    PMPI_Type_size(t, &size);
    PMPI_Type_get_extent(t, &lb, &extent);
    PMPI_Type_get_true_extent(t, &tlb, &textent);
    return lb == 0 && tlb == 0 && extent == size && textent == size;
}

int cx_copy(const void *src, int scount, MPI_Datatype st, void *dst,
            int dcount, MPI_Datatype dt)
{
    size_t bytes = cx_type_bytes(scount, st);
    if (bytes == 0 || src == dst)
        return MPI_SUCCESS;
    if (st == MPI_PACKED && dt == MPI_PACKED) {
        memcpy(dst, src, bytes);
        return MPI_SUCCESS;
    }
    if (st == MPI_PACKED) {
        int pos = 0;
        return PMPI_Unpack(src, scount, &pos, dst, dcount, dt, MPI_COMM_SELF);
    }
    if (dt == MPI_PACKED) {
        int pos = 0;
        return PMPI_Pack(src, scount, st, dst, dcount, &pos, MPI_COMM_SELF);
    }
    if (st == dt && is_dense(st)) {
        memcpy(dst, src, bytes);
        return MPI_SUCCESS;
    }
    /* Different layouts with the same signature: let MPI do the conversion. */
    return PMPI_Sendrecv(src, scount, st, 0, 0, dst, dcount, dt, 0, 0,
                         MPI_COMM_SELF, MPI_STATUS_IGNORE);
}
