/* Hierarchical reduce and allreduce. Every rank copies its vector into its
 * own region of the slot (typed: reductions need the type's layout); the
 * leader combines its node's regions in local order, the leaders reduce
 * across nodes in node order, and the result is copied out. Node order is
 * rank order when every node's ranks are consecutive, which a
 * non-commutative operation needs (CX_REQ_ORDER_KEPT in register.c). */
#include <stdlib.h>
#include "hier.h"

/* Bytes of one typed vector of count elements of t, as laid out. */
static MPI_Aint span(MPI_Aint count, MPI_Datatype t)
{
    MPI_Aint ext, tlb, text;
    cx_type_extents(t, &ext, &tlb, &text);
    return count ? (count - 1) * ext + text : 0;
}

/* Elements per chunk: the most ranks of a node each need a region of
 * them in one half of the segment (0: not even one element fits). */
static MPI_Aint chunk_elems(const cx_args *a, int most)
{
    MPI_Aint ext, tlb, text;
    cx_type_extents(a->rtype, &ext, &tlb, &text);
    MPI_Aint room = hier_slot_budget() / most - 64 - text;
    if (room < 0 || ext <= 0)
        return room < 0 ? 0 : a->rcount;
    MPI_Aint per = room / ext + 1;
    return per < a->rcount ? per : a->rcount;
}

static int most_per_node(const cx_args *a)
{
    cx_comm *c = a->cc;
    return c && c->nodes_ready ? c->max_ranks_per_node : a->size;
}

/* Up to the budget: a longer vector goes in chunks. */
MPI_Aint cx_hier_shm_reduce(const cx_args *a)
{
    int most = most_per_node(a);
    MPI_Aint per = chunk_elems(a, most);
    return hier_shm_bytes((MPI_Aint)most * (span(per ? per : 1, a->rtype) + 64));
}

/* Distance between two vectors of n elements of t in the slot. */
static MPI_Aint stride_of(MPI_Aint n, MPI_Datatype t)
{
    return (span(n, t) + 63) / 64 * 64;
}

/* Below this many bytes one rank folds the node's vectors alone (a node
 * barrier costs more than the work it would share). */
#define HIER_SLICE_MIN 4096
/* Folding each rank's vector in (commutative ops) saves a copy of it but
 * takes a node barrier per local rank: from slices of this many bytes on
 * (fattree-256x16: slower with 2 KiB slices, faster with 8 KiB). */
#define HIER_FOLD_SLICE_MIN 4096

/* The node's result of the n-element vectors: region of the last local
 * rank, after the regions were folded into it in local order. Large
 * vectors are cut into one slice per local rank and every rank folds its
 * slice, so the node reduces at local_size times one rank's speed; with a
 * commutative op each rank folds its own vector in, slice by slice (no
 * copy into the segment first; COLLX_HIER_FOLD_COPY=1 copies anyway, to
 * compare). prefixes: every region must end with its local prefix (scan).
 * *out: where the result is (typed). */
static int node_reduce(hier *h, cx_sched *s, const void *input, MPI_Aint n, int prefixes,
                       char **out)
{
    const cx_args *a = h->a;
    cx_comm *c = h->c;
    MPI_Aint stride = stride_of(n, a->rtype);
    MPI_Aint ext, tlb, text;
    cx_type_extents(a->rtype, &ext, &tlb, &text);
    /* region l starts at slot + l * stride; typed pointers shift by -tlb */
    char *mine = h->slot + c->local_rank * stride - tlb;
    int L = c->local_size, sliced = L > 1 && n >= L && span(n, a->rtype) >= HIER_SLICE_MIN;
    int commute = 1, err = MPI_SUCCESS;
    PMPI_Op_commutative(a->op, &commute);
    *out = h->slot + (L - 1) * stride - tlb;
    int fold = sliced && commute && !prefixes &&
               span(n, a->rtype) >= (MPI_Aint)L * HIER_FOLD_SLICE_MIN;
    if (fold && !cx_knob_call_int(a->params, CX_KNOB_HIER_FOLD_COPY)) {
        /* Any order will do: in round t rank l folds slice (l + t) mod L
         * of its own vector straight into the result (round 0 copies),
         * so no rank copies its whole vector into the segment first (half
         * of the local work); a node barrier closes each round. */
        for (int t = 0; t < L && !err; t++) {
            int sl = (c->local_rank + t) % L;
            MPI_Aint lo = n * sl / L, len = n * (sl + 1) / L - lo;
            const char *from = (const char *)input + lo * ext;
            err = t == 0 ? cx_sched_copy(s, from, len, a->rtype, *out + lo * ext, len, a->rtype)
                         : cx_sched_reduce(s, from, *out + lo * ext, len, a->rtype, a->op);
            if (!err)
                err = hier_node_barrier(h, s);
        }
        return err;
    }
    err = cx_sched_copy(s, input, n, a->rtype, mine, n, a->rtype);
    if (!err)
        err = hier_node_barrier(h, s);
    MPI_Aint lo = 0, hi = n;
    if (sliced) {   /* elements [lo, hi) are mine */
        lo = n * c->local_rank / L;
        hi = n * (c->local_rank + 1) / L;
    }
    for (int l = 1; l < L && (sliced || c->local_rank == 0) && !err; l++)
        err = cx_sched_reduce(s, h->slot + (l - 1) * stride - tlb + lo * ext,
                              h->slot + l * stride - tlb + lo * ext, hi - lo, a->rtype, a->op);
    if (err)
        return err;
    /* every slice must be done before anyone reads the result (several
     * senders: each reads a part of it) */
    return sliced || h->senders > 1 ? hier_node_barrier(h, s) : cx_sched_barrier(s);
}

