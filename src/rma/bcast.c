/* The broadcast itself: PutRequest, PutLoop (linear, binomial with the
 * largest subtree first, on ranks relative to the root), the forwarding
 * job, acknowledgements up the tree and the root's completion.
 *
 * PutRequest orders its puts so that a flag never announces data that has
 * not landed: put data, put descriptor, flush both at the target, only then
 * increment the flag atomically (and flush it, so that the child starts at
 * once even on MPIs that queue operations until a flush).
 *
 * Flags and acknowledgements are MPI_Accumulate (SUM), not fetch-and-op:
 * nobody needs the old value, and a fetch costs a second message (SMPI:
 * a get, then the accumulate, under the target's atomic lock). */
#include <string.h>
#include "rma.h"

static void note(cx_rma *rt, int err)
{
    int none = MPI_SUCCESS;
    if (err)
        atomic_compare_exchange_strong(&rt->err, &none, err);
}

/* Atomic add to a control word of target (not yet flushed). */
static int add_word(cx_rma *rt, int target, int word)
{
    /* Buffers of an RMA call live until its flush: not on this stack. */
    static _Thread_local int64_t one = 1;
    return PMPI_Accumulate(&one, 1, MPI_INT64_T, target, word, 1, MPI_INT64_T, MPI_SUM,
                           rt->ctl);
}

/* The parent of relative rank v in the tree of alg (v > 0). */
static int tree_parent(int v, int alg)
{
    return (alg & CX_RMA_ALG_MASK) == CX_RMA_LINEAR ? 0 : v - (v & -v);
}

int cx_rma_children(int v, int p, int alg, int *kids)
{
    int n = 0;
    if ((alg & CX_RMA_ALG_MASK) == CX_RMA_LINEAR) {
        for (int t = 1; v == 0 && t < p; t++)
            if (kids)
                kids[n++] = t;
            else
                n++;
        return n;
    }
    /* Binomial, largest subtree first: v + m for every power of two m
     * below v's span, m descending (the child v + m with the largest m
     * has the most work below it). */
    for (int m = cx_binomial_span(v, p) >> 1; m >= 1; m >>= 1)
        if (v + m < p) {
            if (kids)
                kids[n] = v + m;
            n++;
        }
    return n;
}

/* How many children relative rank v has. */
static int tree_children(int v, int p, int alg)
{
    return cx_rma_children(v, p, alg, NULL);
}

/* Data to one target: bytes from src into window w at disp (in the
 * target's units), in pieces below 2^31 that keep whole units. */
static int put_data(cx_rma_win *w, int target, const char *src, MPI_Aint bytes,
                    MPI_Aint disp)
{
    int err = MPI_SUCCESS, unit = w->unit[target];
    MPI_Aint piece = ((MPI_Aint)1 << 30) / unit * unit;
    for (MPI_Aint off = 0; off < bytes && !err; off += piece) {
        MPI_Aint n = bytes - off < piece ? bytes - off : piece;
        err = PMPI_Put(src + off, (int)n, MPI_BYTE, target, disp + off / unit, (int)n,
                       MPI_BYTE, w->win);
    }
    return err;
}

/* Whether bytes fit at disp in target's part of w. */
static int fits(const cx_rma_win *w, int target, MPI_Aint disp, MPI_Aint bytes)
{
    return disp >= 0 && disp * w->unit[target] + bytes <= w->size[target];
}

/* Data and descriptor to target, completed there; then the flag. With
 * announce = 0 the flag is left to the caller (linear: all flags after
 * all data). A pulled child gets the descriptor alone (it reads the data
 * itself). With stage_src the root's stage function copies its data into
 * its own window while the first put is on the wire. */
