/* Small calls on one node: the node phase at the speed of a cache-line
 * handoff (issue 61). A blocking hierarchical call whose data per rank
 * fit the node's cells (COLLX_NODE_CELL, 4 KiB) does no more than this:
 *
 *   1. every rank copies its contribution into its own cell of the call's
 *      parity (the root's message, its block, its row of blocks, its
 *      vector; up to 96 bytes into its pair of lines, beside the
 *      exchange's words, which x86 cores fetch together), then
 *      publishes its sizes and "ready" in its line with one release
 *      store: the size exchange every hierarchical call makes anyway
 *      (guard.c);
 *   2. every rank waits until each rank of the node published this
 *      exchange (acquire loads: one handoff after the last one arrived);
 *   3. if all of them are ready with the same sizes, every rank reads
 *      what it needs straight from the writers' cells (bcast: the root's;
 *      allgather: all; alltoall: its block of every writer's row; reduce
 *      at the root and allreduce everywhere: all, folded in rank order)
 *      and the call is over.
 *   A bcast goes one way (guard.c, one_way): its root is done once it
 *   published, the other ranks wait in step 2 for the root alone.
 *
 * One flag exchange instead of a size check, two node barriers, a slot
 * of the segment and a schedule. A cell is written again two exchanges
 * later, and a rank publishes exchange g + 1 only after it finished
 * reading exchange g's cells (its calls are blocking, in order), while
 * the writer of exchange g + 2 has waited for the whole node's g + 1
 * (in g + 1's exchange, or before it writes when g + 1 was a bcast:
 * guard.c, previous_read): so no reader is still in a cell its writer
 * refills, with no flag for "slot free". When any rank is not ready (its data is larger than a
 * cell, a reduction on a type that is not one dense run, a call that
 * wants its result in the segment) or the sizes disagree, every rank
 * sees the same words and the call goes on through the segment as
 * before (guard.c builds it). */
#include <string.h>
#include "hier.h"

/* Above this many bytes of cells to fold per rank (ranks x vector), an
 * allreduce goes through the segment, where the node's ranks fold a
 * slice each instead of all of it everywhere. */
#define HIER_SMALL_FOLD_MOST 32768

/* This rank's part of a call: 1 with the data it puts in its cell in
 * *buf (MPI_BOTTOM may be NULL), 0 when it puts none; *count and *type:
 * the size it takes part with either way, *bytes its bytes (the guard's
 * block size of that side, g->send or g->recv: the same cx_type_bytes,
 * asked again only where that side was not significant). */
static int contribution(const cx_args *a, const hier_guard *g, const void **buf,
                        MPI_Aint *count, MPI_Datatype *type, MPI_Aint *bytes)
{
    int64_t known = g->recv;
    int gives = 1;
    *count = a->rcount;
    *type = a->rtype;
    switch (a->coll) {
    case CX_COLL_BCAST:
        *buf = a->rbuf;
        gives = a->rank == a->root;
        break;
    case CX_COLL_ALLGATHER:
        if (a->sbuf != MPI_IN_PLACE) {
            *count = a->scount;
            *type = a->stype;
            *buf = a->sbuf;
            known = g->send;
        } else {
            *buf = cx_block(a->rbuf, a->rank, a->rcount, a->rtype);
        }
        break;
    case CX_COLL_ALLTOALL:   /* its whole send buffer: size blocks, one run */
        if (a->sbuf != MPI_IN_PLACE) {
            *count = a->scount;
            *type = a->stype;
            *buf = a->sbuf;
            known = g->send;
        } else {
            *buf = a->rbuf;
        }
        break;
    default:   /* CX_COLL_REDUCE, CX_COLL_ALLREDUCE */
        *buf = a->sbuf != MPI_IN_PLACE ? a->sbuf : a->rbuf;
    }
    *bytes = known >= 0 ? (MPI_Aint)known : (MPI_Aint)cx_type_bytes(*count, *type);
    return gives;
}

static int reduction(const cx_args *a)
{
    return a->coll == CX_COLL_REDUCE || a->coll == CX_COLL_ALLREDUCE;
}

/* Where rank local puts bytes of its contribution to exchange gen. */
static char *place(cx_comm *c, int local, unsigned long long gen, MPI_Aint bytes)
{
    if (bytes <= HIER_INLINE_BYTES)
        return cx_comm_node_line(c, local) +
               (gen % 2) * HIER_GUARD_WORDS * 8 + HIER_INLINE_WORD * 8;
    return cx_comm_node_cell(c, local, gen);
}

