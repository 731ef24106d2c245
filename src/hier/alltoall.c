/* Hierarchical alltoall, alltoallv and alltoallw (the paper's main case:
 * p - 1 small messages per rank become nnodes - 1 large ones per node).
 *
 * Node n's send region holds, for each destination node m in turn, the
 * blocks its ranks send to m's ranks, source-major: exactly the message
 * n's leader sends to m's leader. The receive region has the same layout
 * seen from the other side. The leaders run one alltoallv of the regions.
 * In alltoallv and alltoallw a rank knows only its own counts: every rank
 * writes its byte counts into a table in the slot, and the layout is
 * computed after a node barrier (a start step that appends the rest). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "hier.h"

typedef struct a2a {
    hier h;
    const int *first, *members;  /* ranks of node n, local order */
    MPI_Aint bb;                 /* alltoall: every block's bytes */
    MPI_Aint *table;             /* v, w: [local rank][send, recv][p] bytes */
    size_t row;                  /* elements from one rank's row to the next */
    char *sreg, *rreg;           /* the node's send and receive regions */
    int lo, hi;                  /* the band: source local ranks [lo, hi) */
    /* v, w in bands: band b = source local ranks [band[b], band[b + 1]) */
    int *band, nb, b;
    MPI_Aint *my_row, row_bytes; /* this rank's row of counts; a row's bytes */
    int pipelined;               /* v, w: emit_pipelined (alike on every rank) */
} a2a;

static MPI_Aint align64(MPI_Aint b) { return (b + 63) / 64 * 64; }

/* Whether local rank l's blocks travel in this band. */
static int in_band(const a2a *x, int l) { return l >= x->lo && l < x->hi; }

/* Bytes local rank l sends to rank j / receives from rank i. */
static MPI_Aint sent(const a2a *x, int l, int j)
{
    return x->table ? x->table[(size_t)l * x->row + (size_t)j] : x->bb;
}

static MPI_Aint got(const a2a *x, int l, int i)
{
    int p = x->h.a->size;
    return x->table ? x->table[(size_t)l * x->row + (size_t)p + (size_t)i] : x->bb;
}

/* Bytes of the node's region sent to node m (send) or received from it. */
static MPI_Aint node_bytes(const a2a *x, int m, int send)
{
    const cx_comm *c = x->h.c;
    MPI_Aint total = 0;
    for (int l = 0; l < c->local_size; l++)
        for (int k = x->first[m]; k < x->first[m + 1]; k++)
            if (in_band(x, send ? l : k - x->first[m]))
                total += send ? sent(x, l, x->members[k]) : got(x, l, x->members[k]);
    return total;
}

/* The leaders' alltoallv of the regions (counts in bytes); with several
 * senders, column l exchanges share l of every region. */
static int exchange(a2a *x, cx_sched *s)
{
    int n = x->h.c->nnodes, l = x->h.c->local_rank, k = x->h.senders;
    if (n < 2 || l >= k)
        return MPI_SUCCESS;
    int *v = cx_sched_alloc(s, sizeof(int) * 4 * (size_t)n);
    if (!v)
        return MPI_ERR_NO_MEM;
    MPI_Aint so = 0, ro = 0;
    for (int m = 0; m < n; m++) {
        MPI_Aint sb = node_bytes(x, m, 1), rb = node_bytes(x, m, 0), slo, slen, rlo, rlen;
        hier_share(sb, l, k, &slo, &slen);
        hier_share(rb, l, k, &rlo, &rlen);
        v[m] = (int)slen;
        v[n + m] = (int)(so + slo);
        v[2 * n + m] = (int)rlen;
        v[3 * n + m] = (int)(ro + rlo);
        so += sb;
        ro += rb;
    }
    cx_args inter = {.coll = CX_COLL_ALLTOALLV, .sbuf = x->sreg, .scounts = v,
                     .sdispls = v + n, .stype = MPI_BYTE, .rbuf = x->rreg,
                     .rcounts = v + 2 * n, .rdispls = v + 3 * n, .rtype = MPI_BYTE};
    return hier_columns(&x->h, s, &inter);
}

/* This rank's blocks for node m into part, node m's part of the send
 * region. */
