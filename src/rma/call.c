/* One drop-in MPI_Bcast call (dropin.h) as steps of its blocking schedule:
 * each start step does a bounded amount of work and appends what comes
 * next, each wait is a poll step of a round of its own (the executor
 * waits between polls with cx_backoff: s->backoff). Messages up to
 * COLLX_RMA_LL_MAX go by LL (ll.h), larger ones by the paper's PutRequest
 * through the staging window.
 *
 * The root alone decides how a call goes, and its first descriptor tells
 * everyone (aux = the root's size and the call's number): a message that
 * fits staging goes in one broadcast; a larger one is announced by an
 * empty broadcast, then every rank grows staging alike and the message
 * follows in pieces of the new size. The root puts from its buffer (packed
 * into its own staging first when the type is not contiguous); a receiver
 * waits until its request has been handled, unpacks staging into its
 * buffer (a binomial leaf reads its parent's staging into its buffer
 * instead) and only then releases its acknowledgement (which goes to its
 * parent once its children acknowledged too), so the next broadcast cannot
 * overwrite staging data that has not been read.
 *
 * Growing staging is one start step that blocks: creating a window is a
 * blocking collective in MPI (no nonblocking MPI_Win_allocate/create), so
 * the step waits inside MPI until every rank got there. */
#include <stdlib.h>
#include "dropin.h"

typedef struct call call;
typedef int (*step_fn)(cx_sched *s, call *k);

struct call {
    const cx_args *a;
    dropin *d;
    cx_rma *rt;
    int alg;              /* CX_RMA_LINEAR or CX_RMA_BINOMIAL */
    int put_alg;          /* root: alg, with CX_RMA_PULL where leaves pull */
    long long n;          /* this call's number (d->calls) */
    step_fn next;         /* the step after the pending wait */
    int release_err;      /* a receiver's giving back of the lock */
    int err;              /* the protocol's result so far (first error) */
    int werr;             /* the last wait's error */
    int perr;             /* the current pass's (a root's) or piece's */
    int ll_path;          /* receiver: the root chose LL */
    int agree;            /* receiver: its size is the root's */
    int nomem;            /* receiver (LL): no scratch for the unpacking */
    int nkids, kid;       /* LL: children; the next one */
    MPI_Aint mine;        /* this rank's size of the message */
    MPI_Aint total;       /* the root's */
    MPI_Aint off;         /* the piece under way; -1: the announcement */
    const char *src;      /* root: the message as bytes */
    const char *pass_src; /* root: the broadcast under way */
    MPI_Aint pass_bytes;
    char *dst, *packed;   /* receiver: where the data goes; scratch */
};

static void fail(call *k, int err)
{
    if (err && !k->err)
        k->err = err;
}

static int go(cx_sched *s, void *ctx, MPI_Request *req)
{
    call *k = ctx;
    (void)req;
    return k->next(s, k);
}

/* Appends the call's next rounds: wait (a poll step), then next. */
static int then(cx_sched *s, call *k, cx_poll_fn wait, step_fn next)
{
    int err = cx_sched_poll(s, wait, k);
    if (!err)
        err = cx_sched_barrier(s);
    k->next = next;
    return err ? err : cx_sched_start(s, go, k);
}

/* The last step: LL's bookkeeping, whatever the protocol; the result. */
static int finish(cx_sched *s, call *k)
{
    (void)s;
    int derr = k->d->ll ? cx_rma_ll_done(k->d->ll, k->n) : MPI_SUCCESS;
    int err = k->release_err ? k->release_err : k->err;
    return err ? err : derr;
}

/* ---- waits (poll steps): each leaves its error, once done, to the step
 * after it (in k->werr unless said) ---- */

static int quiet(cx_sched *s, void *ctx, int *done)
{
    (void)s;
    return cx_rma_quiet(((call *)ctx)->rt, done);
}

