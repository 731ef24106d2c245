/* Recursive-doubling allgather for any p, on virtual ranks (a->order, e.g.
 * a topology mapping; the ranges below are virtual-rank ranges, each sent
 * as cx_sched_vrange does). With p' the largest power of two
 * <= p, rank r >= p' first hands its block to r - p'; the p' ranks double
 * their blocks log2(p') times (a group of low ranks always carries its
 * partners' blocks too, so each exchange is at most two ranges); finally
 * r - p' returns the full result to r. */
#include "base.h"

/* Adds the exchange of group [g, g+mask) (and its partners) with peer. */
static int exchange(const cx_args *a, cx_sched *s, int mine, int theirs, int mask,
                    int pow2, int peer)
{
    int p = a->size, err;
    if ((err = cx_sched_vrange(a, s, mine, mask, peer, 0)) ||
        (err = cx_sched_vrange(a, s, theirs, mask, peer, 1)))
        return err;
    /* The extra ranks' blocks held by each group: [g+p', min(g+mask+p', p)). */
    int mine_hi = p - (mine + pow2), theirs_hi = p - (theirs + pow2);
    mine_hi = mine_hi < 0 ? 0 : mine_hi > mask ? mask : mine_hi;
    theirs_hi = theirs_hi < 0 ? 0 : theirs_hi > mask ? mask : theirs_hi;
    if ((err = cx_sched_vrange(a, s, mine + pow2, mine_hi, peer, 0)))
        return err;
    return cx_sched_vrange(a, s, theirs + pow2, theirs_hi, peer, 1);
}

int cx_base_allgather_rdoubling(const cx_args *a, cx_sched *s)
{
    int p = a->size, v = cx_vrank_of(a, a->rank), err = MPI_SUCCESS, pow2 = 1;
    while (pow2 * 2 <= p)
        pow2 *= 2;
    cx_piece mine = cx_all_block(a, a->rank);
    err = cx_sched_own_block(a, s);
    if (v >= pow2) {  /* extra rank: hand over, then receive everything */
        int host = cx_rank_of(a, v - pow2);
        if (!err && !(err = cx_sched_send(s, mine.buf, mine.count, mine.type, host)))
            err = cx_sched_barrier(s);
        /* Its own block comes back unchanged; receive around it. */
        if (!err)
            err = cx_sched_vrange(a, s, 0, v, host, 1);
        return err ? err : cx_sched_vrange(a, s, v + 1, p - v - 1, host, 1);
    }
    if (!err && v + pow2 < p) {
        int x = cx_rank_of(a, v + pow2);
        cx_piece extra = cx_all_block(a, x);
        if (!(err = cx_sched_recv(s, extra.buf, extra.count, extra.type, x)))
            err = cx_sched_barrier(s);
    }
    for (int mask = 1; mask < pow2 && !err; mask <<= 1) {
        int peer = v ^ mask, g = v & ~(mask - 1), pg = peer & ~(mask - 1);
        if (!(err = exchange(a, s, g, pg, mask, pow2, cx_rank_of(a, peer))))
            err = cx_sched_barrier(s);
    }
    if (!err && v + pow2 < p) {
        int x = v + pow2, xr = cx_rank_of(a, x);
        if (!(err = cx_sched_vrange(a, s, 0, x, xr, 0)))
            err = cx_sched_vrange(a, s, x + 1, p - x - 1, xr, 0);
    }
    return err;
}