/* One chunk: elements [e0, e0 + n) of the vectors. */
static int reduce_chunk(hier *h, cx_sched *s, int all, MPI_Aint e0, MPI_Aint n)
{
    const cx_args *a = h->a;
    MPI_Aint ext = cx_type_extent(a->rtype);
    char *res;
    const char *input = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    int err = node_reduce(h, s, input + e0 * ext, n, 0, &res);
    if (err)
        return err;
    int root_node = all ? 0 : h->c->node_of[a->root];
    MPI_Aint lo, len;   /* my column's slice of the vector */
    hier_share(n, h->c->local_rank, h->senders, &lo, &len);
    cx_args inter = {.coll = all ? CX_COLL_ALLREDUCE : CX_COLL_REDUCE,
                     .sbuf = MPI_IN_PLACE, .rbuf = res + lo * ext, .rcount = (int)len,
                     .rtype = a->rtype, .op = a->op, .root = root_node};
    if (!all && h->c->my_node != root_node)
        inter.sbuf = res + lo * ext, inter.rbuf = NULL;   /* MPI_IN_PLACE only at the root */
    if ((err = hier_columns(h, s, &inter)))
        return err;
    if (!all && h->c->my_node != root_node)
        return MPI_SUCCESS;
    if ((err = hier_node_barrier(h, s)))
        return err;
    if (all && a->shared_out && n == a->rcount) {
        *a->shared_out = res;   /* typed, as a receive buffer: the caller reads it */
        return err;
    }
    if (all || a->rank == a->root)
        err = cx_sched_copy(s, res, n, a->rtype, (char *)a->rbuf + e0 * ext, n, a->rtype);
    return err;
}

static int hier_reduce_any(const cx_args *a, cx_sched *s, int all, int ms)
{
    hier h;
    MPI_Aint n = a->rcount, per = chunk_elems(a, most_per_node(a));
    int err = hier_begin(&h, a, s, NULL, 0, cx_hier_shm_reduce(a) / 2);
    if (err || n == 0)
        return err;
    if (per < 1)
        return MPI_ERR_NO_MEM;   /* one element per rank above COLLX_SHM_MAX */
    if (ms && (err = hier_choose_senders(&h, span(n, a->rtype), HIER_SENDER_BYTES_ALLREDUCE)))
        return err;
    for (MPI_Aint e0 = 0; e0 < n && !err; e0 += per) {
        if (e0)
            err = hier_next_slot(&h, s);
        if (!err)
            err = reduce_chunk(&h, s, all, e0, n - e0 < per ? n - e0 : per);
    }
    return err;
}

int cx_hier_reduce(const cx_args *a, cx_sched *s) { return hier_reduce_any(a, s, 0, 0); }
int cx_hier_allreduce(const cx_args *a, cx_sched *s) { return hier_reduce_any(a, s, 1, 0); }
int cx_hier_ms_allreduce(const cx_args *a, cx_sched *s) { return hier_reduce_any(a, s, 1, 1); }

/* Reduce_scatter(_block): the node reduces the whole vector, the leaders
 * run reduce_scatter with one block per node (the node's ranks' blocks,
 * node after node: when a node's ranks are not consecutive, which a
 * commutative op allows, the leader first moves the blocks into node
 * order), and every rank copies its block out of its node's part. */
