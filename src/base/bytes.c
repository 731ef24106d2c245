/* A broadcast's message as bytes. Ranks may describe it with different
 * datatypes of one signature, so algorithms that cut it into pieces cut
 * bytes: the user's buffer itself when its type is plain bytes from
 * offset 0, else a packed copy that the root fills first and the others
 * unpack last. */
#include "base.h"

int cx_byte_message_open(const cx_args *a, cx_sched *s, int is_root, cx_byte_message *m)
{
    *m = (cx_byte_message){a->rbuf, (MPI_Aint)cx_type_bytes(a->rcount, a->rtype),
                           !cx_type_plain(a->rtype)};
    if (!m->packed)
        return MPI_SUCCESS;
    if (!(m->buf = cx_sched_alloc(s, (size_t)m->bytes)))
        return MPI_ERR_NO_MEM;
    int err = is_root ? cx_sched_copy(s, a->rbuf, a->rcount, a->rtype, m->buf, m->bytes,
                                      MPI_PACKED)
                      : MPI_SUCCESS;
    return err ? err : cx_sched_barrier(s);   /* the pieces go out once packed */
}

int cx_byte_message_close(const cx_args *a, cx_sched *s, int is_root, const cx_byte_message *m)
{
    if (!m->packed || is_root)
        return MPI_SUCCESS;
    return cx_sched_copy(s, m->buf, m->bytes, MPI_PACKED, a->rbuf, a->rcount, a->rtype);
}

cx_piece cx_byte_pieces(const cx_byte_message *m, int i, int n, int of)
{
    MPI_Aint lo = m->bytes * i / of, hi = m->bytes * (i + n) / of;
    return (cx_piece){m->buf + lo, hi - lo, MPI_BYTE};
}