/* The root's ticket is served: it holds the lock (an error: the pass's). */
static int served(cx_sched *s, void *ctx, int *done)
{
    call *k = ctx;
    (void)s;
    k->perr = cx_rma_served(k->rt, done);
    return MPI_SUCCESS;
}

static int flushed(cx_sched *s, void *ctx, int *done)
{
    call *k = ctx;
    (void)s;
    k->werr = cx_rma_flushed(k->rt, done);
    return MPI_SUCCESS;
}

/* The next descriptor broadcast has been received and forwarded here. */
static int arrived(cx_sched *s, void *ctx, int *done)
{
    call *k = ctx;
    (void)s;
    k->werr = cx_rma_arrived(k->rt, k->d->recvs, 0, done);
    return MPI_SUCCESS;
}

/* ... and acknowledged: the inline engine forwards only inside collx
 * calls, so a rank may leave only once its own acknowledgement is out. */
static int delivered(cx_sched *s, void *ctx, int *done)
{
    call *k = ctx;
    (void)s;
    k->werr = cx_rma_arrived(k->rt, k->d->recvs, 1, done);
    return MPI_SUCCESS;
}

/* Which protocol the root chose for call n: the first of an LL header in
 * this rank's slot (ll_path) or a descriptor request of call n (forwarded
 * by the job meanwhile). A rank's own size does not decide: in an
 * erroneous call it may disagree with the root's. A request of call n + 1
 * may come first (its root does not wait for LL broadcasts to complete
 * everywhere); it stays pending until that call. */
static int first(cx_sched *s, void *ctx, int *done)
{
    call *k = ctx;
    (void)s;
    cx_rma_poll(k->rt->comm);
    *done = atomic_load_explicit(&k->rt->arrived, memory_order_acquire) > k->d->recvs &&
            k->rt->last_aux[1] == k->n;
    if (!*done) {
        k->werr = cx_rma_ll_landed(k->d->ll, k->n, &k->ll_path);
        *done = k->werr || k->ll_path;
    }
    return MPI_SUCCESS;
}

/* LL: the message is here whole. */
static int ll_take(cx_sched *s, void *ctx, int *done)
{
    call *k = ctx;
    (void)s;
    k->werr = cx_rma_ll_take(k->d->ll, k->n, k->a->root, k->alg, done, &k->total, &k->nkids);
    return MPI_SUCCESS;
}

/* LL: the message to child k->kid (its error: the call's); after an
 * error, to no one more. */
static int to_child(cx_sched *s, void *ctx, int *done)
{
    call *k = ctx;
    (void)s;
    *done = 1;
    if (!k->err) {
        fail(k, cx_rma_ll_to_child(k->d->ll, k->kid, done));
        k->kid += *done;
    }
    return MPI_SUCCESS;
}

/* ---- data ---- */

static MPI_Aint call_bytes(const cx_args *a)
{
    return (MPI_Aint)cx_type_bytes(a->rcount, a->rtype);
}

static int contiguous(MPI_Datatype t, MPI_Aint *offset)
{
    int size;
    MPI_Aint lb, extent, tlb, textent;
    PMPI_Type_size(t, &size);
    PMPI_Type_get_extent(t, &lb, &extent);
    PMPI_Type_get_true_extent(t, &tlb, &textent);
    *offset = tlb;
    return size == extent && extent == textent;
}

/* Bytes of the piece at off of a message of total bytes (staging cap). */
static MPI_Aint piece(MPI_Aint total, MPI_Aint off, MPI_Aint cap)
{
    return total - off < cap ? total - off : cap;
}

/* COLLX_RMA_PULL=0 (or the call's rule): binomial leaves are put to and
 * copy out of staging (the paper's way) instead of reading into their
 * buffer. Only a root looks at the knob: its descriptors tell each child. */
static int pull_bit(const cx_args *a, int alg)
{
    return alg == CX_RMA_BINOMIAL && cx_knob_call_int(a->params, CX_KNOB_RMA_PULL)
               ? CX_RMA_PULL : 0;
}

