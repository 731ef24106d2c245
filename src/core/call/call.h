/* The dispatcher (docs/design/layers.md): one call from its arguments,
 * decided by the selection (cx_decide_call), to the algorithm that runs
 * it, timed and counted (COLLX_STATS), a trial timed for online tuning;
 * blocking, nonblocking or into an MPI_Request. It includes every room
 * below it. */
#ifndef CX_CALL_H
#define CX_CALL_H

#include "../online/online.h"

/* Executes one call (blocking, or nonblocking when req != NULL). */
int cx_dispatch(cx_args *a, CX_Request *req);
/* The same, nonblocking, into an MPI_Request: the MPI's own request when
 * the MPI's call serves it, else a generalized request (request.h). */
int cx_dispatch_mpi(cx_args *a, MPI_Request *req);
/* The same, blocking, with alg (or what its requirements fall back to)
 * instead of the selected algorithm. */
int cx_dispatch_as(cx_args *a, const struct cx_algorithm *alg);

#endif
