/* The collectives of MPI-3.1 on intracommunicators: the one list that the
 * public API (CX_<Name>, CX_I<name>), the PMPI and Fortran interposers, the
 * native calls, the argument checks, the rules file and collbench derive
 * from. Adding a collective = one line in CX_COLLECTIVES, its parameter
 * list CX_PARAMS_<UPPER>, and its algorithms.
 *
 * CX_COLLECTIVES(X) calls X(UPPER, Name, lower) for every collective.
 * CX_PARAMS_<UPPER>(P) calls P(kind, name, field) for every parameter of
 * MPI_<Name>, in order: kind gives the C and Fortran types (SBUF const void
 * *, RBUF void *, INT int, INTS const int [], TYPE MPI_Datatype, TYPES
 * const MPI_Datatype [], OP MPI_Op, COMM MPI_Comm), field is the member of
 * collx's internal argument record that holds it. Reductions keep their
 * count and datatype on the receive side (rcount, rtype). */
#ifndef COLLX_COLLS_H
#define COLLX_COLLS_H

#define CX_COLLECTIVES(X)                                                      \
    X(BARRIER, Barrier, barrier)                                               \
    X(BCAST, Bcast, bcast)                                                     \
    X(GATHER, Gather, gather)                                                  \
    X(GATHERV, Gatherv, gatherv)                                               \
    X(SCATTER, Scatter, scatter)                                               \
    X(SCATTERV, Scatterv, scatterv)                                            \
    X(ALLGATHER, Allgather, allgather)                                         \
    X(ALLGATHERV, Allgatherv, allgatherv)                                      \
    X(ALLTOALL, Alltoall, alltoall)                                            \
    X(ALLTOALLV, Alltoallv, alltoallv)                                         \
    X(ALLTOALLW, Alltoallw, alltoallw)                                         \
    X(REDUCE, Reduce, reduce)                                                  \
    X(ALLREDUCE, Allreduce, allreduce)                                         \
    X(REDUCE_SCATTER, Reduce_scatter, reduce_scatter)                          \
    X(REDUCE_SCATTER_BLOCK, Reduce_scatter_block, reduce_scatter_block)        \
    X(SCAN, Scan, scan)                                                        \
    X(EXSCAN, Exscan, exscan)

#define CX_PARAMS_BARRIER(P) P(COMM, comm, comm)
#define CX_PARAMS_BCAST(P)                                                     \
    P(RBUF, buffer, rbuf) P(INT, count, rcount) P(TYPE, datatype, rtype)       \
    P(INT, root, root) P(COMM, comm, comm)
#define CX_PARAMS_GATHER(P)                                                    \
    P(SBUF, sendbuf, sbuf) P(INT, sendcount, scount) P(TYPE, sendtype, stype)  \
    P(RBUF, recvbuf, rbuf) P(INT, recvcount, rcount) P(TYPE, recvtype, rtype)  \
    P(INT, root, root) P(COMM, comm, comm)
#define CX_PARAMS_GATHERV(P)                                                   \
    P(SBUF, sendbuf, sbuf) P(INT, sendcount, scount) P(TYPE, sendtype, stype)  \
    P(RBUF, recvbuf, rbuf) P(INTS, recvcounts, rcounts)                        \
    P(INTS, displs, rdispls) P(TYPE, recvtype, rtype) P(INT, root, root)       \
    P(COMM, comm, comm)
#define CX_PARAMS_SCATTER(P) CX_PARAMS_GATHER(P)
#define CX_PARAMS_SCATTERV(P)                                                  \
    P(SBUF, sendbuf, sbuf) P(INTS, sendcounts, scounts)                        \
    P(INTS, displs, sdispls) P(TYPE, sendtype, stype) P(RBUF, recvbuf, rbuf)   \
    P(INT, recvcount, rcount) P(TYPE, recvtype, rtype) P(INT, root, root)      \
    P(COMM, comm, comm)
#define CX_PARAMS_ALLGATHER(P)                                                 \
    P(SBUF, sendbuf, sbuf) P(INT, sendcount, scount) P(TYPE, sendtype, stype)  \
    P(RBUF, recvbuf, rbuf) P(INT, recvcount, rcount) P(TYPE, recvtype, rtype)  \
    P(COMM, comm, comm)
