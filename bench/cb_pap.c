#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <time.h>
#include <mpi.h> /* in SMPI, redirects nanosleep to simulated time */
#include "collx.h"
#include "cb_pap.h"
#include "cb_rng.h"

double cb_pap_delay(uint64_t seed, int rep, int rank, double max_delay)
{
    return max_delay * cb_uniform(seed ^ 0x5041505041505ULL, (uint64_t)rep,
                                  (uint64_t)rank);
}

static void sleep_seconds(double s)
{
    if (s <= 0)
        return;
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
}

/* ===================================================================
 * PAP EDGE POINT: 50 % of this iteration's computation is done. collx
 * predicts this rank's arrival and shares it (CX_Pat_edge); with a
 * registered call the background algorithms start it here.
 * =================================================================== */
void pap_edge(MPI_Comm comm)
{
    CX_Pat_edge(comm, 0.5);
}

void pap_begin(const cb_op *op, int root)
{
    CX_Pat_init(op->comm);
    /* Register the timed call so bsln/bsls/bsbn can start at the edge (the
     * benchmark never reads its receive buffer between edge and call). */
    if (root < 0 || op->padded_g2)
        return;
    int c = op->m[0];
    if (op->coll == CB_GATHER)
        CX_Pat_expect_gather(op->sbuf, c, MPI_INT, op->rbuf, c, MPI_INT, root, op->comm);
    else if (op->coll == CB_SCATTER)
        CX_Pat_expect_scatter(op->sbuf, c, MPI_INT, op->rbuf, c, MPI_INT, root, op->comm);
}

void pap_end(MPI_Comm comm)
{
    CX_Pat_finalize(comm);
}

void cb_pap_compute(MPI_Comm comm, double delay)
{
    CX_Pat_start(comm);       /* the iteration's computation starts now */
    sleep_seconds(0.5 * delay);
    pap_edge(comm);
    sleep_seconds(delay - 0.5 * delay);
}
