/* One path for every call: check, select, then run the algorithm's schedule
 * (or the native PMPI_ call) blocking or as a CX_Request. */
#include <stdlib.h>
#include "cx_internal.h"

struct cx_request {
    int native;
    MPI_Request mpi;      /* native nonblocking call */
    cx_sched sched;
};

static int run_native(const cx_args *a)
{
    switch (a->coll) {
    case CX_COLL_GATHER:
        return PMPI_Gather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                           a->rtype, a->root, a->comm);
    case CX_COLL_GATHERV:
        return PMPI_Gatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts,
                            a->rdispls, a->rtype, a->root, a->comm);
    case CX_COLL_SCATTER:
        return PMPI_Scatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                            a->rtype, a->root, a->comm);
    case CX_COLL_SCATTERV:
        return PMPI_Scatterv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf,
                             a->rcount, a->rtype, a->root, a->comm);
    case CX_COLL_BCAST:
        return PMPI_Bcast(a->rbuf, a->rcount, a->rtype, a->root, a->comm);
    case CX_COLL_ALLGATHER:
        return PMPI_Allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                              a->rtype, a->comm);
    case CX_COLL_ALLGATHERV:
        return PMPI_Allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts,
                               a->rdispls, a->rtype, a->comm);
    case CX_COLL_ALLTOALLV:
        return PMPI_Alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf,
                              a->rcounts, a->rdispls, a->rtype, a->comm);
    case CX_COLL_REDUCE_SCATTER_BLOCK:
        return PMPI_Reduce_scatter_block(a->sbuf, a->rbuf, a->rcount, a->rtype,
                                         a->op, a->comm);
    default:
        return MPI_ERR_INTERN;
    }
}

static int start_native(const cx_args *a, MPI_Request *r)
{
    switch (a->coll) {
    case CX_COLL_GATHER:
        return PMPI_Igather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                            a->rtype, a->root, a->comm, r);
    case CX_COLL_GATHERV:
        return PMPI_Igatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts,
                             a->rdispls, a->rtype, a->root, a->comm, r);
    case CX_COLL_SCATTER:
        return PMPI_Iscatter(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                             a->rtype, a->root, a->comm, r);
    case CX_COLL_SCATTERV:
        return PMPI_Iscatterv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf,
                              a->rcount, a->rtype, a->root, a->comm, r);
    case CX_COLL_BCAST:
        return PMPI_Ibcast(a->rbuf, a->rcount, a->rtype, a->root, a->comm, r);
    case CX_COLL_ALLGATHER:
        return PMPI_Iallgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                               a->rtype, a->comm, r);
    default:
        return MPI_ERR_INTERN;
    }
}

static int op_is_commutative(MPI_Op op)
{
    int commute = 1;
    if (op != MPI_OP_NULL)
        PMPI_Op_commutative(op, &commute);
    return commute;
}

/* Falls back to native when the call does not meet alg's requirements;
 * the inputs are the same on every rank, so the fallback is too. */
static const cx_algorithm *usable(const cx_algorithm *alg, const cx_args *a)
{
    if ((alg->requires & CX_REQ_COMMUTATIVE) && !op_is_commutative(a->op))
        return cx_algorithm_find(a->coll, "native");
    return alg;
}

int cx_dispatch(cx_args *a, CX_Request *req)
{
    int err, inter = 0;
    const char *what = cx_coll_mpi_name(a->coll);
    if (req)
        *req = CX_REQUEST_NULL;
    a->nonblocking = req != NULL;
    if (a->comm == MPI_COMM_NULL)
        return cx_error(a->comm, MPI_ERR_COMM, "%s: MPI_COMM_NULL", what);
    PMPI_Comm_test_inter(a->comm, &inter);
    if (inter)
        return cx_error(a->comm, MPI_ERR_COMM,
                        "%s: intercommunicators are not supported by collx; "
                        "call the PMPI_ version or select 'native'", what);
    PMPI_Comm_rank(a->comm, &a->rank);
    PMPI_Comm_size(a->comm, &a->size);
    if ((err = cx_validate(a)))
        return cx_error(a->comm, err, "%s: invalid argument (root %d, p %d)", what,
                        a->root, a->size);
    const cx_algorithm *alg = cx_select(a);
    if (!alg)
        return cx_error(a->comm, MPI_ERR_ARG,
                        "%s: the environment (COLLX_<COLL>_ALGORITHM or COLLX_RULES) "
                        "names no usable algorithm; see the message above", what);
    alg = usable(alg, a);
    cx_count_call(alg, a);

    if (!alg->build) {
        if (!req)
            return run_native(a);
        struct cx_request *r = calloc(1, sizeof *r);
        if (!r)
            return cx_error(a->comm, MPI_ERR_NO_MEM, "%s: out of memory", what);
        r->native = 1;
        if ((err = start_native(a, &r->mpi))) {
            free(r);
            return cx_error(a->comm, err, "%s: native start failed", what);
        }
        *req = r;
        return MPI_SUCCESS;
    }

    cx_comm *c;
    if ((err = cx_comm_get(a->comm, &c)))
        return cx_error(a->comm, err, "%s: cannot set up communicator state", what);
    a->pcomm = c->priv;
    struct cx_request *r = calloc(1, sizeof *r);
    if (!r)
        return cx_error(a->comm, MPI_ERR_NO_MEM, "%s: out of memory", what);
    cx_sched_init(&r->sched, c->priv, cx_comm_next_tag(c));
    err = alg->build(a, &r->sched);
    if (!err)
        err = req ? cx_sched_start(&r->sched) : cx_sched_run(&r->sched);
    if (!req)
        c->last_end = PMPI_Wtime();   /* PAP: the next iteration starts now */
    if (err || !req) {
        cx_sched_free(&r->sched);
        free(r);
        return err ? cx_error(a->comm, err, "%s/%s failed", what, alg->name) : err;
    }
    *req = r;
    return MPI_SUCCESS;
}

int CX_Test(CX_Request *request, int *flag)
{
    int err;
    struct cx_request *r = *request;
    *flag = 1;
    if (!r)
        return MPI_SUCCESS;
    if (r->native)
        err = PMPI_Test(&r->mpi, flag, MPI_STATUS_IGNORE);
    else
        err = cx_sched_progress(&r->sched, flag);
    if (err || *flag) {
        if (!r->native)
            cx_sched_free(&r->sched);
        free(r);
        *request = CX_REQUEST_NULL;
    }
    return err;
}

int CX_Wait(CX_Request *request)
{
    int err;
    struct cx_request *r = *request;
    if (!r)
        return MPI_SUCCESS;
    if (r->native) {
        err = PMPI_Wait(&r->mpi, MPI_STATUS_IGNORE);
    } else {
        err = cx_sched_finish(&r->sched);
        cx_sched_free(&r->sched);
    }
    free(r);
    *request = CX_REQUEST_NULL;
    return err;
}