static int copy_in(a2a *x, cx_sched *s, int m, char *part)
{
    const cx_comm *c = x->h.c;
    int me = c->local_rank, err = MPI_SUCCESS;
    MPI_Aint off = 0;
    for (int l = x->lo; l < x->hi && l < c->local_size && !err; l++)
        for (int k = x->first[m]; k < x->first[m + 1] && !err; k++) {
            MPI_Aint b = sent(x, l, x->members[k]);
            if (l == me && b) {
                cx_piece o = cx_a2a_block(x->h.a, 1, x->members[k]);
                err = cx_sched_copy(s, o.buf, o.count, o.type, part + off, b, MPI_PACKED);
            }
            off += b;
        }
    return err;
}

/* This rank's blocks from node m out of part, what node m sent. */
static int copy_out(a2a *x, cx_sched *s, int m, const char *part)
{
    const cx_comm *c = x->h.c;
    int me = c->local_rank, err = MPI_SUCCESS;
    MPI_Aint off = 0;
    for (int k = x->first[m] + x->lo; k < x->first[m + 1] && k < x->first[m] + x->hi && !err;
         k++)
        for (int l = 0; l < c->local_size && !err; l++) {
            int i = x->members[k];
            MPI_Aint b = got(x, l, i);
            if (l == me && b) {
                cx_piece in = cx_a2a_block(x->h.a, 0, i);
                err = cx_sched_copy(s, part + off, b, MPI_PACKED, in.buf, in.count, in.type);
            }
            off += b;
        }
    return err;
}

/* Sender l's share of a part of bytes at part, to or from node peer:
 * posted even when empty (erroneous counts then end in MPI_ERR_TRUNCATE,
 * never in a wait) and before the round's copies, which it overlaps. */
static int post_share(a2a *x, cx_sched *s, char *part, MPI_Aint bytes, int peer, int send,
                      MPI_Comm comm)
{
    MPI_Aint lo, len;
    int f = CX_MSG_EMPTY | CX_MSG_EARLY;
    hier_share(bytes, x->h.c->local_rank, x->h.senders, &lo, &len);
    return send ? cx_sched_send_flags(s, part + lo, len, MPI_BYTE, peer, comm, s->tag, f)
                : cx_sched_recv_flags(s, part + lo, len, MPI_BYTE, peer, comm, s->tag, f);
}

/* Large v/w calls: the nodes exchange their parts pairwise, round r with
 * nodes me + r and me - r, while every rank of the node copies its blocks
 * for round r + 1 in and those of round r - 1 out (the copies overlap the
 * transfer instead of adding to it); a node barrier closes each round. */
static int emit_pipelined(a2a *x, cx_sched *s)
{
    cx_comm *c = x->h.c;
    int n = c->nnodes, me = c->my_node, err = MPI_SUCCESS;
    MPI_Aint *so = cx_sched_alloc(s, sizeof(MPI_Aint) * 2 * (size_t)(n + 1)), *ro;
    if (!so)
        return MPI_ERR_NO_MEM;
    ro = so + n + 1;
    so[0] = ro[0] = 0;
    for (int m = 0; m < n; m++) {
        so[m + 1] = so[m] + node_bytes(x, m, 1);
        ro[m + 1] = ro[m] + node_bytes(x, m, 0);
    }
    MPI_Comm comm = c->leaders;
    if (x->h.senders > 1 && (err = cx_comm_column(c, &comm)))
        return err;
    int sender = c->local_rank < x->h.senders;
    /* What the node sends itself is read from the send region. */
#define PART_IN(m) (x->sreg + so[m])
#define PART_OUT(m) ((m) == me ? x->sreg + so[me] : x->rreg + ro[m])
    /* In place, a block copied out overwrites send data: every block is
     * copied in first (a local choice: the messages stay the same). */
    int ahead = x->h.a->sbuf == MPI_IN_PLACE ? n - 1 : 1;
    for (int r = 0; r <= ahead && !err; r++)
        err = copy_in(x, s, (me + r) % n, PART_IN((me + r) % n));
    if (err || (err = hier_node_barrier(&x->h, s)))
        return err;
    for (int r = 1; r < n && !err; r++) {
        int to = (me + r) % n, from = (me - r + n) % n, done = (me - r + 1 + n) % n;
        if (sender && !err)
            err = post_share(x, s, x->rreg + ro[from], ro[from + 1] - ro[from], from, 0, comm);
        if (sender && !err)
            err = post_share(x, s, PART_IN(to), so[to + 1] - so[to], to, 1, comm);
        if (r + 1 > ahead && r + 1 < n && !err)
            err = copy_in(x, s, (me + r + 1) % n, PART_IN((me + r + 1) % n));
        if (!err)
            err = copy_out(x, s, done, PART_OUT(done));
        if (!err)
            err = hier_node_barrier(&x->h, s);
    }
    if (!err)
        err = copy_out(x, s, (me + 1) % n, PART_OUT((me + 1) % n));
#undef PART_IN
#undef PART_OUT
    return err ? err : cx_sched_barrier(s);
}

