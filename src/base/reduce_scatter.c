/* Ring reduce-scatter (commutative ops), for reduce_scatter_block and
 * reduce_scatter: in round k rank r passes the partial result of block
 * r-k to its right neighbour and folds its own input into the partial of
 * block r-k-1 it receives; after p-1 rounds it holds block r fully
 * reduced. The ring runs on virtual ranks (a->order, e.g. a topology
 * mapping): r is then the virtual rank, blocks keep their user ranks. */
#include "base.h"

/* Elements before block i and in it. */
static MPI_Aint block_off(const cx_args *a, int i)
{
    if (!a->rcounts)
        return (MPI_Aint)i * a->rcount;
    MPI_Aint off = 0;
    for (int j = 0; j < i; j++)
        off += a->rcounts[j];
    return off;
}

static MPI_Aint block_len(const cx_args *a, int i)
{
    return a->rcounts ? a->rcounts[i] : a->rcount;
}

int cx_base_reduce_scatter_ring(const cx_args *a, cx_sched *s)
{
    int p = a->size, r = cx_vrank_of(a, a->rank), err = MPI_SUCCESS;
    MPI_Datatype t = a->rtype;
    MPI_Aint ext = cx_type_extent(t), most = 0;
    const char *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    for (int i = 0; i < p; i++)
        most = block_len(a, i) > most ? block_len(a, i) : most;
    if (p == 1)
        return cx_sched_copy(s, in, block_len(a, 0), t, a->rbuf, block_len(a, 0), t);
    char *buf[2] = {cx_sched_alloc_typed(s, most, t), cx_sched_alloc_typed(s, most, t)};
    if (!buf[0] || !buf[1])
        return MPI_ERR_NO_MEM;
    int right = cx_rank_of(a, (r + 1) % p), left = cx_rank_of(a, (r - 1 + p) % p);
    for (int k = 1; k < p && !err; k++) {
        char *recv = buf[k % 2], *sent = buf[(k + 1) % 2];
        int b_send = cx_rank_of(a, (r - k + p) % p);
        int b_recv = cx_rank_of(a, (r - k - 1 + p) % p);
        const char *out = in + block_off(a, b_send) * ext;
        if (k > 1) {  /* fold own input into what arrived last round */
            err = cx_sched_reduce(s, out, sent, block_len(a, b_send), t, a->op);
            out = sent;
        }
        if (!err && !(err = cx_sched_send(s, out, block_len(a, b_send), t, right)) &&
            !(err = cx_sched_recv(s, recv, block_len(a, b_recv), t, left)))
            err = cx_sched_barrier(s);
    }
    char *last = buf[(p - 1) % 2];
    MPI_Aint n = block_len(a, a->rank);
    if (!err)
        err = cx_sched_reduce(s, in + block_off(a, a->rank) * ext, last, n, t, a->op);
    return err ? err : cx_sched_copy(s, last, n, t, a->rbuf, n, t);
}
