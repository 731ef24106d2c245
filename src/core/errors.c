/* Argument checks and error reporting through the user's error handler.
 *
 * Checks use only arguments that are significant on the calling rank, as MPI
 * does; an error that only one rank can see (e.g. a negative count in the
 * root's recvcounts) is reported there, and the other ranks behave as they
 * would in MPI for an erroneous program. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "cx_internal.h"

int cx_verbose(void)
{
    static int verbose = -1;
    if (verbose < 0) {
        const char *v = getenv("COLLX_VERBOSE");
        verbose = v ? atoi(v) : 0;
    }
    return verbose;
}

int cx_error(MPI_Comm comm, int err, const char *fmt, ...)
{
    if (cx_verbose() > 0) {
        va_list ap;
        va_start(ap, fmt);
        fputs("collx: error: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    /* MPI_COMM_NULL has no handler: MPI reports those on MPI_COMM_WORLD. */
    PMPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, err);
    return err;
}

static int rooted(cx_coll c)
{
    return c == CX_COLL_GATHER || c == CX_COLL_GATHERV || c == CX_COLL_SCATTER ||
           c == CX_COLL_SCATTERV || c == CX_COLL_BCAST;
}

static int check_counts(const int *counts, int n)
{
    if (!counts)
        return MPI_ERR_ARG;
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return MPI_ERR_COUNT;
    return MPI_SUCCESS;
}

static int check_type(int count_matters, MPI_Datatype t)
{
    return count_matters && t == MPI_DATATYPE_NULL ? MPI_ERR_TYPE : MPI_SUCCESS;
}

/* Which sides of the call are significant on this rank. */
static void significant(const cx_args *a, int *send, int *recv)
{
    int is_root = a->rank == a->root;
    switch (a->coll) {
    case CX_COLL_GATHER: case CX_COLL_GATHERV:
        *send = !(is_root && a->sbuf == MPI_IN_PLACE);
        *recv = is_root;
        break;
    case CX_COLL_SCATTER: case CX_COLL_SCATTERV:
        *send = is_root;
        *recv = !(is_root && a->rbuf == MPI_IN_PLACE);
        break;
    case CX_COLL_BCAST:
        *send = 0;
        *recv = 1;
        break;
    default:
        *send = a->sbuf != MPI_IN_PLACE;
        *recv = 1;
    }
}

int cx_validate(const cx_args *a)
{
    int err, send, recv, p = a->size;
    if (rooted(a->coll) && (a->root < 0 || a->root >= p))
        return MPI_ERR_ROOT;
    significant(a, &send, &recv);
    if (a->coll == CX_COLL_BCAST)
        return a->rcount < 0 ? MPI_ERR_COUNT : check_type(1, a->rtype);
    if (a->coll == CX_COLL_REDUCE_SCATTER_BLOCK) {
        if (a->rcount < 0)
            return MPI_ERR_COUNT;
        if (a->op == MPI_OP_NULL)
            return MPI_ERR_OP;
        return check_type(1, a->rtype);
    }
    int send_v = a->coll == CX_COLL_SCATTERV || a->coll == CX_COLL_ALLTOALLV;
    int recv_v = a->coll == CX_COLL_GATHERV || a->coll == CX_COLL_ALLGATHERV ||
                 a->coll == CX_COLL_ALLTOALLV;
    if (send && !send_v) {
        if (a->scount < 0)
            return MPI_ERR_COUNT;
        if ((err = check_type(1, a->stype)))
            return err;
    }
    if (send && send_v) {
        if ((err = check_counts(a->scounts, p)) || (err = check_type(1, a->stype)))
            return err;
        if (!a->sdispls)
            return MPI_ERR_ARG;
    }
    if (recv && !recv_v) {
        if (a->rcount < 0)
            return MPI_ERR_COUNT;
        if ((err = check_type(1, a->rtype)))
            return err;
    }
    if (recv && recv_v) {
        if ((err = check_counts(a->rcounts, p)) || (err = check_type(1, a->rtype)))
            return err;
        if (!a->rdispls)
            return MPI_ERR_ARG;
    }
    /* MPI_IN_PLACE is only allowed where the standard says so. */
    int is_root = a->rank == a->root;
    if ((a->coll == CX_COLL_GATHER || a->coll == CX_COLL_GATHERV) && !is_root &&
        a->sbuf == MPI_IN_PLACE)
        return MPI_ERR_BUFFER;
    if ((a->coll == CX_COLL_SCATTER || a->coll == CX_COLL_SCATTERV) && !is_root &&
        a->rbuf == MPI_IN_PLACE)
        return MPI_ERR_BUFFER;
    if (a->rbuf == MPI_IN_PLACE && !rooted(a->coll))
        return MPI_ERR_BUFFER;
    return MPI_SUCCESS;
}