/* Bytes up to which this call goes by LL: COLLX_RMA_LL_MAX, or the call's
 * rule's value below it (the window was sized by the environment's). Only
 * a root looks: receivers learn the path from what arrives. */
static MPI_Aint ll_limit(const cx_args *a, const cx_rma_ll *ll)
{
    MPI_Aint most = cx_rma_ll_max(ll);
    long long want = cx_knob_call_int(a->params, CX_KNOB_RMA_LL_MAX);
    return want < most ? (MPI_Aint)want : most;
}

/* The root's message as contiguous bytes: its buffer, or packed into
 * room (when it fits) or into scratch of the schedule. */
static int source(cx_sched *s, call *k, char *room, MPI_Aint room_bytes)
{
    const cx_args *a = k->a;
    MPI_Aint off;
    k->src = a->rbuf;
    if (contiguous(a->rtype, &off)) {
        k->src += off;
        return MPI_SUCCESS;
    }
    char *to = room;
    if (k->mine > room_bytes && !(to = cx_sched_alloc(s, (size_t)k->mine)))
        return MPI_ERR_NO_MEM;
    k->src = to;
    return cx_copy_charged(a->rbuf, a->rcount, a->rtype, to, k->mine, MPI_PACKED);
}

/* The pass's bytes into to: read from the parent's staging when the
 * parent said so (PULLED: nothing was put here), else copied out of this
 * rank's staging (unless to is staging). */
static int take(dropin *d, char *to, MPI_Aint bytes)
{
    if (d->rt->last_pulled)
        return cx_rma_pull(d->rt, to, bytes);
    return to == d->stage_base ? MPI_SUCCESS
                               : cx_copy_charged(d->stage_base, bytes, MPI_PACKED, to, bytes,
                                                 MPI_PACKED);
}

/* The broadcast that arrived (k->werr: the wait's error): its bytes and
 * the root's size; staging made visible. */
static int arrival(call *k, MPI_Aint *bytes, MPI_Aint *total)
{
    *bytes = (MPI_Aint)k->rt->last_bytes;
    *total = (MPI_Aint)k->rt->last_aux[0];
    if (!k->werr)
        PMPI_Win_sync(k->d->stage);
    return k->werr;
}

/* ---- LL ---- */

/* The message to each child in turn (each a wait of its own: the child's
 * slot must be free first), then next. */
static int to_children(cx_sched *s, call *k, step_fn next)
{
    int err = MPI_SUCCESS;
    k->kid = 0;
    if (!k->nkids)
        return next(s, k);
    for (int i = 1; i < k->nkids && !err; i++)
        if (!(err = cx_sched_poll(s, to_child, k)))
            err = cx_sched_barrier(s);
    return err ? err : then(s, k, to_child, next);
}

static int root_ll(cx_sched *s, call *k)
{
    int err = source(s, k, NULL, 0);
    if (!err)
        err = cx_rma_ll_load(k->d->ll, k->n, k->alg, k->src, k->mine, &k->nkids);
    fail(k, err);
    return err ? finish(s, k) : to_children(s, k, finish);
}

/* Received and forwarded whatever this rank's own size; a size that
 * disagrees gives MPI_ERR_TRUNCATE. */
static int ll_decoded(cx_sched *s, call *k)
{
    const cx_args *a = k->a;
    if (!k->err && k->dst && k->total == k->mine)
        cx_rma_ll_decode(k->d->ll, k->dst, k->total);
    if (!k->err && k->total != k->mine)
        fail(k, MPI_ERR_TRUNCATE);   /* the root's message has another size */
    if (!k->err && k->nomem)
        fail(k, MPI_ERR_NO_MEM);
    if (!k->err && k->packed)
        fail(k, cx_copy_charged(k->packed, k->mine, MPI_PACKED, a->rbuf, a->rcount, a->rtype));
    return finish(s, k);
}