#define CX_PARAMS_ALLGATHERV(P)                                                \
    P(SBUF, sendbuf, sbuf) P(INT, sendcount, scount) P(TYPE, sendtype, stype)  \
    P(RBUF, recvbuf, rbuf) P(INTS, recvcounts, rcounts)                        \
    P(INTS, displs, rdispls) P(TYPE, recvtype, rtype) P(COMM, comm, comm)
#define CX_PARAMS_ALLTOALL(P) CX_PARAMS_ALLGATHER(P)
#define CX_PARAMS_ALLTOALLV(P)                                                 \
    P(SBUF, sendbuf, sbuf) P(INTS, sendcounts, scounts)                        \
    P(INTS, sdispls, sdispls) P(TYPE, sendtype, stype) P(RBUF, recvbuf, rbuf)  \
    P(INTS, recvcounts, rcounts) P(INTS, rdispls, rdispls)                     \
    P(TYPE, recvtype, rtype) P(COMM, comm, comm)
#define CX_PARAMS_ALLTOALLW(P)                                                 \
    P(SBUF, sendbuf, sbuf) P(INTS, sendcounts, scounts)                        \
    P(INTS, sdispls, sdispls) P(TYPES, sendtypes, stypes)                      \
    P(RBUF, recvbuf, rbuf) P(INTS, recvcounts, rcounts)                        \
    P(INTS, rdispls, rdispls) P(TYPES, recvtypes, rtypes) P(COMM, comm, comm)
#define CX_PARAMS_REDUCE(P)                                                    \
    P(SBUF, sendbuf, sbuf) P(RBUF, recvbuf, rbuf) P(INT, count, rcount)        \
    P(TYPE, datatype, rtype) P(OP, op, op) P(INT, root, root)                  \
    P(COMM, comm, comm)
#define CX_PARAMS_ALLREDUCE(P)                                                 \
    P(SBUF, sendbuf, sbuf) P(RBUF, recvbuf, rbuf) P(INT, count, rcount)        \
    P(TYPE, datatype, rtype) P(OP, op, op) P(COMM, comm, comm)
#define CX_PARAMS_REDUCE_SCATTER(P)                                            \
    P(SBUF, sendbuf, sbuf) P(RBUF, recvbuf, rbuf) P(INTS, recvcounts, rcounts) \
    P(TYPE, datatype, rtype) P(OP, op, op) P(COMM, comm, comm)
#define CX_PARAMS_REDUCE_SCATTER_BLOCK(P)                                      \
    P(SBUF, sendbuf, sbuf) P(RBUF, recvbuf, rbuf) P(INT, recvcount, rcount)    \
    P(TYPE, datatype, rtype) P(OP, op, op) P(COMM, comm, comm)
#define CX_PARAMS_SCAN(P) CX_PARAMS_ALLREDUCE(P)
#define CX_PARAMS_EXSCAN(P) CX_PARAMS_ALLREDUCE(P)

/* C types of the parameter kinds. */
#define CX_CTYPE_SBUF const void *
#define CX_CTYPE_RBUF void *
#define CX_CTYPE_INT int
#define CX_CTYPE_INTS const int *
#define CX_CTYPE_TYPE MPI_Datatype
#define CX_CTYPE_TYPES const MPI_Datatype *
#define CX_CTYPE_OP MPI_Op
#define CX_CTYPE_COMM MPI_Comm

/* Helpers to turn a parameter list into a C parameter or argument list:
 * each P emits ", item" and CX_DROP_FIRST removes the leading comma. */
#define CX_DROP_FIRST_(x, ...) __VA_ARGS__
#define CX_DROP_FIRST(...) CX_DROP_FIRST_(__VA_ARGS__)
#define CX_PDECL(kind, name, field) , CX_CTYPE_##kind name
#define CX_PNAME(kind, name, field) , name
/* Parameter list of MPI_<Name> for UPPER, e.g. CX_DECLS(GATHERV). */
#define CX_DECLS(E) CX_DROP_FIRST(CX_PARAMS_##E(CX_PDECL))
/* Argument list passing those parameters on. */
#define CX_NAMES(E) CX_DROP_FIRST(CX_PARAMS_##E(CX_PNAME))

#endif