/* Packs this rank's blocks into the send region, exchanges, unpacks. */
static int emit(a2a *x, cx_sched *s)
{
    const cx_comm *c = x->h.c;
    int err = MPI_SUCCESS;
    if (x->pipelined && c->nnodes > 1)
        return emit_pipelined(x, s);
    MPI_Aint off = 0;
    for (int m = 0; m < c->nnodes && !err; m++) {
        err = copy_in(x, s, m, x->sreg + off);
        off += node_bytes(x, m, 1);
    }
    /* One node: the send region is the receive region. */
    if (c->nnodes < 2)
        x->rreg = x->sreg;
    if (!err)
        err = hier_node_barrier(&x->h, s);
    if (!err)
        err = exchange(x, s);
    if (!err)
        err = hier_node_barrier(&x->h, s);
    off = 0;
    for (int m = 0; m < c->nnodes && !err; m++) {
        err = copy_out(x, s, m, x->rreg + off);
        off += node_bytes(x, m, 0);
    }
    return err ? err : cx_sched_barrier(s);
}

static int table_step(a2a *x, cx_sched *s);

/* v, w: once every rank's counts are in the table (of this band's slot):
 * the regions follow from it; then the next band, if any. */
static int emit_later(cx_sched *s, void *ctx, MPI_Request *req)
{
    a2a *x = ctx;
    *req = MPI_REQUEST_NULL;
    MPI_Aint send = 0;
    for (int l = x->lo; l < x->hi && l < x->h.c->local_size; l++)
        for (int j = 0; j < x->h.a->size; j++)
            send += sent(x, l, j);
    x->rreg = x->sreg + (send + 63) / 64 * 64;
    int err = emit(x, s);
    if (err || ++x->b >= x->nb)
        return err;
    if ((err = hier_next_slot(&x->h, s)))   /* the next band, in the other half */
        return err;
    return table_step(x, s);
}

/* v, w: the table (local_size rows of counts) at the start of the slot,
 * the send and receive regions after it; each rank writes its row, and
 * after a node barrier emit_later lays the regions out. */
static int table_step(a2a *x, cx_sched *s)
{
    const cx_comm *c = x->h.c;
    MPI_Aint n = 2 * (MPI_Aint)x->h.a->size * (MPI_Aint)sizeof(MPI_Aint);
    int err;
    x->lo = x->band[x->b];
    x->hi = x->band[x->b + 1];
    x->table = (MPI_Aint *)(void *)x->h.slot;
    x->sreg = x->h.slot + (MPI_Aint)c->local_size * x->row_bytes;
    if ((err = cx_sched_copy(s, x->my_row, n, MPI_BYTE,
                             x->h.slot + (MPI_Aint)c->local_rank * x->row_bytes, n, MPI_BYTE)) ||
        (err = hier_node_barrier(&x->h, s)) || (err = cx_sched_start(s, emit_later, x)))
        return err;
    return cx_sched_barrier(s);
}

/* Bytes this rank sends to rank i (send) or receives from it. */
static MPI_Aint pair_bytes(const cx_args *a, int i, int send)
{
    cx_piece b = cx_a2a_block(a, send, i);
    return (MPI_Aint)cx_type_bytes(b.count, b.type);
}

/* Bytes of one rank's row of the counts table (sends, receives). */
static MPI_Aint table_bytes(int p)
{
    return align64((MPI_Aint)sizeof(MPI_Aint) * 2 * p);
}

/* v, w: what the ranks agree on before building (agree.c), each summed
 * over the node and then the largest over the nodes: [0] a rank's need
 * (its blocks and its row of the table); for the bands above the budget,
 * [1 + j] the bytes source local rank j brings into a node's slot (its
 * sends, and what the node's ranks receive from rank j of every node). */
int cx_hier_alltoallv_values(const cx_args *a, cx_sched *s, hier_values *v)
{
    cx_comm *c = a->cc;
    int L = c->max_ranks_per_node, p = a->size;
    int err = hier_values_alloc(s, v, 1 + L, 1 + L);
    if (err)
        return err;
    v->mine[0] = table_bytes(p) + 64;
    for (int j = 0; j < p; j++) {
        MPI_Aint out = pair_bytes(a, j, 1), in = pair_bytes(a, j, 0);
        v->mine[0] += out + in;
        v->mine[1 + c->local_rank] += out;
        v->mine[1 + c->local_of[j]] += in;
    }
    return MPI_SUCCESS;
}

