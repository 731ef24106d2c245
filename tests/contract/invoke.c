/* Calls a collective the PMPI_ way or the collx way (CX_ / CX_I + wait or
 * test polling) with the arguments of a contract case. */
#include <sched.h>
#include "collx.h"
#include "cases.h"

const char *const coll_names[C_NCOLL] = {
    "gather", "gatherv", "scatter", "scatterv", "bcast", "allgather",
    "allgatherv", "alltoallv", "reduce_scatter_block"};

int coll_is_rooted(int coll) { return coll <= C_BCAST; }

int coll_is_v(int coll)
{
    return coll == C_GATHERV || coll == C_SCATTERV || coll == C_ALLGATHERV ||
           coll == C_ALLTOALLV;
}

int coll_has_nb(int coll) { return coll <= C_ALLGATHER; }

static int native(const call *c, const void *s, void *r)
{
    switch (c->coll) {
    case C_GATHER:
        return PMPI_Gather(s, c->scount, c->stype, r, c->rcount, c->rtype, c->root,
                           c->comm);
    case C_GATHERV:
        return PMPI_Gatherv(s, c->scount, c->stype, r, c->rcounts, c->rdispls,
                            c->rtype, c->root, c->comm);
    case C_SCATTER:
        return PMPI_Scatter(s, c->scount, c->stype, r, c->rcount, c->rtype, c->root,
                            c->comm);
    case C_SCATTERV:
        return PMPI_Scatterv(s, c->scounts, c->sdispls, c->stype, r, c->rcount,
                             c->rtype, c->root, c->comm);
    case C_BCAST:
        return PMPI_Bcast(r, c->rcount, c->rtype, c->root, c->comm);
    case C_ALLGATHER:
        return PMPI_Allgather(s, c->scount, c->stype, r, c->rcount, c->rtype, c->comm);
    case C_ALLGATHERV:
        return PMPI_Allgatherv(s, c->scount, c->stype, r, c->rcounts, c->rdispls,
                               c->rtype, c->comm);
    case C_ALLTOALLV:
        return PMPI_Alltoallv(s, c->scounts, c->sdispls, c->stype, r, c->rcounts,
                              c->rdispls, c->rtype, c->comm);
    case C_REDUCE_SCATTER_BLOCK:
        return PMPI_Reduce_scatter_block(s, r, c->rcount, c->rtype, c->op, c->comm);
    }
    return MPI_ERR_INTERN;
}

static int blocking(const call *c, const void *s, void *r)
{
    switch (c->coll) {
    case C_GATHER:
        return CX_Gather(s, c->scount, c->stype, r, c->rcount, c->rtype, c->root,
                         c->comm);
    case C_GATHERV:
        return CX_Gatherv(s, c->scount, c->stype, r, c->rcounts, c->rdispls, c->rtype,
                          c->root, c->comm);
    case C_SCATTER:
        return CX_Scatter(s, c->scount, c->stype, r, c->rcount, c->rtype, c->root,
                          c->comm);
    case C_SCATTERV:
        return CX_Scatterv(s, c->scounts, c->sdispls, c->stype, r, c->rcount,
                           c->rtype, c->root, c->comm);
    case C_BCAST:
        return CX_Bcast(r, c->rcount, c->rtype, c->root, c->comm);
    case C_ALLGATHER:
        return CX_Allgather(s, c->scount, c->stype, r, c->rcount, c->rtype, c->comm);
    case C_ALLGATHERV:
        return CX_Allgatherv(s, c->scount, c->stype, r, c->rcounts, c->rdispls,
                             c->rtype, c->comm);
    case C_ALLTOALLV:
        return CX_Alltoallv(s, c->scounts, c->sdispls, c->stype, r, c->rcounts,
                            c->rdispls, c->rtype, c->comm);
    case C_REDUCE_SCATTER_BLOCK:
        return CX_Reduce_scatter_block(s, r, c->rcount, c->rtype, c->op, c->comm);
    }
    return MPI_ERR_INTERN;
}

static int start(const call *c, const void *s, void *r, CX_Request *q)
{
    switch (c->coll) {
    case C_GATHER:
        return CX_Igather(s, c->scount, c->stype, r, c->rcount, c->rtype, c->root,
                          c->comm, q);
    case C_GATHERV:
        return CX_Igatherv(s, c->scount, c->stype, r, c->rcounts, c->rdispls,
                           c->rtype, c->root, c->comm, q);
    case C_SCATTER:
        return CX_Iscatter(s, c->scount, c->stype, r, c->rcount, c->rtype, c->root,
                           c->comm, q);
    case C_SCATTERV:
        return CX_Iscatterv(s, c->scounts, c->sdispls, c->stype, r, c->rcount,
                            c->rtype, c->root, c->comm, q);
    case C_BCAST:
        return CX_Ibcast(r, c->rcount, c->rtype, c->root, c->comm, q);
    case C_ALLGATHER:
        return CX_Iallgather(s, c->scount, c->stype, r, c->rcount, c->rtype, c->comm, q);
    }
    return MPI_ERR_INTERN;
}

int call_run(const call *c, int cx, int mode, char *rdata)
{
    const void *s = c->s_in_place ? MPI_IN_PLACE : c->sbuf.data;
    void *r = c->r_in_place ? MPI_IN_PLACE : rdata;
    if (!cx)
        return native(c, s, r);
    if (mode == MODE_BLOCKING)
        return blocking(c, s, r);
    CX_Request q = CX_REQUEST_NULL;
    int err = start(c, s, r, &q), flag = 0;
    if (err)
        return err;
    if (mode == MODE_WAIT)
        return CX_Wait(&q);
    /* Poll politely: the test runs oversubscribed. */
    while (!err && !(err = CX_Test(&q, &flag)) && !flag)
        sched_yield();
    if (!err && q != CX_REQUEST_NULL)
        return MPI_ERR_REQUEST;  /* a completed request must be released */
    return err;
}
