/* Public entry points: MPI signatures packed into cx_args. */
#include "cx_internal.h"

#define ROOTED_ARGS(C)                                                          \
    cx_args a = {.coll = C, .sbuf = sendbuf, .stype = sendtype,                 \
                 .rbuf = recvbuf, .rtype = recvtype, .root = root, .comm = comm}

int CX_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
               MPI_Comm comm, CX_Request *request)
{
    ROOTED_ARGS(CX_COLL_GATHER);
    a.scount = sendcount;
    a.rcount = recvcount;
    return cx_dispatch(&a, request);
}

int CX_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
              void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
              MPI_Comm comm)
{
    return CX_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      root, comm, NULL);
}

int CX_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int displs[],
                MPI_Datatype recvtype, int root, MPI_Comm comm,
                CX_Request *request)
{
    ROOTED_ARGS(CX_COLL_GATHERV);
    a.scount = sendcount;
    a.rcounts = recvcounts;
    a.rdispls = displs;
    return cx_dispatch(&a, request);
}

int CX_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, const int recvcounts[], const int displs[],
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return CX_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                       recvtype, root, comm, NULL);
}

int CX_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm, CX_Request *request)
{
    ROOTED_ARGS(CX_COLL_SCATTER);
    a.scount = sendcount;
    a.rcount = recvcount;
    return cx_dispatch(&a, request);
}

int CX_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
               MPI_Comm comm)
{
    return CX_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       root, comm, NULL);
}

int CX_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm,
                 CX_Request *request)
{
    ROOTED_ARGS(CX_COLL_SCATTERV);
    a.scounts = sendcounts;
    a.sdispls = displs;
    a.rcount = recvcount;
    return cx_dispatch(&a, request);
}

int CX_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return CX_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                        recvtype, root, comm, NULL);
}

int CX_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
              MPI_Comm comm, CX_Request *request)
{
    cx_args a = {.coll = CX_COLL_BCAST, .rbuf = buffer, .rcount = count,
                 .rtype = datatype, .root = root, .comm = comm};
    return cx_dispatch(&a, request);
}

int CX_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return CX_Ibcast(buffer, count, datatype, root, comm, NULL);
}

int CX_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm, CX_Request *request)
{
    cx_args a = {.coll = CX_COLL_ALLGATHER, .sbuf = sendbuf, .scount = sendcount,
                 .stype = sendtype, .rbuf = recvbuf, .rcount = recvcount,
                 .rtype = recvtype, .comm = comm};
    return cx_dispatch(&a, request);
}

int CX_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return CX_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                         comm, NULL);
}

int CX_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int displs[],
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    cx_args a = {.coll = CX_COLL_ALLGATHERV, .sbuf = sendbuf, .scount = sendcount,
                 .stype = sendtype, .rbuf = recvbuf, .rcounts = recvcounts,
                 .rdispls = displs, .rtype = recvtype, .comm = comm};
    return cx_dispatch(&a, NULL);
}

int CX_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    cx_args a = {.coll = CX_COLL_ALLTOALLV, .sbuf = sendbuf, .scounts = sendcounts,
                 .sdispls = sdispls, .stype = sendtype, .rbuf = recvbuf,
                 .rcounts = recvcounts, .rdispls = rdispls, .rtype = recvtype,
                 .comm = comm};
    return cx_dispatch(&a, NULL);
}

int CX_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    cx_args a = {.coll = CX_COLL_REDUCE_SCATTER_BLOCK, .sbuf = sendbuf,
                 .rbuf = recvbuf, .rcount = recvcount, .rtype = datatype,
                 .op = op, .comm = comm};
    return cx_dispatch(&a, NULL);
}
