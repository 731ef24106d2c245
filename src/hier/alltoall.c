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
} a2a;

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

/* Packs this rank's blocks into the send region, exchanges, unpacks. */
static int emit(a2a *x, cx_sched *s)
{
    const cx_args *a = x->h.a;
    const cx_comm *c = x->h.c;
    int me = c->local_rank, err = MPI_SUCCESS;
    MPI_Aint off = 0;
    for (int m = 0; m < c->nnodes && !err; m++)
        for (int l = x->lo; l < x->hi && l < c->local_size && !err; l++)
            for (int k = x->first[m]; k < x->first[m + 1] && !err; k++) {
                MPI_Aint b = sent(x, l, x->members[k]);
                if (l == me && b) {
                    cx_piece o = cx_a2a_block(a, 1, x->members[k]);
                    err = cx_sched_copy(s, o.buf, o.count, o.type, x->sreg + off, b,
                                        MPI_PACKED);
                }
                off += b;
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
    for (int m = 0; m < c->nnodes && !err; m++)
        for (int k = x->first[m] + x->lo; k < x->first[m + 1] && k < x->first[m] + x->hi && !err;
             k++)
            for (int l = 0; l < c->local_size && !err; l++) {
                int i = x->members[k];
                MPI_Aint b = got(x, l, i);
                if (l == me && b) {
                    cx_piece in = cx_a2a_block(a, 0, i);
                    err = cx_sched_copy(s, x->rreg + off, b, MPI_PACKED, in.buf, in.count,
                                        in.type);
                }
                off += b;
            }
    return err ? err : cx_sched_barrier(s);
}

/* v, w: once every rank's counts are in the table. */
static int emit_later(cx_sched *s, void *ctx, MPI_Request *req)
{
    a2a *x = ctx;
    *req = MPI_REQUEST_NULL;
    MPI_Aint send = 0;
    for (int l = 0; l < x->h.c->local_size; l++)
        for (int j = 0; j < x->h.a->size; j++)
            send += sent(x, l, j);
    x->rreg = x->sreg + (send + 63) / 64 * 64;
    return emit(x, s);
}

static MPI_Aint align64(MPI_Aint b) { return (b + 63) / 64 * 64; }

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
        if (ms && (err = hier_choose_senders(&x->h, (MPI_Aint)p * p * x->bb)))
            return err;
        if (w < c->max_ranks_per_node && a->sbuf == MPI_IN_PLACE) {
            /* In place, in bands: a band's results would overwrite data a
             * later band still sends; send from a copy instead. */
            cx_args *from_copy = cx_sched_alloc(s, sizeof *from_copy);
            MPI_Aint n = (MPI_Aint)p * a->rcount;
            void *copy = cx_sched_alloc_typed(s, n, a->rtype);
            if (!from_copy || !copy)
                return MPI_ERR_NO_MEM;
            if ((err = cx_sched_copy(s, a->rbuf, n, a->rtype, copy, n, a->rtype)))
                return err;
            *from_copy = *a;
            from_copy->sbuf = copy;
            from_copy->scount = a->rcount;
            from_copy->stype = a->rtype;
            x->h.a = from_copy;
        }
        for (int lo = 0; lo < c->max_ranks_per_node && !err; lo += w) {
            if (lo)
                hier_next_slot(&x->h);
            x->lo = lo;
            x->hi = lo + w;
            x->sreg = x->h.slot;
            x->rreg = x->h.slot + region;
            err = emit(x, s);
        }
        return err;
    }
    /* alltoallv, alltoallw: the node's need is known only as a sum. */
    MPI_Aint mine = 0, need, largest;
    int fits;
    for (int i = 0; i < p; i++) {
        cx_piece o = cx_a2a_block(a, 1, i), in = cx_a2a_block(a, 0, i);
        mine += (MPI_Aint)cx_type_bytes(o.count, o.type) +
                (MPI_Aint)cx_type_bytes(in.count, in.type);
    }
    MPI_Aint table = align64((MPI_Aint)sizeof(MPI_Aint) * 2 * p);   /* one row */
    x->h.a = a;
    x->h.c = c;
    if ((err = hier_agree_need(&x->h, mine + table + 64, &need, &largest, &fits)))
        return err;
    if (!fits) {
        cx_args native = *a;
        native.comm = a->pcomm;
        return cx_sched_collective(s, &native, NULL);
    }
    if ((err = hier_begin(&x->h, a, s, NULL, 0, need)) ||
        (err = hier_members(&x->h, &x->first, &x->members)))
        return err;
    /* v, w: the senders follow the largest node's data (agreed above) */
    if (ms && (err = hier_choose_senders(&x->h, largest)))
        return err;
    /* Slot: the table (local_size rows), then the send and receive regions. */
    x->table = (MPI_Aint *)x->h.slot;
    x->row = (size_t)table / sizeof(MPI_Aint);
    x->sreg = x->h.slot + (MPI_Aint)c->local_size * table;
    MPI_Aint *row = cx_sched_alloc(s, (size_t)table);
    if (!row)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p; i++) {
        cx_piece o = cx_a2a_block(a, 1, i), in = cx_a2a_block(a, 0, i);
        row[i] = (MPI_Aint)cx_type_bytes(o.count, o.type);
        row[p + i] = (MPI_Aint)cx_type_bytes(in.count, in.type);
    }
    if ((err = cx_sched_copy(s, row, 2 * p * (MPI_Aint)sizeof(MPI_Aint), MPI_BYTE,
                             x->h.slot + (MPI_Aint)c->local_rank * table,
                             2 * p * (MPI_Aint)sizeof(MPI_Aint), MPI_BYTE)) ||
        (err = hier_node_barrier(&x->h, s)))
        return err;
    if ((err = cx_sched_start(s, emit_later, x)))
        return err;
    return cx_sched_barrier(s);
}