static int put_request(cx_rma *rt, int target, const char *src, const int64_t *desc,
                       int announce, int pulled, const char *stage_src)
{
    int err = MPI_SUCCESS;
    cx_rma_win *w = &rt->wins[desc[1]];
    /* The descriptor put may complete after this returns (linear flushes
     * all targets at the end): its buffer must outlive the call. */
    int64_t *d = rt->desc_out;
    memcpy(d, desc, sizeof rt->desc_out);
    if (pulled)
        d[4] |= CX_RMA_PULLED;
    int data = d[3] > 0 && !pulled;
    if (data)
        err = put_data(w, target, src, d[3], d[2]);
    if (!err)
        err = PMPI_Put(d, CX_RMA_DESC_WORDS, MPI_INT64_T, target, CX_RMA_DESC,
                       CX_RMA_DESC_WORDS, MPI_INT64_T, rt->ctl);
    if (!announce)
        return err;
    if (!err && stage_src)
        err = rt->stage(rt->stage_ctx, stage_src, d[3], d[2]);
    if (!err && data)
        err = PMPI_Win_flush(target, w->win);
    if (!err)
        err = PMPI_Win_flush(target, rt->ctl);
    if (!err)
        err = add_word(rt, target, CX_RMA_FLAG);
    if (!err)
        err = PMPI_Win_flush(target, rt->ctl);
    return err;
}

/* The binomial PutLoop. With PULL, a leaf child reads the data from this
 * rank's window itself (the last children, v + 1, are the leaves): a
 * forwarder has it there already; a root whose data is elsewhere copies it
 * in while its first child's put is on the wire (a root whose first child
 * is a leaf, p <= 3, puts to that one). */
static int binomial_loop(cx_rma *rt, const char *src, const int64_t *desc, int v)
{
    int p = rt->size, root = (int)desc[0], err = MPI_SUCCESS;
    int kids[32], n = cx_rma_children(v, p, CX_RMA_BINOMIAL, kids);
    cx_rma_win *w = &rt->wins[desc[1]];
    int pull = (desc[4] & CX_RMA_PULL) && desc[3] > 0 && rt->stage;
    int staged = src == w->base + desc[2] * w->unit[rt->rank];
    int leaf_later = n > 1 && cx_rma_children(kids[n - 1], p, CX_RMA_BINOMIAL, NULL) == 0;
    for (int i = 0; i < n && !err; i++) {
        int leaf = cx_rma_children(kids[i], p, CX_RMA_BINOMIAL, NULL) == 0;
        int pulled = pull && staged && leaf;
        const char *stage_src = pull && !staged && !pulled && leaf_later ? src : NULL;
        err = put_request(rt, (kids[i] + root) % p, src, desc, 1, pulled, stage_src);
        staged |= stage_src != NULL;
    }
    return err;
}

/* The paper's PutLoop from this rank (the root, or a forwarder that has
 * the data at src). */
static int put_loop(cx_rma *rt, const char *src, const int64_t *desc)
{
    int p = rt->size, root = (int)desc[0], err = MPI_SUCCESS;
    int v = (rt->rank - root + p) % p;
    if ((desc[4] & CX_RMA_ALG_MASK) == CX_RMA_BINOMIAL)
        return binomial_loop(rt, src, desc, v);
    if (v != 0)
        return MPI_SUCCESS;
    /* Linear, one epoch: every data put, then every flag. */
    cx_rma_win *w = &rt->wins[desc[1]];
    for (int t = 0; t < p && !err; t++)
        if (t != root)
            err = put_request(rt, t, src, desc, 0, 0, NULL);
    if (!err && desc[3] > 0)
        err = PMPI_Win_flush_all(w->win);
    if (!err)
        err = PMPI_Win_flush_all(rt->ctl);
    for (int t = 0; t < p && !err; t++)
        if (t != root)
            err = add_word(rt, t, CX_RMA_FLAG);
    return err ? err : PMPI_Win_flush_all(rt->ctl);
}

int cx_rma_pull(cx_rma *rt, void *to, MPI_Aint bytes)
{
    cx_rma_win *w = &rt->wins[rt->last_wid];
    int err = MPI_SUCCESS, from = rt->last_from;
    MPI_Aint piece = (MPI_Aint)1 << 30, unit = w->unit[from];
    for (MPI_Aint off = 0; off < bytes && !err; off += piece) {
        MPI_Aint n = bytes - off < piece ? bytes - off : piece;
        err = PMPI_Get((char *)to + off, (int)n, MPI_BYTE, from,
                       (MPI_Aint)rt->last_disp + off / unit, (int)n, MPI_BYTE, w->win);
    }
    return err ? err : PMPI_Win_flush(from, w->win);
}