/* In place, in bands: a band's results would overwrite data a later band
 * still sends, so every block is first packed (receive counts and types:
 * in place they describe the send data too) into scratch, and the send
 * side becomes those bytes (MPI_BYTE, block after block). */
static int send_from_copy(a2a *x, cx_sched *s)
{
    const cx_args *a = x->h.a;
    int p = a->size, err = MPI_SUCCESS;
    int *counts = cx_sched_alloc(s, sizeof(int) * 2 * (size_t)p);
    MPI_Datatype *types = cx_sched_alloc(s, sizeof(MPI_Datatype) * (size_t)p);
    cx_args *from = cx_sched_alloc(s, sizeof *from);
    if (!counts || !types || !from)
        return MPI_ERR_NO_MEM;
    int *displs = counts + p;
    MPI_Aint total = 0;
    for (int i = 0; i < p; i++) {
        cx_piece b = cx_a2a_block(a, 0, i);
        MPI_Aint n = (MPI_Aint)cx_type_bytes(b.count, b.type);
        if (n > INT_MAX || total > INT_MAX - n)
            return MPI_ERR_COUNT;   /* not reached: a band's blocks fit a half */
        counts[i] = (int)n;
        displs[i] = (int)total;
        types[i] = MPI_BYTE;
        total += n;
    }
    char *packed = cx_sched_alloc(s, (size_t)(total ? total : 1));
    if (!packed)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p && !err; i++) {
        cx_piece b = cx_a2a_block(a, 0, i);
        if (counts[i])
            err = cx_sched_copy(s, b.buf, b.count, b.type, packed + displs[i], counts[i],
                                MPI_PACKED);
    }
    if (err)
        return err;
    *from = *a;
    from->sbuf = packed;
    from->scount = p ? counts[0] : 0;   /* alltoall: every block alike */
    from->stype = MPI_BYTE;
    from->scounts = counts;
    from->sdispls = displs;
    from->stypes = types;
    x->h.a = from;
    return MPI_SUCCESS;
}

/* Bytes of one region for a band of w source local ranks: sends to all
 * p ranks, or receives from w ranks of every node for each of mine. */
static MPI_Aint band_region(const cx_comm *c, int w, int p, MPI_Aint bb)
{
    MPI_Aint most = c->max_ranks_per_node, span = (MPI_Aint)c->nnodes * most;
    return align64((MPI_Aint)w * (span > p ? span : p) * bb);
}

/* Up to the budget; above it, bands of source local ranks (one local
 * rank's blocks must fit, else the call runs native). */
MPI_Aint cx_hier_shm_alltoall(const cx_args *a)
{
    cx_comm *c = a->cc;
    MPI_Aint most = c && c->nodes_ready ? c->max_ranks_per_node : a->size;
    MPI_Aint bb = (MPI_Aint)cx_block_bytes(a), whole = 2 * align64(most * a->size * bb);
    if (whole <= hier_slot_budget() || !c || !c->nodes_ready)
        return hier_shm_bytes(whole);
    MPI_Aint one = 2 * band_region(c, 1, a->size, bb);
    return hier_shm_bytes(one > hier_slot_budget() ? one : hier_slot_budget());
}

static int alltoall(const cx_args *a, cx_sched *s, int ms);

/* Whether a v/w call whose largest node needs node_bytes of the segment
 * exchanges pairwise with overlapped copies (emit_pipelined) instead of
 * one alltoallv among the leaders: when each sender's share of a node
 * pair's part is 64 KiB or more (fattree-256x16, p = 64 and 256: 0.83-0.91
 * of the time from 4 KiB per block on; slower with small shares: 8 B per
 * block 1.07-1.26, p = 1024 at 512 B with 8 senders (16 KiB shares, 63
 * rounds) 1.09: a node barrier per round). From values every rank
 * shares. COLLX_HIER_A2A_PIPE=0|1 (or the call's rule) decides for every
 * size. */
static int pipelined_for(const cx_args *a, MPI_Aint node_bytes, int nnodes, int senders)
{
    if (cx_knob_call_given(a->params, CX_KNOB_HIER_A2A_PIPE))
        return cx_knob_call_int(a->params, CX_KNOB_HIER_A2A_PIPE) != 0;
    return node_bytes / (2 * (MPI_Aint)nnodes * senders) >= 65536;
}

