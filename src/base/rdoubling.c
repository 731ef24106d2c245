/* Recursive-doubling allgather for any p. With p' the largest power of two
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
    cx_piece out = cx_all_range(a, mine, mask), in = cx_all_range(a, theirs, mask);
    if ((err = cx_sched_send(s, out.buf, out.count, out.type, peer)) ||
        (err = cx_sched_recv(s, in.buf, in.count, in.type, peer)))
        return err;
    /* The extra ranks' blocks held by each group: [g+p', min(g+mask+p', p)). */
    int mine_hi = p - (mine + pow2), theirs_hi = p - (theirs + pow2);
    mine_hi = mine_hi < 0 ? 0 : mine_hi > mask ? mask : mine_hi;
    theirs_hi = theirs_hi < 0 ? 0 : theirs_hi > mask ? mask : theirs_hi;
    if (mine_hi) {
        out = cx_all_range(a, mine + pow2, mine_hi);
        if ((err = cx_sched_send(s, out.buf, out.count, out.type, peer)))
            return err;
    }
    if (theirs_hi) {
        in = cx_all_range(a, theirs + pow2, theirs_hi);
        err = cx_sched_recv(s, in.buf, in.count, in.type, peer);
    }
    return err;
}

int cx_base_allgather_rdoubling(const cx_args *a, cx_sched *s)
{
    int p = a->size, r = a->rank, err = MPI_SUCCESS, pow2 = 1;
    while (pow2 * 2 <= p)
        pow2 *= 2;
    cx_piece mine = cx_all_block(a, r);
    err = cx_sched_own_block(a, s);
    if (r >= pow2) {  /* extra rank: hand over, then receive everything */
        if (!err && !(err = cx_sched_send(s, mine.buf, mine.count, mine.type, r - pow2)))
            err = cx_sched_barrier(s);
        /* Its own block comes back unchanged; receive around it. */
        if (!err && r > 0) {
            cx_piece low = cx_all_range(a, 0, r);
            err = cx_sched_recv(s, low.buf, low.count, low.type, r - pow2);
        }
        if (!err && r + 1 < p) {
            cx_piece high = cx_all_range(a, r + 1, p - r - 1);
            err = cx_sched_recv(s, high.buf, high.count, high.type, r - pow2);
        }
        return err;
    }
    if (!err && r + pow2 < p) {
        cx_piece extra = cx_all_block(a, r + pow2);
        if (!(err = cx_sched_recv(s, extra.buf, extra.count, extra.type, r + pow2)))
            err = cx_sched_barrier(s);
    }
    for (int mask = 1; mask < pow2 && !err; mask <<= 1) {
        int peer = r ^ mask, g = r & ~(mask - 1), pg = peer & ~(mask - 1);
        if (!(err = exchange(a, s, g, pg, mask, pow2, peer)))
            err = cx_sched_barrier(s);
    }
    if (!err && r + pow2 < p) {
        int x = r + pow2;
        cx_piece low = cx_all_range(a, 0, x);
        if (!(err = cx_sched_send(s, low.buf, low.count, low.type, x)) && x + 1 < p) {
            cx_piece high = cx_all_range(a, x + 1, p - x - 1);
            err = cx_sched_send(s, high.buf, high.count, high.type, x);
        }
    }
    return err;
}
