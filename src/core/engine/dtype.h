/* Datatype helpers: sizes (64-bit), extents, big messages, and local typed
 * copies and reductions of any count. */
#ifndef CX_DTYPE_H
#define CX_DTYPE_H

#include <mpi.h>
#include "../util/util.h"   /* the seam (sim.h): the charges of local work */

/* Bytes of data of count elements of t (0 for count 0; for a null type
 * with count > 0 too: argument checks reject those before). */
MPI_Count cx_type_bytes(MPI_Aint count, MPI_Datatype t);
/* The same, with MPI_ERR_TYPE for a null type with count > 0. */
int cx_type_bytes_x(MPI_Aint count, MPI_Datatype t, MPI_Count *bytes);
MPI_Aint cx_type_extent(MPI_Datatype t);
/* Bytes of counts[0..n) elements of t (negative counts as 0; NULL: 0). */
MPI_Count cx_counts_bytes(const int *counts, int n, MPI_Datatype t);
/* Whether t's elements are back to back from offset 0 with no holes (its
 * packed form is its layout). */
int cx_type_plain(MPI_Datatype t);
/* Whether t is one of MPI's usual predefined types: a handle that always
 * means the same layout (a freed derived type's handle may come back for
 * another). */
int cx_type_builtin(MPI_Datatype t);
/* Whether op is one of MPI's predefined operations (or MPI_OP_NULL). */
int cx_op_builtin(MPI_Op op);
/* Extent, true lower bound and true extent of t (cached for predefined
 * types, as cx_type_bytes and cx_type_extent are). */
void cx_type_extents(MPI_Datatype t, MPI_Aint *extent, MPI_Aint *tlb, MPI_Aint *textent);
/* Address of block i of count elements of t in buf. */
static inline char *cx_block(const void *buf, MPI_Aint i, MPI_Aint count,
                             MPI_Datatype t)
{
    return (char *)buf + i * count * cx_type_extent(t);
}
/* One element of a new (uncommitted) type = count elements of t, for
 * messages of more than INT_MAX elements. */
int cx_type_big(MPI_Aint count, MPI_Datatype t, MPI_Datatype *out);
/* Whether two (buffer, count, type) pieces are the same memory, so a copy
 * between them is nothing. Equal pointers alone are not enough: with
 * MPI_BOTTOM the address is in the type, and two pieces at MPI_BOTTOM
 * are usually different memory. */
int cx_same_piece(const void *a, MPI_Aint acount, MPI_Datatype at, const void *b,
                  MPI_Aint bcount, MPI_Datatype bt);
/* Local typed copy; signatures must match (MPI_PACKED allowed on a side). */
int cx_copy(const void *src, MPI_Aint scount, MPI_Datatype st, void *dst,
            MPI_Aint dcount, MPI_Datatype dt);
/* inout = in op inout (MPI_Reduce_local for any count). */
int cx_reduce_local(const void *in, void *inout, MPI_Aint count, MPI_Datatype t,
                    MPI_Op op);
/* The charges of local work in SMPI are the seam's (util/sim.h). */
/* cx_copy outside the executor, charged at once (SMPI). */
int cx_copy_charged(const void *src, MPI_Aint scount, MPI_Datatype st, void *dst,
                    MPI_Aint dcount, MPI_Datatype dt);

#endif