int64_t hier_small_fill(const cx_args *a, const hier_guard *g)
{
    cx_comm *c = g->c;
    MPI_Aint count, bytes;
    MPI_Datatype type;
    const void *mine;
    if (c->cell_bytes <= 0 || c->nnodes != 1 || a->shared_out)
        return HIER_CELL_NO;
    if (a->coll != CX_COLL_BCAST && a->coll != CX_COLL_ALLGATHER &&
        a->coll != CX_COLL_ALLTOALL && !reduction(a))
        return HIER_CELL_NO;
    int gives = contribution(a, g, &mine, &count, &type, &bytes);
    if (a->coll == CX_COLL_ALLTOALL) {   /* a block for each rank */
        if (bytes > c->cell_bytes / a->size)
            return HIER_CELL_NO;
        count *= a->size;
        bytes *= a->size;
    }
    if (bytes > c->cell_bytes)
        return HIER_CELL_NO;
    if (reduction(a) && (!cx_type_plain(type) ||
                         (a->coll == CX_COLL_ALLREDUCE &&
                          bytes * c->local_size > HIER_SMALL_FOLD_MOST)))
        return HIER_CELL_NO;
    if (gives && bytes &&
        cx_copy_charged(mine, count, type, place(c, c->local_rank, g->gen, bytes), bytes,
                        MPI_PACKED))
        return HIER_CELL_NO;
    return HIER_CELL_READY;
}

/* Rank r's contribution of bytes to the exchange. */
static const char *cell_of(const hier_guard *g, int r, MPI_Aint bytes)
{
    return place(g->c, g->c->local_of[r], g->gen, bytes);
}

/* rbuf = cell(0) op (cell(1) op (... op cell(p - 1))): rank order, as
 * MPI defines the result for a non-commutative op too. */
static int fold(const cx_args *a, const hier_guard *g, MPI_Aint bytes)
{
    double pending = cx_reduce_seconds(bytes) * (a->size - 1);
    memcpy(a->rbuf, cell_of(g, a->size - 1, bytes), (size_t)bytes);
    for (int r = a->size - 2; r >= 0; r--) {
        int err = cx_reduce_local(cell_of(g, r, bytes), a->rbuf, a->rcount, a->rtype, a->op);
        if (err)
            return err;
    }
    cx_charge_copy(bytes);
    cx_charge(&pending);
    return MPI_SUCCESS;
}

int hier_small_run(const cx_args *a, const hier_guard *g)
{
    /* rcount elements of rtype: the guard's receive size where significant */
    MPI_Aint bytes = g->recv >= 0 ? (MPI_Aint)g->recv
                                  : (MPI_Aint)cx_type_bytes(a->rcount, a->rtype);
    int err = MPI_SUCCESS;
    hier_pause();
    switch (a->coll) {
    case CX_COLL_BCAST:
        if (a->rank != a->root && bytes)
            err = cx_copy_charged(cell_of(g, a->root, bytes), bytes, MPI_PACKED, a->rbuf,
                                  a->rcount, a->rtype);
        break;
    case CX_COLL_ALLGATHER: {
        MPI_Aint block = a->rcount * cx_type_extent(a->rtype);   /* cx_block's, once */
        for (int r = 0; r < a->size && !err && bytes; r++, hier_pause())
            if (r != a->rank || a->sbuf != MPI_IN_PLACE)
                err = cx_copy_charged(cell_of(g, r, bytes), bytes, MPI_PACKED,
                                      (char *)a->rbuf + r * block, a->rcount, a->rtype);
        break;
    }
    case CX_COLL_ALLTOALL: {   /* block me of every writer's row */
        MPI_Aint block = a->rcount * cx_type_extent(a->rtype);
        for (int r = 0; r < a->size && !err && bytes; r++, hier_pause())
            if (r != a->rank || a->sbuf != MPI_IN_PLACE)
                err = cx_copy_charged(cell_of(g, r, bytes * a->size) + a->rank * bytes, bytes,
                                      MPI_PACKED, (char *)a->rbuf + r * block, a->rcount,
                                      a->rtype);
        break;
    }
    case CX_COLL_REDUCE:
    case CX_COLL_ALLREDUCE:
        if (bytes && (a->coll == CX_COLL_ALLREDUCE || a->rank == a->root))
            err = fold(a, g, bytes);
        break;
    default:
        err = MPI_ERR_INTERN;
    }
    hier_pause();
    return err;
}