/* Atomic read of a control word of target. */
static int read_at(cx_rma *rt, int target, int word, int64_t *val)
{
    static _Thread_local int64_t zero, got;
    int err = PMPI_Fetch_and_op(&zero, &got, MPI_INT64_T, target, word, MPI_NO_OP, rt->ctl);
    if (!err)
        err = PMPI_Win_flush(target, rt->ctl);
    *val = got;
    return err;
}

/* Words [word, word + n) of this process's own control window. In the
 * unified memory model a load after MPI_Win_sync sees every update that
 * was flushed (the paper's polling overhead O_r without an RMA call);
 * else an atomic read per word. */
static int read_own(cx_rma *rt, int word, int n, int64_t *val)
{
    int err = MPI_SUCCESS;
    if (rt->local_poll) {
        PMPI_Win_sync(rt->ctl);
        for (int i = 0; i < n; i++)
            val[i] = __atomic_load_n(&rt->ctl_base[word + i], __ATOMIC_ACQUIRE);
        return MPI_SUCCESS;
    }
    for (int i = 0; i < n && !err; i++)
        err = read_at(rt, rt->rank, word + i, &val[i]);
    return err;
}

static int send_ack(cx_rma *rt, int parent)
{
    int err = add_word(rt, parent, CX_RMA_ACKS);
    return err ? err : PMPI_Win_flush(parent, rt->ctl);
}

void cx_rma_poll(MPI_Comm comm)
{
    int flag;
    cx_progress_poke();
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE);
}

void cx_rma_ack(cx_rma *rt)
{
    atomic_store_explicit(&rt->held, 0, memory_order_release);
    cx_progress_poke();
}

/* A request here: the descriptor is complete (its parent flushed it before
 * the flag), so is the data. Forward to the subtree; the acknowledgement
 * to the parent waits for the children's (step). */
static void handle_request(cx_rma *rt)
{
    int64_t desc[CX_RMA_DESC_WORDS];
    int err = read_own(rt, CX_RMA_DESC, CX_RMA_DESC_WORDS, desc);
    if (!err && (desc[1] < 0 || desc[1] >= rt->nwins ||
                 rt->wins[desc[1]].win == MPI_WIN_NULL))
        err = MPI_ERR_WIN;
    if (!err) {
        cx_rma_win *w = &rt->wins[desc[1]];
        PMPI_Win_sync(w->win);   /* separate memory model: see the puts */
        err = put_loop(rt, w->base + desc[2] * w->unit[rt->rank], desc);
    }
    note(rt, err);
    int p = rt->size, root = (int)desc[0], alg = (int)desc[4];
    int v = (rt->rank - root + p) % p;
    rt->last_bytes = desc[3];
    rt->last_pulled = (alg & CX_RMA_PULLED) != 0;
    rt->last_from = (tree_parent(v, alg) + root) % p;
    rt->last_wid = (int)desc[1];
    rt->last_disp = desc[2];
    memcpy(rt->last_aux, &desc[5], sizeof rt->last_aux);
    rt->seen++;
    rt->acks_want += tree_children(v, p, alg);
    rt->parent = (tree_parent(v, alg) + root) % p;
    atomic_store_explicit(&rt->held, rt->hold_acks, memory_order_relaxed);
    atomic_fetch_add_explicit(&rt->arrived, 1, memory_order_release);
}

/* The pending acknowledgement goes up once the owner released the data
 * and every child acknowledged. */
static void ack_parent(cx_rma *rt, int64_t acks)
{
    if (rt->parent < 0 || acks < rt->acks_want ||
        atomic_load_explicit(&rt->held, memory_order_acquire))
        return;
    note(rt, send_ack(rt, rt->parent));
    rt->parent = -1;
    atomic_fetch_add_explicit(&rt->delivered, 1, memory_order_release);
}

