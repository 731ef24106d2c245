/* Alltoall, alltoallv and alltoallw by pairwise exchange: in round k rank r
 * sends to r+k and receives from r-k, one exchange per rank and round. The
 * three collectives differ only in where block i lives, so they share the
 * exchange through a block view. With MPI_IN_PLACE the outgoing blocks are
 * packed aside first: a block can be overwritten before the round that
 * sends it. */
#include "base.h"

/* The outgoing blocks: the send buffer's, or (MPI_IN_PLACE) packed copies
 * of the receive buffer's, taken in a round of their own. */
int cx_alltoall_out_blocks(const cx_args *a, cx_sched *s, cx_piece **out)
{
    int p = a->size, err = MPI_SUCCESS;
    cx_piece *o = cx_sched_alloc(s, sizeof *o * (size_t)p);
    if (!(*out = o))
        return MPI_ERR_NO_MEM;
    if (a->sbuf != MPI_IN_PLACE) {
        for (int i = 0; i < p; i++)
            o[i] = cx_a2a_block(a, 1, i);
        return MPI_SUCCESS;
    }
    MPI_Aint total = 0;
    for (int i = 0; i < p; i++) {
        cx_piece b = cx_a2a_block(a, 0, i);
        total += (MPI_Aint)cx_type_bytes(b.count, b.type);
    }
    char *tmp = cx_sched_alloc(s, (size_t)total);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p && !err; i++) {
        cx_piece b = cx_a2a_block(a, 0, i);
        o[i] = (cx_piece){tmp, (MPI_Aint)cx_type_bytes(b.count, b.type), MPI_PACKED};
        err = cx_sched_copy(s, b.buf, b.count, b.type, tmp, o[i].count, MPI_PACKED);
        tmp += o[i].count;
    }
    return err ? err : cx_sched_barrier(s);
}

int cx_base_alltoall_pairwise(const cx_args *a, cx_sched *s)
{
    int p = a->size, r = a->rank, err;
    cx_piece *out;
    if ((err = cx_alltoall_out_blocks(a, s, &out)))
        return err;
    for (int k = 0; k < p && !err; k++) {
        int to = (r + k) % p, from = (r - k + p) % p;
        cx_piece in = cx_a2a_block(a, 0, from);
        if (k == 0) {
            if (a->sbuf != MPI_IN_PLACE)
                err = cx_sched_copy(s, out[r].buf, out[r].count, out[r].type, in.buf,
                                    in.count, in.type);
            continue;
        }
        if (!(err = cx_sched_send(s, out[to].buf, out[to].count, out[to].type, to)) &&
            !(err = cx_sched_recv(s, in.buf, in.count, in.type, from)))
            err = cx_sched_barrier(s);
    }
    return err;
}
