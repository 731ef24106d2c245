/* Bruck's allgather / allgatherv (Bruck et al. 1997): ceil(log2 p) rounds
 * instead of the ring's p-1, for small blocks and many ranks (e.g. the
 * leaders of a hierarchical allgather: one per node). In round k every
 * virtual rank v holds the blocks of v .. v+2^k-1 and sends the first
 * c = min(2^k, p - 2^k) of them to v - 2^k, receiving those of v+2^k ..
 * v+2^k+c-1 from v + 2^k. Blocks move straight between the user's receive
 * buffers (one hindexed piece over them), so there is no rotated work
 * buffer and no final rotation; a range that wraps past the last virtual
 * rank goes as two messages (sender and receiver split it alike). Runs on
 * virtual ranks (a->order, e.g. a topology mapping). */
#include "base.h"

/* Blocks of virtual ranks v .. v+n-1 (cyclic) to or from peer. */
static int blocks(const cx_args *a, cx_sched *s, int v, int n, int peer, int send)
{
    int p = a->size, err = MPI_SUCCESS;
    for (v %= p; n > 0 && !err; v = 0) {
        int run = n < p - v ? n : p - v;
        cx_piece b;
        if (!(err = cx_vrange_piece(a, s, v, run, &b)))
            err = send ? cx_sched_send(s, b.buf, b.count, b.type, peer)
                       : cx_sched_recv(s, b.buf, b.count, b.type, peer);
        n -= run;
    }
    return err;
}

int cx_base_allgather_bruck(const cx_args *a, cx_sched *s)
{
    int p = a->size, v = cx_vrank_of(a, a->rank);
    int err = cx_sched_own_block(a, s);
    for (int d = 1; d < p && !err; d <<= 1) {
        int c = d < p - d ? d : p - d;
        int to = cx_rank_of(a, (v - d + p) % p), from = cx_rank_of(a, (v + d) % p);
        if (!(err = blocks(a, s, v, c, to, 1)) && !(err = blocks(a, s, v + d, c, from, 0)))
            err = cx_sched_barrier(s);
    }
    return err;
}
