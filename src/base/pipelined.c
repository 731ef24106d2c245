/* Pipelined tree broadcast (Open MPI's "pipeline" and "split binary
 * tree" family): the message is cut into a fixed number of byte segments
 * (COLLX_BCAST_SEGMENTS) that flow down a tree of fan-out f on virtual
 * ranks (f = 1: a chain) one behind the other, so every level forwards
 * segment i while it receives segment i + 1. Time about
 * f (segments + depth - 1) segment times, against log2 p whole messages
 * for binomial: for long messages among few ranks (a node's leaders).
 * The number of segments does not depend on the size, so a rank whose
 * count is wrong still takes part in every message (a too small receive
 * truncates; nothing is left unmatched). */
#include "base.h"

static int send_to_children(const cx_args *a, cx_sched *s, cx_piece seg, int v, int f)
{
    int err = MPI_SUCCESS;
    for (long c = (long)f * v + 1; c <= (long)f * v + f && c < a->size && !err; c++)
        err = cx_sched_send(s, seg.buf, seg.count, seg.type, cx_rank_of(a, (int)c));
    return err;
}

int cx_base_bcast_pipelined(const cx_args *a, cx_sched *s)
{
    int f = *(const int *)a->alg->family_data, v = cx_vrank_of(a, a->rank), err;
    int n = (int)cx_knob_call_int(a->params, CX_KNOB_BCAST_SEGMENTS);
    int parent = v ? cx_rank_of(a, (v - 1) / f) : MPI_PROC_NULL;
    cx_byte_message m;
    if ((err = cx_byte_message_open(a, s, v == 0, &m)))
        return err;
    /* Round i: receive segment i, pass segment i - 1 on. */
    for (int i = 0; i <= n && !err; i++) {
        if (v && i < n) {
            cx_piece in = cx_byte_pieces(&m, i, 1, n);
            err = cx_sched_recv(s, in.buf, in.count, in.type, parent);
        }
        int out = v ? i - 1 : i;
        if (!err && out >= 0 && out < n)
            err = send_to_children(a, s, cx_byte_pieces(&m, out, 1, n), v, f);
        if (!err)
            err = cx_sched_barrier(s);
    }
    return err ? err : cx_byte_message_close(a, s, v == 0, &m);
}
