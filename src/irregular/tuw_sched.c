/* Data phase of the tuw trees as schedule rounds. Inner gather roots keep
 * their subtree's blocks packed in rank order (children's messages are in
 * rank order already, so no reordering); the root receives (sends) each
 * child's blocks in place: one typed message when they are back to back in
 * its buffer, else through an hindexed type over the blocks (no copy). */
#include <stdlib.h>
#include "tuw.h"

/* Byte offset of the piece starting at rank lo inside this rank's packed
 * subtree buffer: everything with a lower start comes first. */
static long long packed_offset(const tuw_plan *plan, int me, long long own, int lo)
{
    long long off = me < lo ? own : 0;
    for (int c = 0; c < plan->nchild; c++)
        if (plan->child[c].lo < lo)
            off += plan->child[c].bytes;
    return off;
}

/* The root's blocks carried by child c's message, described in the
 * root's buffer: (buf, count, type), possibly a new owned type. */
static int root_piece(const cx_args *a, cx_sched *s, const tuw_plan *plan,
                      const tuw_edge *c, cx_piece *out)
{
    int n = 0, contiguous = 1;
    MPI_Aint total = 0;
    cx_piece first = {0}, prev = {0};
    for (int i = c->lo; i < c->hi; i++) {
        if (plan->owner[i] != c->peer)
            continue;
        cx_piece b = cx_all_block(a, i);
        if (cx_type_bytes(b.count, b.type) == 0)
            continue;
        if (n++ == 0)
            first = b;
        else if (b.buf != prev.buf + (MPI_Aint)prev.count * cx_type_extent(b.type))
            contiguous = 0;
        prev = b;
        total += b.count;
    }
    *out = first;
    out->count = total;
    if (n == 0) {   /* nothing to carry: an empty message still matches */
        *out = (cx_piece){.buf = a->rbuf ? a->rbuf : (char *)a->sbuf, .count = 0,
                          .type = MPI_BYTE};
        return MPI_SUCCESS;
    }
    if (contiguous)
        return MPI_SUCCESS;
    int *lens = malloc((size_t)n * sizeof *lens);
    MPI_Aint *disp = malloc((size_t)n * sizeof *disp);
    int err = lens && disp ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int i = c->lo, k = 0; i < c->hi && !err; i++) {
        cx_piece b = cx_all_block(a, i);
        if (plan->owner[i] != c->peer || cx_type_bytes(b.count, b.type) == 0)
            continue;
        lens[k] = (int)b.count;
        disp[k++] = b.buf - first.buf;
    }
    MPI_Datatype t;
    if (!err && !(err = PMPI_Type_create_hindexed(n, lens, disp, first.type, &t)))
        err = cx_sched_own_type(s, t);
    free(lens);
    free(disp);
    out->count = 1;
    out->type = t;
    return err;
}

static int root_gather(const cx_args *a, cx_sched *s, const tuw_plan *plan)
{
    int err = cx_sched_own_block(a, s);
    /* All receives in one round: children complete in any order. */
    for (int c = 0; c < plan->nchild && !err; c++) {
        cx_piece b;
        if (!(err = root_piece(a, s, plan, &plan->child[c], &b)))
            err = cx_sched_recv(s, b.buf, b.count, b.type, plan->child[c].peer);
    }
    return err;
}

/* The direct receivers' requests, checked once they are in. */
typedef struct readies {
    tuw_plan plan;    /* a copy: the caller's may be gone (its arrays are
                         the schedule's) */
    long long *got;   /* TUW_READY_LEN per child of the plan */
} readies;

/* A direct receiver that asked for other bytes than the root's counts
 * give it has a size that disagrees (an erroneous call). */
static int check_readies(cx_sched *s, void *ctx, MPI_Request *req)
{
    (void)s;
    readies *r = ctx;
    *req = MPI_REQUEST_NULL;
    for (int c = 0; c < r->plan.nchild; c++) {
        const tuw_edge *e = &r->plan.child[c];
        const long long *g = r->got + (size_t)c * TUW_READY_LEN;
        if (e->direct && (g[0] != e->lo || g[1] != e->hi || g[2] != e->bytes))
            return MPI_ERR_TRUNCATE;
    }
    return MPI_SUCCESS;
}

