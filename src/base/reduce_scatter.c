/* Ring reduce_scatter_block (commutative ops): in round k rank r passes the
 * partial result of block r-k to its right neighbour and folds its own
 * input into the partial of block r-k-1 it receives; after p-1 rounds it
 * holds block r fully reduced. */
#include "base.h"

int cx_base_reduce_scatter_ring(const cx_args *a, cx_sched *s)
{
    int p = a->size, r = a->rank, n = a->rcount, err = MPI_SUCCESS;
    MPI_Datatype t = a->rtype;
    const char *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    if (p == 1)
        return cx_sched_copy(s, in, n, t, a->rbuf, n, t);
    char *buf[2] = {cx_sched_alloc_typed(s, n, t), cx_sched_alloc_typed(s, n, t)};
    if (!buf[0] || !buf[1])
        return MPI_ERR_NO_MEM;
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    for (int k = 1; k < p && !err; k++) {
        char *recv = buf[k % 2], *sent = buf[(k + 1) % 2];
        int b_send = (r - k + p) % p, b_prev = (r - k + p) % p;
        const char *out = cx_block(in, b_send, n, t);
        if (k > 1) {  /* fold own input into what arrived last round */
            err = cx_sched_reduce(s, cx_block(in, b_prev, n, t), sent, n, t, a->op);
            out = sent;
        }
        if (!err && !(err = cx_sched_send(s, out, n, t, right)) &&
            !(err = cx_sched_recv(s, recv, n, t, left)))
            err = cx_sched_barrier(s);
    }
    char *last = buf[(p - 1) % 2];
    if (!err)
        err = cx_sched_reduce(s, cx_block(in, r, n, t), last, n, t, a->op);
    return err ? err : cx_sched_copy(s, last, n, t, a->rbuf, n, t);
}