static int ll_got(cx_sched *s, call *k)
{
    fail(k, k->werr);
    return k->err ? finish(s, k) : to_children(s, k, ll_decoded);
}

static int receive_ll(cx_sched *s, call *k)
{
    MPI_Aint off;
    k->dst = k->a->rbuf;
    if (contiguous(k->a->rtype, &off))
        k->dst += off;
    else if (!(k->dst = k->packed = cx_sched_alloc(s, (size_t)k->mine)))
        k->nomem = 1;   /* still forwarded: the subtree waits for it */
    return then(s, k, ll_take, ll_got);
}

/* ---- PutRequest, root: one broadcast through staging per pass,
 * complete everywhere before the next ---- */

static int pass(cx_sched *s, call *k, const char *src, MPI_Aint bytes);

static int passed(cx_sched *s, call *k)
{
    dropin *d = k->d;
    fail(k, k->perr ? k->perr : k->werr);
    if (!k->err && k->off < 0) {   /* announced: grow alike, then the pieces */
        fail(k, cx_rma_dropin_grow(d, k->total));
        k->off = 0;
    } else {
        k->off += d->cap;
    }
    if (k->err || k->off >= k->total)
        return finish(s, k);
    return pass(s, k, k->src + k->off, piece(k->total, k->off, d->cap));
}

/* The puts, unless the pass failed already; then its completion. */
static int put(cx_sched *s, call *k)
{
    const int64_t aux[CX_RMA_AUX] = {k->total, k->n};
    if (!k->perr)
        k->perr = cx_rma_bcast_put(k->rt, k->pass_src, k->pass_bytes, k->d->wid, 0,
                                   k->put_alg, aux);
    return then(s, k, flushed, passed);
}

static int ticket(cx_sched *s, call *k)
{
    k->perr = cx_rma_ticket(k->rt);
    return k->perr ? put(s, k) : then(s, k, served, put);
}

/* The lock first (cx_rma_bcast_bytes in steps), unless kept. */
static int pass(cx_sched *s, call *k, const char *src, MPI_Aint bytes)
{
    k->pass_src = src;
    k->pass_bytes = bytes;
    k->perr = cx_rma_bcast_check(k->rt, bytes, k->d->wid, 0, k->put_alg);
    if (k->perr || cx_rma_lock_kept(k->rt))
        return put(s, k);
    return then(s, k, quiet, ticket);
}

static int root_put(cx_sched *s, call *k)
{
    dropin *d = k->d;
    int err = source(s, k, d->stage_base, d->cap);
    if (err) {
        fail(k, err);
        return finish(s, k);
    }
    k->total = k->mine;
    k->off = k->total <= d->cap ? 0 : -1;
    return k->off ? pass(s, k, NULL, 0) : pass(s, k, k->src, k->total);
}

/* ---- PutRequest, receiver: follows the root's passes whatever its own
 * size, so a size that disagrees gives MPI_ERR_TRUNCATE and never leaves
 * a peer waiting; the data is unpacked before the release ---- */

static int pieces_end(cx_sched *s, call *k)
{
    const cx_args *a = k->a;
    fail(k, k->perr);
    fail(k, k->werr);
    if (k->packed && !k->err)
        fail(k, cx_copy_charged(k->packed, k->total, MPI_PACKED, a->rbuf, a->rcount, a->rtype));
    return finish(s, k);
}

static int next_piece(cx_sched *s, call *k);

static int piece_here(cx_sched *s, call *k)
{
    dropin *d = k->d;
    MPI_Aint bytes, same, want = piece(k->total, k->off, d->cap);
    int perr = arrival(k, &bytes, &same);
    if (!perr && bytes != want)
        perr = MPI_ERR_INTERN;
    if (!perr && k->agree && !k->err)
        perr = take(d, k->dst + k->off, bytes);
    cx_rma_ack(k->rt);
    if (k->off + want >= k->total) {
        k->perr = perr;
        return then(s, k, delivered, pieces_end);
    }
    fail(k, perr);
    k->off += d->cap;
    return next_piece(s, k);
}