static int root_scatter(const cx_args *a, cx_sched *s, const tuw_plan *plan)
{
    int err = MPI_SUCCESS, ndirect = 0;
    readies *r = NULL;
    for (int c = 0; c < plan->nchild; c++)
        ndirect += plan->child[c].direct;
    if (ndirect) {   /* only above the degradation threshold */
        r = cx_sched_alloc(s, sizeof *r);
        long long *got = cx_sched_alloc(s, sizeof *got * TUW_READY_LEN *
                                               (size_t)plan->nchild);
        if (!r || !got)
            return MPI_ERR_NO_MEM;
        *r = (readies){*plan, got};
    }
    /* Highest level first: those subtrees have the most forwarding left.
     * A direct receiver's request (tuw_ready) is taken in the same round:
     * the root knows it already, and only checks it afterwards. */
    for (int c = plan->nchild - 1; c >= 0 && !err; c--) {
        cx_piece b;
        const tuw_edge *e = &plan->child[c];
        if (!(err = root_piece(a, s, plan, e, &b)))
            err = cx_sched_send(s, b.buf, b.count, b.type, e->peer);
        if (!err && e->direct)
            err = cx_sched_recv(s, r->got + (size_t)c * TUW_READY_LEN, TUW_READY_LEN,
                                MPI_LONG_LONG, e->peer);
    }
    if (!err)
        err = cx_sched_own_block(a, s);
    if (err || ndirect == 0)
        return err;
    return (err = cx_sched_barrier(s)) ? err : cx_sched_start(s, check_readies, r);
}

/* A direct receiver tells the root which data it waits for, so that a
 * root whose counts disagree can still serve it (tuw_emit_erroneous_root);
 * the message goes in the round of the receive, nothing waits for it. */
static int ask_root(const cx_args *a, cx_sched *s, const tuw_edge *parent)
{
    if (!parent->direct)
        return MPI_SUCCESS;
    long long *ready = cx_sched_alloc(s, sizeof(long long) * TUW_READY_LEN);
    if (!ready)
        return MPI_ERR_NO_MEM;
    ready[0] = parent->lo;
    ready[1] = parent->hi;
    ready[2] = parent->bytes;
    return cx_sched_send(s, ready, TUW_READY_LEN, MPI_LONG_LONG, a->root);
}

/* Inner gather root: own block and children's messages into one packed
 * buffer, then one message to the parent. */
int tuw_emit_gather(const cx_args *a, cx_sched *s, const tuw_plan *plan)
{
    if (a->rank == a->root)
        return root_gather(a, s, plan);
    if (!plan->has_parent)
        return MPI_SUCCESS;               /* empty subtree: no message */
    cx_piece own = cx_own_piece(a);
    int peer = plan->parent.peer, err;
    if (plan->nchild == 0)
        return cx_sched_send(s, own.buf, own.count, own.type, peer);
    long long ownb = (long long)cx_type_bytes(own.count, own.type);
    char *tmp = cx_sched_alloc(s, (size_t)(plan->parent.bytes ? plan->parent.bytes : 1));
    if (!tmp)
        return MPI_ERR_NO_MEM;
    err = cx_sched_copy(s, own.buf, own.count, own.type,
                        tmp + packed_offset(plan, a->rank, ownb, a->rank), ownb,
                        MPI_PACKED);
    for (int c = 0; c < plan->nchild && !err; c++) {
        const tuw_edge *e = &plan->child[c];
        err = cx_sched_recv(s, tmp + packed_offset(plan, a->rank, ownb, e->lo),
                            e->bytes, MPI_PACKED, e->peer);
    }
    if (!err)
        err = cx_sched_barrier(s);
    return err ? err : cx_sched_send(s, tmp, plan->parent.bytes, MPI_PACKED, peer);
}

/* Inner scatter root: one message from the parent, then the children's
 * parts straight out of it. */
int tuw_emit_scatter(const cx_args *a, cx_sched *s, const tuw_plan *plan)
{
    if (a->rank == a->root)
        return root_scatter(a, s, plan);
    if (!plan->has_parent)
        return MPI_SUCCESS;
    cx_piece own = cx_own_piece(a);
    int peer = plan->parent.peer, err = ask_root(a, s, &plan->parent);
    if (err)
        return err;
    if (plan->nchild == 0)
        return cx_sched_recv(s, own.buf, own.count, own.type, peer);
    long long ownb = (long long)cx_type_bytes(own.count, own.type);
    char *tmp = cx_sched_alloc(s, (size_t)(plan->parent.bytes ? plan->parent.bytes : 1));
    if (!tmp)
        return MPI_ERR_NO_MEM;
    if ((err = cx_sched_recv(s, tmp, plan->parent.bytes, MPI_PACKED, peer)) ||
        (err = cx_sched_barrier(s)))
        return err;
    for (int c = plan->nchild - 1; c >= 0 && !err; c--) {
        const tuw_edge *e = &plan->child[c];
        err = cx_sched_send(s, tmp + packed_offset(plan, a->rank, ownb, e->lo),
                            e->bytes, MPI_PACKED, e->peer);
    }
    return err ? err : cx_sched_copy(s, tmp + packed_offset(plan, a->rank, ownb, a->rank),
                                     ownb, MPI_PACKED, own.buf, own.count, own.type);
}
