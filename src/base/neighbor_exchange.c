/* Neighbour exchange allgather / allgatherv (Chen et al., 2005): for an
 * even number of ranks, p/2 rounds of two blocks instead of the ring's
 * p-1 rounds of one; the same bytes, half the latencies. Virtual ranks
 * pair up as (2j, 2j+1), and pairs of blocks travel from pair to pair.
 * Round 0 swaps the two blocks of a pair. In round i >= 1 a rank trades
 * the pair of blocks it received in round i-1 (its own pair in round 1)
 * with a neighbour: at odd rounds the next pair's member beside it (v+1
 * for an odd v, v-1 for an even one), at even rounds its partner. An odd
 * rank so receives pairs j+1, j-1, j+2, j-2, ..., an even rank j-1, j+1,
 * j-2, ... (j: its own pair, modulo p/2), which after p/2-1 rounds is
 * every pair. Odd p has no pairing: the ring runs. Runs on virtual ranks
 * (a->order), blocks stay where the user's ranks put them. */
#include "base.h"

/* The pair a rank of side s (+1 odd, -1 even) in pair j receives in
 * round i >= 1, modulo the q = p/2 pairs. */
static int pair_received(int j, int s, int i, int q)
{
    int step = i % 2 ? s * (i + 1) / 2 : -s * i / 2;
    return ((j + step) % q + q) % q;
}

int cx_base_allgather_neighbor_exchange(const cx_args *a, cx_sched *s)
{
    int p = a->size;
    if (p % 2)
        return cx_build_ring_allgather(a, s);
    int v = cx_vrank_of(a, a->rank), q = p / 2, j = v / 2, side = v % 2 ? 1 : -1;
    int err = cx_sched_own_block(a, s);
    int partner = cx_rank_of(a, v ^ 1);
    if (!err && p > 1 &&
        !(err = cx_sched_vrange(a, s, v, 1, partner, 0)) &&
        !(err = cx_sched_vrange(a, s, v ^ 1, 1, partner, 1)))
        err = cx_sched_barrier(s);
    int beside = cx_rank_of(a, (v + side + p) % p), sent = j;
    for (int i = 1; i < q && !err; i++) {
        int peer = i % 2 ? beside : partner, got = pair_received(j, side, i, q);
        if (!(err = cx_sched_vrange(a, s, 2 * sent, 2, peer, 0)) &&
            !(err = cx_sched_vrange(a, s, 2 * got, 2, peer, 1)))
            err = cx_sched_barrier(s);
        sent = got;
    }
    return err;
}