static int next_piece(cx_sched *s, call *k)
{
    k->d->recvs++;
    return then(s, k, arrived, piece_here);
}

/* Announced: grow alike, then the pieces. Non-contiguous types are
 * gathered packed and unpacked at the end. */
static int grow(cx_sched *s, call *k)
{
    const cx_args *a = k->a;
    MPI_Aint off;
    int err = k->werr ? k->werr : cx_rma_dropin_grow(k->d, k->total);
    if (err) {
        fail(k, err);
        return finish(s, k);
    }
    k->dst = a->rbuf;
    if (k->agree && contiguous(a->rtype, &off))
        k->dst += off;
    else if (k->agree && !(k->dst = k->packed = cx_sched_alloc(s, (size_t)k->total)))
        fail(k, MPI_ERR_NO_MEM);
    k->off = 0;
    return next_piece(s, k);
}

static int acked(cx_sched *s, call *k)
{
    fail(k, k->werr);
    return finish(s, k);
}

static int first_here(cx_sched *s, call *k)
{
    const cx_args *a = k->a;
    dropin *d = k->d;
    MPI_Aint bytes, off;
    int err = arrival(k, &bytes, &k->total);
    if (err) {
        fail(k, err);
        cx_rma_ack(k->rt);
        return then(s, k, delivered, finish);
    }
    k->agree = k->total == k->mine;
    if (!k->agree)
        fail(k, MPI_ERR_TRUNCATE);   /* the root's message has another size */
    if (k->total > d->cap) {
        cx_rma_ack(k->rt);
        return then(s, k, delivered, grow);
    }
    if (k->agree && contiguous(a->rtype, &off))
        err = take(d, (char *)a->rbuf + off, k->total);
    else if (k->agree && !(err = take(d, d->stage_base, k->total)))
        err = cx_copy_charged(d->stage_base, k->total, MPI_PACKED, a->rbuf, a->rcount,
                              a->rtype);
    fail(k, err);
    cx_rma_ack(k->rt);
    return then(s, k, delivered, acked);
}

static int receive_put(cx_sched *s, call *k)
{
    k->d->recvs++;
    return then(s, k, arrived, first_here);
}

static int received(cx_sched *s, call *k)
{
    if (k->werr) {
        fail(k, k->werr);
        return finish(s, k);
    }
    return k->ll_path ? receive_ll(s, k) : receive_put(s, k);
}

static int begin(cx_sched *s, call *k)
{
    dropin *d = k->d;
    k->n = ++d->calls;
    k->mine = call_bytes(k->a);
    if (k->a->rank == k->a->root) {
        k->put_alg = k->alg | pull_bit(k->a, k->alg);
        return d->ll && k->mine <= ll_limit(k->a, d->ll) ? root_ll(s, k) : root_put(s, k);
    }
    /* Another root's turn: a rank that kept the lock gives it back
     * (before waiting: that root may need it). */
    k->release_err = cx_rma_release(k->rt);
    return d->ll ? then(s, k, first, received) : receive_put(s, k);
}

/* Every rank takes part, even with nothing to receive: which passes run
 * is the root's decision (as two-sided trees send their empty messages). */
int cx_rma_dropin(const cx_args *a, cx_sched *s)
{
    int err;
    if (a->size == 1)
        return MPI_SUCCESS;
    dropin *d = cx_rma_dropin_state(a->cc, &err);
    if (!d || !d->rt || err)
        return err ? err : MPI_ERR_INTERN;
    call *k = cx_sched_alloc(s, sizeof *k);
    if (!k)
        return MPI_ERR_NO_MEM;
    *k = (call){.a = a, .d = d, .rt = d->rt, .alg = *(const int *)a->alg->family_data,
                .next = begin};
    s->backoff = 1;   /* the waits' pace of the blocking loops this replaced */
    return cx_sched_start(s, go, k);
}