static MPI_Aint rs_count(const cx_args *a, int r)
{
    return a->coll == CX_COLL_REDUCE_SCATTER_BLOCK ? a->rcount : a->rcounts[r];
}

static MPI_Aint rs_total(const cx_args *a)
{
    MPI_Aint n = 0;
    for (int r = 0; r < a->size; r++)
        n += rs_count(a, r);
    return n;
}

/* Slot bytes for a vector of n elements: a region per local rank, the
 * vector in node order and the leader's part. */
static MPI_Aint rs_slot(const cx_args *a, MPI_Aint n)
{
    return (MPI_Aint)(most_per_node(a) + 2) * stride_of(n, a->rtype);
}

/* Up to the budget; above it, the vector goes in chunks of elements (one
 * element per local rank must fit, else native). */
MPI_Aint cx_hier_shm_reduce_scatter(const cx_args *a)
{
    MPI_Aint whole = rs_slot(a, rs_total(a)), one = rs_slot(a, 1);
    if (whole <= hier_slot_budget())
        return hier_shm_bytes(whole);
    return hier_shm_bytes(one > hier_slot_budget() ? one : hier_slot_budget());
}

static int rs_chunk(hier *h, const cx_args *a, cx_sched *s, const char *input);

/* The whole vector through the slot, or in chunks of elements above the
 * budget. ms: several senders per node. */
static int reduce_scatter(const cx_args *a, cx_sched *s, int ms)
{
    hier h;
    MPI_Aint n = rs_total(a), ext = cx_type_extent(a->rtype), budget = hier_slot_budget();
    MPI_Aint whole = rs_slot(a, n);
    int p = a->size, err = hier_begin(&h, a, s, NULL, 0, whole < budget ? whole : budget);
    const char *input = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    if (err || n == 0)
        return err;
    /* the node's vector is what the columns share (alike on every rank) */
    if (ms && (err = hier_choose_senders(&h, span(n, a->rtype), HIER_SENDER_BYTES)))
        return err;
    if (whole <= budget)
        return rs_chunk(&h, a, s, input);
    /* Above the budget: chunks of per consecutive elements of the vector,
     * each a reduce_scatter of the parts of the blocks in it (a block
     * larger than a chunk spans several). */
    MPI_Aint per = budget / (most_per_node(a) + 2) / (ext > 0 ? ext : 1) + 1;
    while (per > 1 && rs_slot(a, per) > budget)
        per--;
    MPI_Aint me0 = 0;
    for (int r = 0; r < a->rank; r++)
        me0 += rs_count(a, r);
    for (MPI_Aint e0 = 0; e0 < n && !err; e0 += per) {
        MPI_Aint e1 = n - e0 < per ? n : e0 + per, at = 0;
        cx_args *sub = cx_sched_alloc(s, sizeof *sub);
        int *cnt = cx_sched_alloc(s, sizeof(int) * (size_t)p);
        if (!sub || !cnt)
            return MPI_ERR_NO_MEM;
        for (int r = 0; r < p; r++) {   /* [at, at + count) within [e0, e1) */
            MPI_Aint end = at + rs_count(a, r);
            MPI_Aint lo = at > e0 ? at : e0, hi = end < e1 ? end : e1;
            cnt[r] = hi > lo ? (int)(hi - lo) : 0;
            at += rs_count(a, r);
        }
        *sub = *a;
        sub->coll = CX_COLL_REDUCE_SCATTER;
        sub->rcounts = cnt;
        /* my part of this chunk goes where it lies in my block (in place
         * too: what it overwrites, elements before e1, was read already) */
        sub->rbuf = (char *)a->rbuf + (e0 > me0 ? e0 - me0 : 0) * ext;
        if (e0 && (err = hier_next_slot(&h, s)))
            break;
        h.a = sub;
        err = rs_chunk(&h, sub, s, input + e0 * ext);
    }
    return err;
}

int cx_hier_reduce_scatter(const cx_args *a, cx_sched *s) { return reduce_scatter(a, s, 0); }
int cx_hier_ms_reduce_scatter(const cx_args *a, cx_sched *s) { return reduce_scatter(a, s, 1); }

/* Several senders: sender l copies share l of every node's part (in node
 * order: block by block from the rank-ordered result) into its own run of
 * cols, and its column's reduce_scatter leaves share l of this node's part
 * in mine. at: rank-order then node-order offsets; counts: node parts. */
