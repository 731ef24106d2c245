/* The PAT API: init / start / edge / expect / finalize. At the edge a rank
 * predicts its arrival, shares it with a nonblocking allgather, and (with a
 * registered call) starts the part of the coming collective that may run
 * early. The order is computed from the exchanged vector on every rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pap.h"

/* Core hook: a blocking collx call on comm just ended (the next iteration
 * starts now). */
void cx_pap_after_call(void *state)
{
    ((cx_pap *)state)->last_end = PMPI_Wtime();
}

/* Offset of the local clock against rank 0's: after a barrier everybody
 * reads its clock; the median of three rounds damps barrier exit skew.
 * Measured even where MPI_WTIME_IS_GLOBAL is set: Intel MPI 2021 sets it
 * while its ranks' clocks are 70 ms apart (it finds ~0 where it holds). */
static double clock_offset(MPI_Comm comm)
{
    double d[3];
    for (int i = 0; i < 3; i++) {
        PMPI_Barrier(comm);
        double t = PMPI_Wtime(), t0 = t;
        PMPI_Bcast(&t0, 1, MPI_DOUBLE, 0, comm);
        d[i] = t - t0;
    }
    double lo = d[0] < d[1] ? d[0] : d[1], hi = d[0] < d[1] ? d[1] : d[0];
    return d[2] < lo ? lo : d[2] > hi ? hi : d[2];
}

static cx_pap_engine choose_engine(MPI_Comm comm, int rank)
{
    int provided = MPI_THREAD_SINGLE, can, all;
    PMPI_Query_thread(&provided);
    can = provided == MPI_THREAD_MULTIPLE;
    int want = (int)cx_knob_int(CX_KNOB_PAP_ENGINE);   /* auto, thread, eager */
    if (want == 2)
        can = 0;
    /* Every rank must run the same engine: it decides the bsbn order. */
    PMPI_Allreduce(&can, &all, 1, MPI_INT, MPI_MIN, comm);
    if (want == 1 && !all && rank == 0)
        fprintf(stderr, "collx: COLLX_PAP_ENGINE=thread needs MPI_THREAD_MULTIPLE; "
                        "using the eager engine\n");
    return all ? CX_PAP_THREAD : CX_PAP_EAGER;
}

int CX_Pat_init(MPI_Comm comm)
{
    cx_comm *c;
    int err;
    if (comm == MPI_COMM_NULL)
        return cx_error(comm, MPI_ERR_COMM, "CX_Pat_init: MPI_COMM_NULL");
    if ((err = cx_comm_get(comm, &c)))
        return cx_error(comm, err, "CX_Pat_init: cannot set up communicator state");
    if (cx_comm_state_of(c, cx_pap_slot))
        return MPI_SUCCESS;
    if ((err = cx_comm_quiesce(c)))   /* set-up collectives follow */
        return cx_error(comm, err, "CX_Pat_init: calls in flight failed");
    cx_pap *pap = calloc(1, sizeof *pap);
    if (!pap)
        return cx_error(comm, MPI_ERR_NO_MEM, "CX_Pat_init: out of memory");
    pap->cc = c;
    pap->rank = c->rank;
    pap->size = c->size;
    pap->xreq = MPI_REQUEST_NULL;
    size_t p = (size_t)c->size;
    pap->next = calloc(p, sizeof(double));
    pap->cur = calloc(p, sizeof(double));
    pap->snap = calloc(p, sizeof(double));
    pap->order = calloc(p, sizeof(int));
    if (!pap->next || !pap->cur || !pap->snap || !pap->order ||
        (err = PMPI_Comm_dup(c->priv, &pap->comm))) {
        pap->comm = MPI_COMM_NULL;
        cx_pap_release(pap);
        return cx_error(comm, err ? err : MPI_ERR_NO_MEM, "CX_Pat_init failed");
    }
    pap->offset = clock_offset(pap->comm);
    pap->engine = choose_engine(pap->comm, pap->rank);
    if (pap->engine == CX_PAP_THREAD && (err = cx_pap_thread_start(pap))) {
        cx_pap_release(pap);
        return cx_error(comm, err, "CX_Pat_init: cannot start the progress thread");
    }
    if (cx_verbose() > 0 && pap->rank == 0)
        fprintf(stderr, "collx: CX_Pat_init: %s engine (p=%d)\n",
                pap->engine == CX_PAP_THREAD ? "progress thread" : "eager", pap->size);
    pap->start = PMPI_Wtime();
    *cx_comm_state(c, cx_pap_slot) = pap;
    return MPI_SUCCESS;
}

int CX_Pat_start(MPI_Comm comm)
{
    cx_pap *pap = cx_pap_get(comm);
    if (pap)
        pap->start = PMPI_Wtime();
    return MPI_SUCCESS;
}