int cx_hier_alltoall(const cx_args *a, cx_sched *s) { return alltoall(a, s, 0); }
int cx_hier_ms_alltoall(const cx_args *a, cx_sched *s) { return alltoall(a, s, 1); }

static int alltoall(const cx_args *a, cx_sched *s, int ms)
{
    a2a *x = cx_sched_alloc(s, sizeof *x);
    int p = a->size, err;
    if (!x)
        return MPI_ERR_NO_MEM;
    memset(x, 0, sizeof *x);
    cx_comm *c = a->cc;
    if ((err = cx_comm_nodes(c)))
        return err;
    x->hi = c->max_ranks_per_node;
    if (a->coll == CX_COLL_ALLTOALL) {
        x->bb = (MPI_Aint)cx_block_bytes(a);
        MPI_Aint region = align64((MPI_Aint)c->local_size * p * x->bb);
        /* Above the budget, bands of w source local ranks (the same w on
         * every rank: from values all ranks share). */
        int w = c->max_ranks_per_node;
        if (2 * align64((MPI_Aint)w * p * x->bb) > hier_slot_budget()) {   /* as on every node */
            while (w > 1 && 2 * band_region(c, w, p, x->bb) > hier_slot_budget())
                w--;
            region = band_region(c, w, p, x->bb);
        }
        if ((err = hier_begin(&x->h, a, s, NULL, 0, 2 * region)) || x->bb == 0)
            return err;
        if ((err = hier_members(&x->h, &x->first, &x->members)))
            return err;
        if (ms && (err = hier_choose_senders(&x->h, (MPI_Aint)p * p * x->bb, HIER_SENDER_BYTES)))
            return err;
        if (w < c->max_ranks_per_node && a->sbuf == MPI_IN_PLACE &&
            (err = send_from_copy(x, s)))
            return err;
        for (int lo = 0; lo < c->max_ranks_per_node && !err; lo += w) {
            if (lo && (err = hier_next_slot(&x->h, s)))
                break;
            x->lo = lo;
            x->hi = lo + w;
            x->sreg = x->h.slot;
            x->rreg = x->h.slot + region;
            err = emit(x, s);
        }
        return err;
    }
    /* alltoallv, alltoallw: the node's need is known only as a sum. */
    const hier_values *v;
    int L = c->max_ranks_per_node;
    MPI_Aint table = table_bytes(p);   /* one row */
    x->row = (size_t)table / sizeof(MPI_Aint);
    x->row_bytes = table;
    x->my_row = cx_sched_alloc(s, (size_t)table);
    x->band = cx_sched_alloc(s, sizeof(int) * (size_t)(L + 1));
    if (!x->my_row || !x->band)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p; i++) {
        x->my_row[i] = pair_bytes(a, i, 1);
        x->my_row[p + i] = pair_bytes(a, i, 0);
    }
    x->h.a = a;
    x->h.c = c;
    if ((err = hier_agreed(a, s, cx_hier_alltoallv_values, &v)))
        return err;
    MPI_Aint need = hier_agreed_slot(v), largest = (MPI_Aint)v->all[0];
    int fits = hier_need_fits(largest);
    x->nb = 1;
    x->band[0] = 0;
    x->band[1] = L;
    if (!fits) {   /* in bands of source local ranks, if one fits */
        MPI_Aint *col = cx_sched_alloc(s, sizeof(MPI_Aint) * (size_t)L);
        MPI_Aint room = hier_slot_budget() - (MPI_Aint)L * table;
        if (!col)
            return MPI_ERR_NO_MEM;
        for (int j = 0; j < L; j++)
            col[j] = (MPI_Aint)v->all[1 + j] + 128;   /* two regions' alignment */
        room = room < INT_MAX ? room : INT_MAX;   /* leaders' counts are int */
        if (room <= 0 || !(x->nb = hier_bands(col, L, room, x->band)))
            return hier_run_native(&x->h, s, largest);
    }
    if ((err = hier_begin(&x->h, a, s, NULL, 0, need)) ||
        (err = hier_members(&x->h, &x->first, &x->members)))
        return err;
    /* v, w: the senders follow the largest node's data (agreed above), or
     * the budget a band fills */
    if (ms && (err = hier_choose_senders(&x->h, fits ? largest : need, HIER_SENDER_BYTES)))
        return err;
    if (x->nb > 1 && a->sbuf == MPI_IN_PLACE && (err = send_from_copy(x, s)))
        return err;
    x->pipelined = pipelined_for(a, fits ? largest : need, c->nnodes, x->h.senders);
    return table_step(x, s);
}
