/* CX_<Name>_shared: the collective without a receive buffer. The result
 * stays where the hierarchical algorithm left it, in the node-shared
 * segment, and the caller gets a read-only pointer to it (Parsons & Pai's
 * "return the shared buffer": the copy-out, p blocks per rank in an
 * allgather, is saved). When hier cannot serve the call, it runs as usual
 * into a buffer collx keeps per communicator, so *result is always the
 * result. */
#include <stdint.h>
#include "hier.h"
#include "../core/call/call.h"   /* a family's API face: it dispatches */

/* Where count elements of t at element offset first lie, in bytes from
 * a receive buffer's start (lb-aware, as MPI lays them out): widens
 * [*lo, *hi). */
static void cover(MPI_Aint first, MPI_Aint count, MPI_Datatype t, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint ext, tlb, text;
    if (count <= 0)
        return;
    cx_type_extents(t, &ext, &tlb, &text);
    MPI_Aint a = first * ext + tlb, b = a + (count - 1) * ext + text;
    if (ext < 0) {   /* negative extents run backwards */
        MPI_Aint x = first * ext + (count - 1) * ext + tlb;
        b = first * ext + tlb + text;
        a = x;
    }
    *lo = a < *lo ? a : *lo;
    *hi = b > *hi ? b : *hi;
}

/* The range cover widens, empty at first. */
#define NO_LO ((MPI_Aint)PTRDIFF_MAX)
#define NO_HI ((MPI_Aint)PTRDIFF_MIN)

/* Runs a with hier (or its fallback); *result = the segment or, where
 * the caller has no receive buffer (own: it has, the root of a bcast),
 * the per-communicator buffer that holds bytes [lo, hi) of one: the
 * buffer's address is that buffer minus lo (a datatype of absolute
 * addresses, as with MPI_BOTTOM, works too). */
static int run_shared(cx_args *a, int own, MPI_Aint lo, MPI_Aint hi, const void **result)
{
    if (lo > hi)   /* nothing covered */
        lo = hi = 0;
    MPI_Aint span = hi - lo;
    const char *what = cx_coll_mpi_name(a->coll);
    cx_comm *c;
    int err, inter = 0;
    if (!result)
        return cx_error(a->comm, MPI_ERR_ARG, "%s_shared: result is NULL", what);
    *result = NULL;
    if (a->comm == MPI_COMM_NULL)
        return cx_error(a->comm, MPI_ERR_COMM, "%s_shared: MPI_COMM_NULL", what);
    if (PMPI_Comm_test_inter(a->comm, &inter) || inter)
        return cx_error(a->comm, MPI_ERR_COMM, "%s_shared: needs an intracommunicator",
                        what);
    if (a->sbuf == MPI_IN_PLACE)
        return cx_error(a->comm, MPI_ERR_BUFFER, "%s_shared: MPI_IN_PLACE needs a receive "
                        "buffer; call %s instead", what, what);
    if ((err = cx_comm_get(a->comm, &c)))
        return cx_error(a->comm, err, "%s_shared: cannot set up communicator state", what);
    if (!own) {
        char *scratch = hier_scratch(c, span > 0 ? span : 1);
        if (!scratch)
            return cx_error(a->comm, MPI_ERR_NO_MEM, "%s_shared: out of memory", what);
        a->rbuf = scratch - lo;
    }
    a->shared_out = result;
    err = cx_dispatch_as(a, cx_algorithm_find(a->coll, "hier"));
    if (!err && !*result)
        *result = a->rbuf;
    return err;
}

int CX_Bcast_shared(const void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                    const void **result)
{
    MPI_Aint lo = NO_LO, hi = NO_HI;
    int rank = -1;
    cover(0, count, type, &lo, &hi);
    if (comm != MPI_COMM_NULL)
        PMPI_Comm_rank(comm, &rank);
    cx_args a = {.coll = CX_COLL_BCAST, .rbuf = (void *)buf, .rcount = count, .rtype = type,
                 .root = root, .comm = comm};
    return run_shared(&a, rank == root, lo, hi, result);
}

int CX_Allgather_shared(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        const void **result)
{
    int p = 0;
    if (comm != MPI_COMM_NULL)
        PMPI_Comm_size(comm, &p);
    MPI_Aint lo = NO_LO, hi = NO_HI;
    cover(0, (MPI_Aint)p * recvcount, recvtype, &lo, &hi);
    cx_args a = {.coll = CX_COLL_ALLGATHER, .sbuf = sendbuf, .scount = sendcount,
                 .stype = sendtype, .rcount = recvcount, .rtype = recvtype, .comm = comm};
    return run_shared(&a, 0, lo, hi, result);
}

int CX_Allgatherv_shared(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, const void **result)
{
    int p = 0;
    MPI_Aint lo = NO_LO, hi = NO_HI;
    if (comm != MPI_COMM_NULL)
        PMPI_Comm_size(comm, &p);
    for (int r = 0; recvcounts && displs && r < p; r++)
        cover(displs[r], recvcounts[r], recvtype, &lo, &hi);
    cx_args a = {.coll = CX_COLL_ALLGATHERV, .sbuf = sendbuf, .scount = sendcount,
                 .stype = sendtype, .rcounts = recvcounts, .rdispls = displs,
                 .rtype = recvtype, .comm = comm};
    return run_shared(&a, 0, lo, hi, result);
}

int CX_Allreduce_shared(const void *sendbuf, int count, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm, const void **result)
{
    MPI_Aint lo = NO_LO, hi = NO_HI;
    cover(0, count, type, &lo, &hi);
    cx_args a = {.coll = CX_COLL_ALLREDUCE, .sbuf = sendbuf, .rcount = count, .rtype = type,
                 .op = op, .comm = comm};
    return run_shared(&a, 0, lo, hi, result);
}