static int rs_columns(hier *h, const cx_args *a, cx_sched *s, const char *res, char *cols,
                      char *mine, const MPI_Aint *at, const int *counts)
{
    cx_comm *c = h->c;
    int n = c->nnodes, p = a->size, l = c->local_rank, k = h->senders, err = MPI_SUCCESS;
    MPI_Aint ext = cx_type_extent(a->rtype), run = 0, lo, len;
    const int *first, *members;
    if (l >= k)
        return MPI_SUCCESS;
    int *mycounts = cx_sched_alloc(s, sizeof(int) * (size_t)n);
    if (!mycounts || (err = hier_members(h, &first, &members)))
        return err ? err : MPI_ERR_NO_MEM;
    for (int j = 0; j < l; j++)   /* the runs of senders before me */
        for (int m = 0; m < n; m++) {
            hier_share(counts[m], j, k, &lo, &len);
            run += len;
        }
    char *col = cols + run * ext, *to = col;
    for (int m = 0; m < n && !err; m++) {
        hier_share(counts[m], l, k, &lo, &len);
        mycounts[m] = (int)len;
        MPI_Aint start = at[p + members[first[m]]] + lo, end = start + len;
        for (int q = first[m]; q < first[m + 1] && !err; q++) {
            int r = members[q];
            MPI_Aint b0 = at[p + r], b1 = b0 + rs_count(a, r);
            MPI_Aint x0 = b0 > start ? b0 : start, x1 = b1 < end ? b1 : end;
            if (x1 > x0)
                err = cx_sched_copy(s, res + (at[r] + x0 - b0) * ext, x1 - x0, a->rtype,
                                    to + (x0 - start) * ext, x1 - x0, a->rtype);
        }
        to += len * ext;
    }
    hier_share(counts[c->my_node], l, k, &lo, &len);
    cx_args inter = {.coll = CX_COLL_REDUCE_SCATTER, .sbuf = col, .rbuf = mine + lo * ext,
                     .rcounts = mycounts, .rtype = a->rtype, .op = a->op};
    if (!err)
        err = cx_sched_barrier(s);
    return err ? err : hier_columns(h, s, &inter);
}

/* One reduce_scatter of a's counts through the slot (input: the vector). */
static int rs_chunk(hier *hh, const cx_args *a, cx_sched *s, const char *input)
{
    hier h = *hh;
    MPI_Aint n = rs_total(a), ext = cx_type_extent(a->rtype);
    int p = a->size, err;
    char *res;
    cx_comm *c = h.c;
    if ((err = node_reduce(&h, s, input, n, 0, &res)))
        return err;
    /* where every rank's block starts, in rank order and in node order */
    MPI_Aint *at = cx_sched_alloc(s, sizeof(MPI_Aint) * 2 * (size_t)p);
    int *counts = cx_sched_alloc(s, sizeof(int) * (size_t)c->nnodes);
    const int *first, *members;
    if (!at || !counts || (err = hier_members(&h, &first, &members)))
        return err ? err : MPI_ERR_NO_MEM;
    MPI_Aint o = 0;
    for (int r = 0; r < p; r++) {
        at[r] = o;
        o += rs_count(a, r);
    }
    o = 0;
    for (int m = 0; m < c->nnodes; m++) {
        MPI_Aint start = o;
        for (int k = first[m]; k < first[m + 1]; k++)
            at[p + members[k]] = o, o += rs_count(a, members[k]);
        counts[m] = (int)(o - start);
    }
    MPI_Aint stride = stride_of(n, a->rtype);
    char *vec = res, *part = res;   /* one node: its result is the answer */
    if (c->nnodes > 1) {
        char *nodewise = res + stride, *mine = res + 2 * stride;
        if (h.senders > 1) {   /* columns: each copies its shares into nodewise */
            err = rs_columns(&h, a, s, res, nodewise, mine, at, counts);
        } else {
            if (c->local_rank == 0 && !c->consecutive) {
                for (int r = 0; r < p && !err; r++)
                    err = cx_sched_copy(s, res + at[r] * ext, rs_count(a, r), a->rtype,
                                        nodewise + at[p + r] * ext, rs_count(a, r), a->rtype);
                vec = nodewise;
                if (!err)
                    err = cx_sched_barrier(s);
            }
            cx_args inter = {.coll = CX_COLL_REDUCE_SCATTER, .sbuf = vec, .rbuf = mine,
                             .rcounts = counts, .rtype = a->rtype, .op = a->op};
            if (!err)
                err = hier_leaders(&h, s, &inter);
        }
        if (!err)
            err = hier_node_barrier(&h, s);
        /* my block within my node's part */
        part = mine - at[p + c->node_leader[c->my_node]] * ext;
        if (!err)
            err = cx_sched_copy(s, part + at[p + a->rank] * ext, rs_count(a, a->rank),
                                a->rtype, a->rbuf, rs_count(a, a->rank), a->rtype);
        return err;
    }
    if ((err = hier_node_barrier(&h, s)))   /* the leader's result is in */
        return err;
    return cx_sched_copy(s, part + at[a->rank] * ext, rs_count(a, a->rank), a->rtype, a->rbuf,
                         rs_count(a, a->rank), a->rtype);
}

