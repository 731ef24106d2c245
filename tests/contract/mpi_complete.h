/* Completing an MPI_Request of a nonblocking collective with each of the
 * MPI's completion calls, alone or in an array beside point-to-point
 * requests (mpi_complete.c). Through the interposer the request is
 * collx's generalized request; the calls are the program's MPI_ ones. */
#ifndef CONTRACT_MPI_COMPLETE_H
#define CONTRACT_MPI_COMPLETE_H

#include <stddef.h>
#include <mpi.h>

enum {
    BY_WAIT, BY_TEST, BY_WAITALL, BY_WAITANY, BY_WAITSOME, BY_TESTALL, BY_TESTANY,
    BY_TESTSOME, BY_GET_STATUS, BY_COUNT
};
extern const char *const by_names[BY_COUNT];

/* Completes *q with the calls of kind `by`; the array kinds post a ring
 * exchange on comm (receive from the left, send to the right) beside it
 * and check it (value, status). Returns the collective's error, or
 * MPI_ERR_OTHER with msg set when a completion call broke its contract
 * (a request not released, or a persistent one released; a status or the
 * exchange wrong). Collective over comm (the ring) for the array kinds:
 * every rank must use the same kind. */
int mpi_complete(MPI_Request *q, int by, int persistent, MPI_Comm comm, char *msg,
                 size_t len);

#endif
