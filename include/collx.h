/*
 * collx — research collective algorithms for any MPI-3.1 library.
 *
 * Every CX_<Coll> function has exactly the signature of MPI_<Coll>, so
 * switching is a rename. Which algorithm runs is chosen, identically on every
 * rank, by (in order): CX_Algorithm_set(), the environment variable
 * COLLX_<COLL>_ALGORITHM=<name>, the built-in default ("native" = PMPI_).
 *
 * Errors are reported through the communicator's error handler, like MPI:
 * with MPI_ERRORS_RETURN the call returns an MPI error class.
 */
#ifndef COLLX_H
#define COLLX_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COLLX_VERSION_MAJOR 0
#define COLLX_VERSION_MINOR 1

/* ---- blocking collectives (MPI signatures) ---- */
int CX_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
              void *recvbuf, int recvcount, MPI_Datatype recvtype,
              int root, MPI_Comm comm);
int CX_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, const int recvcounts[], const int displs[],
               MPI_Datatype recvtype, int root, MPI_Comm comm);
int CX_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, int recvcount, MPI_Datatype recvtype,
               int root, MPI_Comm comm);
int CX_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm);
int CX_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
             MPI_Comm comm);
int CX_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 MPI_Comm comm);
int CX_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int displs[],
                  MPI_Datatype recvtype, MPI_Comm comm);
int CX_Alltoallv(const void *sendbuf, const int sendcounts[],
                 const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int rdispls[],
                 MPI_Datatype recvtype, MPI_Comm comm);
int CX_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/* ---- nonblocking collectives ----
 * A CX_Request progresses only inside CX_Test/CX_Wait (and inside MPI for
 * messages already posted), like a libNBC schedule. */
typedef struct cx_request *CX_Request;
#define CX_REQUEST_NULL ((CX_Request)0)

int CX_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
               MPI_Comm comm, CX_Request *request);
int CX_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int displs[],
                MPI_Datatype recvtype, int root, MPI_Comm comm,
                CX_Request *request);
int CX_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm, CX_Request *request);
int CX_Iscatterv(const void *sendbuf, const int sendcounts[],
                 const int displs[], MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 CX_Request *request);
int CX_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
              MPI_Comm comm, CX_Request *request);
int CX_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm, CX_Request *request);

/* Completes the request and sets *request to CX_REQUEST_NULL. */
int CX_Wait(CX_Request *request);
/* *flag = 1 once complete (the request is then freed and set to NULL). */
int CX_Test(CX_Request *request, int *flag);

/* ---- process arrival pattern (PAP) awareness ----
 * Collective over comm: CX_Pat_init / CX_Pat_finalize. The application calls
 * CX_Pat_edge when `fraction` of this iteration's computation is done; collx
 * predicts this rank's arrival time and shares it without blocking, and the
 * arrival-aware algorithms (scatter slin/sbn/bsln/bsbn, gather
 * sls/sbn/bsls/bsbn) called afterwards use the predicted order. */
int CX_Pat_init(MPI_Comm comm);
int CX_Pat_edge(MPI_Comm comm, double fraction);
int CX_Pat_finalize(MPI_Comm comm);

/* ---- algorithm registry and selection ----
 * coll is the lower-case collective name: "gather", "gatherv", "scatter",
 * "scatterv", "bcast", "allgather", "allgatherv", "alltoallv",
 * "reduce_scatter_block". */

/* Number of collectives collx knows, and the name of the i-th. */
int CX_Collective_count(void);
const char *CX_Collective_name(int i);
/* Number of algorithms registered for coll (-1 if coll is unknown). */
int CX_Algorithm_count(const char *coll);
/* Name / one-line description of the i-th algorithm of coll, NULL if none. */
const char *CX_Algorithm_name(const char *coll, int i);
const char *CX_Algorithm_summary(const char *coll, int i);
/* Forces the algorithm for coll in this process (NULL or "" = back to the
 * environment/default). Every rank must make the same choice. Returns
 * MPI_SUCCESS, or MPI_ERR_ARG (and prints the valid names) for an unknown
 * collective or algorithm. */
int CX_Algorithm_set(const char *coll, const char *alg);
/* The algorithm that the next call of coll would use. */
const char *CX_Algorithm_get(const char *coll);
/* How many times alg ran for coll in this process (for tests and tools). */
long CX_Algorithm_calls(const char *coll, const char *alg);

#ifdef __cplusplus
}
#endif
#endif /* COLLX_H */
