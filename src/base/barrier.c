/* Dissemination barrier (Hensgen, Finkel & Manber): in round k every rank
 * signals rank r + 2^k and waits for rank r - 2^k; after ceil(log2 p)
 * rounds everybody has heard, directly or not, from everybody. Signals are
 * one byte: the schedule never sends empty messages. */
#include "base.h"

static const char token;

int cx_base_barrier_dissemination(const cx_args *a, cx_sched *s)
{
    int p = a->size, r = a->rank, err = MPI_SUCCESS;
    char *sink = cx_sched_alloc(s, 1);
    if (!sink)
        return MPI_ERR_NO_MEM;
    for (int k = 1; k < p && !err; k <<= 1) {
        if (!(err = cx_sched_send(s, &token, 1, MPI_BYTE, (r + k) % p)) &&
            !(err = cx_sched_recv(s, sink, 1, MPI_BYTE, (r - k + p) % p)))
            err = cx_sched_barrier(s);
    }
    return err;
}