/* The forwarding job's step (releases the root's lock too). */
static int step(void *ctx)
{
    cx_rma *rt = ctx;
    int flag;
    /* MPICH applies some atomics as active messages at the target: they
     * land only when this process runs MPI's progress engine, which an
     * operation on its own window does not. No one sends on rt->comm.
     * Probed only while a broadcast is under way here (acknowledgements
     * owed or awaited): an idle job, which every later collective call
     * steps, only looks (a probe there made each of those calls
     * 0.05-0.08 us dearer on real cores, Open MPI at p = 2, and 0.1 us
     * in SMPI). Its new requests land with any MPI call's progress, and
     * the RMA calls' waits probe (cx_rma_poll). */
    if (!rt->job.idle)
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, rt->comm, &flag, MPI_STATUS_IGNORE);
    int64_t w[2];   /* CX_RMA_FLAG, CX_RMA_ACKS */
    if (read_own(rt, CX_RMA_FLAG, 2, w)) {
        note(rt, MPI_ERR_OTHER);
        return 0;
    }
    /* The root's direct children acknowledged: complete everywhere. */
    if (atomic_load_explicit(&rt->active, memory_order_acquire) && w[1] >= rt->acks_want) {
        if (rt->sticky) {
            atomic_store_explicit(&rt->holding, 1, memory_order_relaxed);
        } else {
            note(rt, add_word(rt, 0, CX_RMA_SERVING));
            note(rt, PMPI_Win_flush(0, rt->ctl));
        }
        atomic_store_explicit(&rt->active, 0, memory_order_release);
    }
    /* Until this rank acknowledged, no new request can come. */
    if (rt->parent < 0 && w[0] > rt->seen)
        handle_request(rt);
    ack_parent(rt, w[1]);   /* a leaf acknowledges in the same step */
    /* Owed to others: an acknowledgement up the tree (a root may wait for
     * it inside its broadcast), a root's completion. A request not seen yet
     * belongs to a broadcast this process has not called: nothing it is
     * in now waits for it, so a blocking call need not poll for it. */
    cx_progress_idle(&rt->job, rt->parent < 0 && !atomic_load_explicit(&rt->active,
                                                                      memory_order_acquire));
    return 0;
}

/* The root's side in steps (rma.h): each returns at once, so a schedule
 * can run them (the drop-in); the blocking calls below loop over them. */

int cx_rma_bcast_check(const cx_rma *rt, MPI_Aint bytes, int wid, MPI_Aint disp, int alg)
{
    if (wid < 0 || wid >= rt->nwins || rt->wins[wid].win == MPI_WIN_NULL)
        return MPI_ERR_WIN;
    int base = alg & CX_RMA_ALG_MASK, extra = alg & ~(CX_RMA_ALG_MASK | CX_RMA_PULL);
    if ((base != CX_RMA_LINEAR && base != CX_RMA_BINOMIAL) || extra)
        return MPI_ERR_ARG;
    /* Checked here for every target, so forwarders never meet a window
     * that is too small. */
    for (int t = 0; t < rt->size; t++)
        if (t != rt->rank && !fits(&rt->wins[wid], t, disp, bytes))
            return MPI_ERR_RMA_RANGE;
    return MPI_SUCCESS;
}

int cx_rma_lock_kept(cx_rma *rt)
{
    /* Sticky: this root's own last broadcast completed everywhere before
     * it returned, and no other root can have come in between. */
    return rt->sticky && atomic_exchange(&rt->holding, 0);
}

int cx_rma_quiet(cx_rma *rt, int *done)
{
    *done = !atomic_load_explicit(&rt->active, memory_order_acquire);
    if (!*done)
        cx_rma_poll(rt->comm);   /* forward meanwhile */
    return MPI_SUCCESS;
}

int cx_rma_ticket(cx_rma *rt)
{
    static _Thread_local int64_t one = 1;
    int err = PMPI_Fetch_and_op(&one, &rt->ticket, MPI_INT64_T, 0, CX_RMA_TICKET, MPI_SUM,
                                rt->ctl);
    return err ? err : PMPI_Win_flush(0, rt->ctl);
}