/* Scan and exscan (every node's ranks consecutive, so rank order is node
 * order, then local order): the node's running fold leaves rank l's
 * local prefix in region l, the leaders exscan their nodes' totals, and
 * each rank combines the earlier nodes' prefix with its local one. */
/* Elements per chunk of a scan: a region per local rank and the earlier
 * nodes' prefix in one half of the segment. */
static MPI_Aint scan_chunk(const cx_args *a)
{
    return chunk_elems(a, most_per_node(a) + 1);
}

/* Up to the budget: a longer vector goes in chunks. */
MPI_Aint cx_hier_shm_scan(const cx_args *a)
{
    MPI_Aint per = scan_chunk(a);
    return hier_shm_bytes((MPI_Aint)(most_per_node(a) + 1) *
                          stride_of(per ? per : 1, a->rtype));
}

/* One chunk: elements [e0, e0 + n) of the vectors. */
static int scan_part(hier *h, cx_sched *s, MPI_Aint e0, MPI_Aint n)
{
    const cx_args *a = h->a;
    int ex = a->coll == CX_COLL_EXSCAN;
    MPI_Aint ext = cx_type_extent(a->rtype);
    char *total, *rbuf = (char *)a->rbuf + e0 * ext;
    cx_comm *c = h->c;
    const char *input = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    int err = node_reduce(h, s, input + e0 * ext, n, 1, &total);
    if (err)
        return err;
    /* every region's prefix is read below, not only the total */
    if ((err = hier_node_barrier(h, s)))
        return err;
    MPI_Aint stride = stride_of(n, a->rtype);
    char *earlier = total + stride;   /* the earlier nodes' prefix */
    cx_args inter = {.coll = CX_COLL_EXSCAN, .sbuf = total, .rbuf = earlier, .rcount = (int)n,
                     .rtype = a->rtype, .op = a->op};
    if ((err = hier_leaders(h, s, &inter)) || (err = hier_node_barrier(h, s)))
        return err;
    int l = c->local_rank, first_node = c->my_node == 0;
    char *local = total - (MPI_Aint)(c->local_size - 1 - (ex ? l - 1 : l)) * stride;
    if (ex && l == 0) {   /* nothing local before me */
        return first_node ? MPI_SUCCESS   /* exscan: rank 0's result is undefined */
                          : cx_sched_copy(s, earlier, n, a->rtype, rbuf, n, a->rtype);
    }
    err = cx_sched_copy(s, local, n, a->rtype, rbuf, n, a->rtype);
    if (!err && !first_node) {
        if (!(err = cx_sched_barrier(s)))
            err = cx_sched_reduce(s, earlier, rbuf, n, a->rtype, a->op);
    }
    return err;
}

/* In chunks of whole elements above the budget (in place, a chunk's
 * result lands on its own input, already copied into the segment). */
int cx_hier_scan(const cx_args *a, cx_sched *s)
{
    hier h;
    MPI_Aint n = a->rcount, per = scan_chunk(a);
    int err = hier_begin(&h, a, s, NULL, 0, cx_hier_shm_scan(a) / 2);
    if (err || n == 0)
        return err;
    if (per < 1)
        return MPI_ERR_NO_MEM;   /* one element per rank above COLLX_SHM_MAX */
    for (MPI_Aint e0 = 0; e0 < n && !err; e0 += per) {
        if (e0)
            err = hier_next_slot(&h, s);
        if (!err)
            err = scan_part(&h, s, e0, n - e0 < per ? n - e0 : per);
    }
    return err;
}
