/* Ring allgather / allgatherv: p-1 rounds, each rank forwards to its right
 * neighbour the block it received in the previous round. The ring runs on
 * virtual ranks (a->order, e.g. a topology mapping): neighbours are the
 * virtual ranks v +- 1, blocks stay where the user's ranks put them. */
#include "base.h"

int cx_build_ring_allgather(const cx_args *a, cx_sched *s)
{
    int p = a->size, v = cx_vrank_of(a, a->rank), err = MPI_SUCCESS;
    int right = cx_rank_of(a, (v + 1) % p), left = cx_rank_of(a, (v - 1 + p) % p);
    err = cx_sched_own_block(a, s);
    for (int k = 0; k < p - 1 && !err; k++) {
        cx_piece out = cx_all_block(a, cx_rank_of(a, (v - k + p) % p));
        cx_piece in = cx_all_block(a, cx_rank_of(a, (v - k - 1 + 2 * p) % p));
        if (!(err = cx_sched_send(s, out.buf, out.count, out.type, right)) &&
            !(err = cx_sched_recv(s, in.buf, in.count, in.type, left)))
            err = cx_sched_barrier(s);
    }
    return err;
}