int cx_rma_served(cx_rma *rt, int *done)
{
    int64_t serving = -1;
    int err = rt->rank == 0 ? read_own(rt, CX_RMA_SERVING, 1, &serving)
                            : read_at(rt, 0, CX_RMA_SERVING, &serving);
    *done = err || serving == rt->ticket;
    if (!*done)
        cx_rma_poll(rt->comm);   /* forward the broadcast that holds it */
    return err;
}

int cx_rma_bcast_put(cx_rma *rt, const void *src, MPI_Aint bytes, int wid, MPI_Aint disp,
                     int alg, const int64_t aux[CX_RMA_AUX])
{
    rt->acks_want += tree_children(0, rt->size, alg);
    atomic_store_explicit(&rt->active, 1, memory_order_release);
    int64_t desc[CX_RMA_DESC_WORDS] = {rt->rank, wid, disp, bytes, alg, aux[0], aux[1]};
    return put_loop(rt, src, desc);
}

int cx_rma_flushed(cx_rma *rt, int *done)
{
    cx_rma_quiet(rt, done);
    return *done ? atomic_exchange(&rt->err, MPI_SUCCESS) : MPI_SUCCESS;
}

int cx_rma_arrived(cx_rma *rt, long long n, int acked, int *done)
{
    atomic_llong *count = acked ? &rt->delivered : &rt->arrived;
    *done = atomic_load_explicit(count, memory_order_acquire) >= n;
    if (!*done) {
        cx_rma_poll(rt->comm);
        return MPI_SUCCESS;
    }
    return atomic_exchange(&rt->err, MPI_SUCCESS);
}

/* Calls poll until it is done, politely. */
static int wait_until(cx_rma *rt, int (*poll)(cx_rma *rt, int *done))
{
    int err, done = 0;
    for (int spins = 0; !(err = poll(rt, &done)) && !done;)
        cx_backoff(&spins);
    return err;
}

/* Waits for the lock of the runtime (the previous broadcast, this root's
 * or another's, is complete everywhere once this ticket is served). This
 * root's previous broadcast first: its release serves the next. */
static int take_lock(cx_rma *rt)
{
    int err = wait_until(rt, cx_rma_quiet);
    if (!err)
        err = cx_rma_ticket(rt);
    return err ? err : wait_until(rt, cx_rma_served);
}

int cx_rma_bcast_bytes(cx_rma *rt, const void *src, MPI_Aint bytes, int wid,
                       MPI_Aint disp, int alg, const int64_t aux[CX_RMA_AUX])
{
    int err = cx_rma_bcast_check(rt, bytes, wid, disp, alg);
    if (err || rt->size == 1)
        return err;
    if (!cx_rma_lock_kept(rt) && (err = take_lock(rt)))
        return err;
    return cx_rma_bcast_put(rt, src, bytes, wid, disp, alg, aux);
}

int cx_rma_release(cx_rma *rt)
{
    if (!atomic_exchange(&rt->holding, 0))
        return MPI_SUCCESS;
    int err = add_word(rt, 0, CX_RMA_SERVING);
    return err ? err : PMPI_Win_flush(0, rt->ctl);
}

int cx_rma_flush(cx_rma *rt)
{
    return wait_until(rt, cx_rma_flushed);
}

int cx_rma_open(MPI_Comm comm, cx_rma **out, const char **why)
{
    int err = cx_rma_create(comm, out, why);
    if (!err)
        cx_progress_add(&(*out)->job, step, *out);
    return err;
}

int cx_rma_close(cx_rma *rt, int quiet)
{
    int err = cx_rma_flush(rt);
    if (!quiet) {
        /* Others may still need this rank to forward: keep stepping the job
         * until every rank got here. */
        MPI_Request req;
        int done = 0, spins = 0;
        PMPI_Ibarrier(rt->comm, &req);
        while (!done) {
            PMPI_Test(&req, &done, MPI_STATUS_IGNORE);
            if (!done) {
                cx_rma_poll(rt->comm);
                cx_backoff(&spins);
            }
        }
    }
    cx_progress_remove(&rt->job);
    if (!err)
        err = atomic_load(&rt->err);
    cx_rma_destroy(rt);
    return err;
}