int CX_Pat_edge(MPI_Comm comm, double fraction)
{
    cx_pap *pap = cx_pap_get(comm);
    int err;
    if (!pap)
        return MPI_SUCCESS;   /* no CX_Pat_init: nothing to predict for */
    if (!(fraction > 0.0 && fraction <= 1.0))
        return cx_error(comm, MPI_ERR_ARG, "CX_Pat_edge: fraction %g not in (0, 1]",
                        fraction);
    cx_pap_sync(pap);
    /* A previous edge without its collective: finish what it started. */
    cx_pap_early_drop(pap);
    if ((err = cx_pap_complete(pap)))
        return cx_error(comm, err, "CX_Pat_edge: exchange failed");
    double now = PMPI_Wtime();
    double start = pap->start > pap->last_end ? pap->start : pap->last_end;
    if (start > now)
        start = now;
    pap->raw = start + (now - start) / fraction;
    pap->have_raw = 1;
    double pred = pap->raw + (pap->nobs ? pap->bias : 0.0);
    if (pred < now)
        pred = now;
    pap->mine = pred - pap->offset;
    memcpy(pap->snap, pap->cur, sizeof(double) * (size_t)pap->size);
    pap->have_snap = pap->have_cur;
    err = PMPI_Iallgather(&pap->mine, 1, MPI_DOUBLE, pap->next, 1, MPI_DOUBLE,
                          pap->comm, &pap->xreq);
    if (err)
        return cx_error(comm, err, "CX_Pat_edge: exchange failed");
    if (pap->engine == CX_PAP_THREAD)
        cx_pap_thread_kick(pap);
    else if ((err = cx_pap_early_start(pap, 0)))
        return cx_error(comm, err, "CX_Pat_edge: early start failed");
    return MPI_SUCCESS;
}

static int expect(cx_coll coll, const void *sbuf, int scount, MPI_Datatype stype,
                  void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    cx_pap *pap = cx_pap_get(comm);
    if (!pap)
        return cx_error(comm, MPI_ERR_OTHER, "CX_Pat_expect: call CX_Pat_init first");
    cx_args a = {.coll = coll, .sbuf = sbuf, .scount = scount, .stype = stype,
                 .rbuf = rbuf, .rcount = rcount, .rtype = rtype, .root = root,
                 .comm = comm, .rank = pap->rank, .size = pap->size};
    int err = cx_validate(&a);
    if (err)
        return cx_error(comm, err, "CX_Pat_expect: invalid arguments");
    cx_pap_sync(pap);
    pap->reg = a;
    pap->has_reg = 1;
    cx_pap_reg_alg(pap);   /* decided here, where every rank is: not in the thread */
    return MPI_SUCCESS;
}

int CX_Pat_expect_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype,
                         int root, MPI_Comm comm)
{
    return expect(CX_COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, root, comm);
}

int CX_Pat_expect_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype,
                          int root, MPI_Comm comm)
{
    return expect(CX_COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, root, comm);
}

int CX_Pat_expect_none(MPI_Comm comm)
{
    cx_pap *pap = cx_pap_get(comm);
    if (pap) {
        cx_pap_sync(pap);
        cx_pap_early_drop(pap);
        pap->has_reg = 0;
    }
    return MPI_SUCCESS;
}

void cx_pap_release(void *p)
{
    cx_pap *pap = p;
    cx_pap_sync(pap);
    cx_pap_early_drop(pap);
    if (pap->xreq != MPI_REQUEST_NULL)
        PMPI_Wait(&pap->xreq, MPI_STATUS_IGNORE);
    if (pap->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&pap->comm);
    free(pap->next);
    free(pap->cur);
    free(pap->snap);
    free(pap->order);
    free(pap);
}

int CX_Pat_finalize(MPI_Comm comm)
{
    cx_comm *c;
    cx_pap *pap;
    if (comm == MPI_COMM_NULL || cx_comm_get(comm, &c) ||
        !(pap = cx_comm_state_of(c, cx_pap_slot)))
        return MPI_SUCCESS;
    if (cx_verbose() > 0) {   /* collective, like finalize itself */
        cx_pap_sync(pap);
        long mine[2] = {pap->n_early, pap->n_adopted}, sum[2];
        PMPI_Reduce(mine, sum, 2, MPI_LONG, MPI_SUM, 0, pap->comm);
        if (pap->rank == 0)
            fprintf(stderr, "collx: CX_Pat_finalize: %ld early starts on all ranks, "
                    "%ld taken over by their calls\n", sum[0], sum[1]);
    }
    cx_pap_release(pap);
    *cx_comm_state(c, cx_pap_slot) = NULL;
    return MPI_SUCCESS;
}
