/* Broadcast of a long message as a scatter and an allgather (van de
 * Geijn; MPICH's long-message bcast): the message is cut into p pieces of
 * bytes, piece v for virtual rank v; a binomial scatter gives
 * every rank its subtree's pieces (each rank moves at most m / 2 in one
 * message, against m per round in a binomial bcast), then a ring
 * allgather of the p pieces completes the message everywhere: about
 * 2 m (p - 1) / p bytes per rank instead of m log2 p. */
#include "base.h"

/* Pieces v .. v + n - 1 of the message cut into p (bytes.c). */
static cx_piece pieces(const cx_args *a, const cx_byte_message *m, int v, int n)
{
    return cx_byte_pieces(m, v, n, a->size);
}

/* Binomial scatter on virtual ranks: v receives its subtree's pieces from
 * its parent, then sends each child its subtree's, the largest first. */
static int scatter(const cx_args *a, cx_sched *s, const cx_byte_message *m, int v)
{
    int p = a->size, span = cx_binomial_span(v, p), err = MPI_SUCCESS;
    if (v) {
        cx_piece mine = pieces(a, m, v, cx_binomial_subtree(v, p));
        if ((err = cx_sched_recv(s, mine.buf, mine.count, mine.type,
                                 cx_rank_of(a, v - span))) ||
            (err = cx_sched_barrier(s)))
            return err;
    }
    for (int k = span >> 1; k >= 1 && !err; k >>= 1)
        if (v + k < p) {
            cx_piece c = pieces(a, m, v + k, cx_binomial_subtree(v + k, p));
            err = cx_sched_send(s, c.buf, c.count, c.type, cx_rank_of(a, v + k));
        }
    return err ? err : cx_sched_barrier(s);
}

/* Ring allgather of the pieces: in round k, v passes piece v - k to its
 * right and takes piece v - k - 1 from its left. */
static int ring(const cx_args *a, cx_sched *s, const cx_byte_message *m, int v)
{
    int p = a->size, err = MPI_SUCCESS;
    int right = cx_rank_of(a, (v + 1) % p), left = cx_rank_of(a, (v + p - 1) % p);
    for (int k = 0; k < p - 1 && !err; k++) {
        cx_piece out = pieces(a, m, (v - k + p) % p, 1);
        cx_piece in = pieces(a, m, (v - k - 1 + 2 * p) % p, 1);
        if (!(err = cx_sched_send(s, out.buf, out.count, out.type, right)) &&
            !(err = cx_sched_recv(s, in.buf, in.count, in.type, left)))
            err = cx_sched_barrier(s);
    }
    return err;
}

int cx_base_bcast_scatter_allgather(const cx_args *a, cx_sched *s)
{
    int v = cx_vrank_of(a, a->rank), err;
    cx_byte_message m;
    if ((err = cx_byte_message_open(a, s, v == 0, &m)) || (err = scatter(a, s, &m, v)) ||
        (err = ring(a, s, &m, v)))
        return err;
    return cx_byte_message_close(a, s, v == 0, &m);
}
