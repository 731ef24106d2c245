/* The one-sided broadcast as a drop-in MPI_Bcast ("rma_linear",
 * "rma_binomial"): per communicator (family slot) a runtime and a staging
 * window, grown collectively when the root's message needs more (the
 * first descriptor says so: no rank decides from its own size). The root
 * puts from its buffer (packed into its own staging window first when the
 * type is not contiguous); a receiver waits until its request has been
 * handled, unpacks the staging window into its buffer (a binomial leaf
 * reads its parent's staging into its buffer instead) and only then
 * releases its acknowledgement (which goes to its parent once its children
 * acknowledged too), so the next broadcast cannot overwrite staging data
 * that has not been read. Where windows cannot be created, every rank
 * runs native (requirements, .check). */
#include <pthread.h>
#include <stdlib.h>
#include "dropin.h"
#include "ll.h"

#define MIN_STAGING ((MPI_Aint)64 << 10)

typedef struct dropin {
    cx_rma *rt;           /* NULL: no RMA here (decided alike everywhere) */
    MPI_Win stage;
    char *stage_base;
    MPI_Aint cap;
    int wid;
    cx_rma_ll *ll;        /* small messages (ll.h); NULL: off */
    long long calls;      /* MPI_Bcast calls so far (the LL sequence) */
    long long recvs;      /* descriptor broadcasts received so far */
    struct dropin *next;  /* live states (freed at MPI_Finalize) */
} dropin;

typedef struct call {
    const cx_args *a;
    dropin *d;
    int alg;              /* with CX_RMA_PULL where leaves pull */
    long long n;          /* this call's number (d->calls) */
} call;

/* Windows must be freed while MPI still works: Open MPI deletes
 * MPI_COMM_WORLD's attributes (and so this state) after its one-sided
 * components are gone, MPI_COMM_SELF's first. An attribute on
 * MPI_COMM_SELF frees the windows of every live state (as src/core/shm.c
 * does for its segments). */
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static dropin *live;
static int self_keyval = MPI_KEYVAL_INVALID;

static void free_windows(dropin *d)
{
    if (d->rt)
        cx_rma_close(d->rt, 1);   /* every call completed before it returned */
    d->rt = NULL;
    cx_rma_ll_free(d->ll);
    d->ll = NULL;
    cx_rma_win_free(&d->stage, d->stage_base);
}

static int at_finalize(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm; (void)keyval; (void)attr; (void)extra;
    pthread_mutex_lock(&live_mu);
    for (dropin *d = live; d; d = d->next)
        free_windows(d);
    live = NULL;
    pthread_mutex_unlock(&live_mu);
    return MPI_SUCCESS;
}

static void list(dropin *d)
{
    pthread_mutex_lock(&live_mu);
    if (self_keyval == MPI_KEYVAL_INVALID &&
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &self_keyval, NULL) ==
            MPI_SUCCESS)
        PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
    d->next = live;
    live = d;
    pthread_mutex_unlock(&live_mu);
}

static void release(void *state)
{
    dropin *d = state;
    pthread_mutex_lock(&live_mu);
    for (dropin **p = &live; *p; p = &(*p)->next)
        if (*p == d) {
            *p = d->next;
            break;
        }
    pthread_mutex_unlock(&live_mu);
    free_windows(d);
    free(d);
}

/* COLLX_RMA_MAX (bytes, default 256 MiB): the largest staging window;
 * larger messages go through it in pieces. */
static MPI_Aint staging_max(void)
{
    const char *v = getenv("COLLX_RMA_MAX");
    long long n = v ? atoll(v) : 0;
    return n > 0 ? (MPI_Aint)n : (MPI_Aint)256 << 20;
}

/* The staging window is replaced (collective) by one of cap bytes. */
static int restage(dropin *d, MPI_Aint cap)
{
    int err;
    if (cap == d->cap && d->wid >= 0)
        return MPI_SUCCESS;   /* at COLLX_RMA_MAX already (same on every rank) */
    if (d->wid >= 0)
        cx_rma_unregister(d->rt, d->wid);
    cx_rma_win_free(&d->stage, d->stage_base);
    d->wid = -1;
    d->cap = 0;
    if ((err = cx_rma_win_alloc(cap, 1, MPI_INFO_NULL, d->rt->comm, &d->stage_base,
                                &d->stage)))
        return err;
    PMPI_Win_set_errhandler(d->stage, MPI_ERRORS_RETURN);
    if ((err = cx_rma_register(d->rt, d->stage, &d->wid)))
        return err;
    d->cap = cap;
    return MPI_SUCCESS;
}

/* The root's data into its own staging (for the leaves that pull it),
 * while its first put is on the wire. */
static int stage_copy(void *ctx, const char *src, MPI_Aint bytes, MPI_Aint disp)
{
    dropin *d = ctx;
    int err = cx_copy_charged(src, bytes, MPI_PACKED, d->stage_base + disp, bytes, MPI_PACKED);
    return err ? err : PMPI_Win_sync(d->stage);
}

/* COLLX_RMA_PULL=0: binomial leaves are put to and copy out of staging
 * (the paper's way) instead of reading into their buffer. Only a root
 * looks at the variable: its descriptors tell each child. */
static int pull_bit(int alg)
{
    const char *v = getenv("COLLX_RMA_PULL");
    return alg == CX_RMA_BINOMIAL && !(v && atoi(v) == 0) ? CX_RMA_PULL : 0;
}

static dropin *state(cx_comm *c, int *err)
{
    cx_family_slot *f = &c->family[CX_FAMILY_RMA];
    *err = MPI_SUCCESS;
    if (f->state)
        return f->state;
    dropin *d = calloc(1, sizeof *d);
    if (!d) {
        *err = MPI_ERR_NO_MEM;
        return NULL;
    }
    d->stage = MPI_WIN_NULL;
    d->wid = -1;
    int e = cx_comm_quiesce(c);   /* set-up collectives follow */
    if (!e)
        e = cx_rma_open(c->priv, &d->rt);
    if (e && e != MPI_ERR_UNSUPPORTED_OPERATION) {
        free(d);
        *err = e;
        return NULL;
    }
    list(d);
    *f = (cx_family_slot){.state = d, .release = release};
    if (!d->rt)
        return d;
    d->rt->hold_acks = 1;   /* the receiver releases staging once read */
    d->rt->stage = stage_copy;
    d->rt->stage_ctx = d;
    d->rt->sticky = 1;      /* MPI_Bcast calls come in collective order */
    MPI_Aint cap = staging_max() < MIN_STAGING ? staging_max() : MIN_STAGING;
    if ((e = restage(d, cap)) || (e = cx_rma_ll_create(d->rt->comm, &d->ll))) {
        free_windows(d);   /* no staging: native from now on */
        *err = e;
    }
    return d;
}

static MPI_Aint call_bytes(const cx_args *a)
{
    return (MPI_Aint)cx_type_bytes(a->rcount, a->rtype);
}

/* Nothing here depends on this rank's message size: an erroneous call
 * whose sizes disagree still runs the same algorithm everywhere. */
const char *cx_rma_dropin_check(const cx_args *a, cx_comm *c)
{
    int err;
    if (a->size == 1)
        return NULL;
    /* Known bug (issue 12): with several threads calling collectives, a
     * forwarding job crashed in MPI_Win_sync (tests/robust/threads.c). */
    if (c->thread_multiple)
        return "does not run under MPI_THREAD_MULTIPLE yet";
    dropin *d = state(c, &err);
    if (!d || err)
        return "cannot set up its RMA runtime";
    return d->rt ? NULL : "cannot create RMA windows on this communicator";
}

/* The staging size for a message of total bytes that did not fit in cap:
 * a function of values every rank has (cap, and total from the first
 * descriptor), so every rank grows alike. */
static MPI_Aint grown(MPI_Aint cap, MPI_Aint total)
{
    MPI_Aint g = cap * 2 > total ? cap * 2 : total, max = staging_max();
    g = g < max ? g : max;
    return g > cap ? g : cap;
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

/* The root's message as contiguous bytes: its buffer, or packed into
 * room (when it fits) or into *alloc (freed by the caller). */
static int source(const cx_args *a, MPI_Aint total, char *room, MPI_Aint room_bytes,
                  char **alloc, const char **src)
{
    MPI_Aint off;
    *alloc = NULL;
    *src = a->rbuf;
    if (contiguous(a->rtype, &off)) {
        *src += off;
        return MPI_SUCCESS;
    }
    char *to = room;
    if (total > room_bytes && !(to = *alloc = malloc(total > 0 ? (size_t)total : 1)))
        return MPI_ERR_NO_MEM;
    *src = to;
    return cx_copy_charged(a->rbuf, a->rcount, a->rtype, to, total, MPI_PACKED);
}

/* One broadcast through staging, complete everywhere when it returns. */
static int root_pass(call *k, const char *src, MPI_Aint bytes, MPI_Aint total)
{
    dropin *d = k->d;
    const int64_t aux[CX_RMA_AUX] = {total, k->n};
    int err = cx_rma_bcast_bytes(d->rt, src, bytes, d->wid, 0, k->alg | pull_bit(k->alg), aux);
    int ferr = cx_rma_flush(d->rt);
    return err ? err : ferr;
}

/* The root decides the protocol from its own size alone, and the first
 * descriptor tells everyone (aux = total bytes): a message that fits
 * staging goes in one broadcast; a larger one is announced by an empty
 * broadcast, then every rank grows staging alike (collective) and the
 * message follows in pieces of the new size. */
static int run_root(call *k, MPI_Aint total)
{
    dropin *d = k->d;
    MPI_Aint off;
    const char *src;
    char *packed;
    int err = source(k->a, total, d->stage_base, d->cap, &packed, &src);
    if (err) {
        free(packed);
        return err;
    }
    if (total <= d->cap) {
        err = root_pass(k, src, total, total);
    } else if (!(err = root_pass(k, NULL, 0, total)) &&
               !(err = restage(d, grown(d->cap, total)))) {
        for (off = 0; off < total && !err; off += d->cap)
            err = root_pass(k, src + off, piece(total, off, d->cap), total);
    }
    free(packed);
    return err;
}

/* Waits for the next broadcast here (forwarding it): its bytes and aux. */
static int next_pass(dropin *d, MPI_Aint *bytes, MPI_Aint *total)
{
    int err = cx_rma_wait_arrived(d->rt, ++d->recvs, 0);
    *bytes = (MPI_Aint)d->rt->last_bytes;
    *total = (MPI_Aint)d->rt->last_aux[0];
    if (!err)
        PMPI_Win_sync(d->stage);
    return err;
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

/* Releases the staging data of the pass: once the subtree acknowledged
 * too, the acknowledgement goes up (the inline engine forwards only
 * inside collx calls, so a rank may leave only once its own is out). */
static int end_pass(dropin *d, int last)
{
    cx_rma_ack(d->rt);
    return last ? cx_rma_wait_arrived(d->rt, d->recvs, 1) : MPI_SUCCESS;
}

/* A receiver follows the root's protocol whatever its own size (mine):
 * every pass is received, forwarded and acknowledged, so a size that
 * disagrees with the root's gives MPI_ERR_TRUNCATE here and never leaves
 * a peer waiting. The data is unpacked before the release: the next
 * broadcast may overwrite staging. */
static int run_receiver(call *k, MPI_Aint mine)
{
    const cx_args *a = k->a;
    dropin *d = k->d;
    MPI_Aint bytes, total, off;
    int err = next_pass(d, &bytes, &total), cerr = MPI_SUCCESS;
    if (err) {
        end_pass(d, 1);
        return err;
    }
    int agree = total == mine;
    if (!agree)
        err = MPI_ERR_TRUNCATE;   /* the root's message has another size */
    if (total <= d->cap) {
        if (agree && contiguous(a->rtype, &off)) {
            err = take(d, (char *)a->rbuf + off, total);
        } else if (agree && !(err = take(d, d->stage_base, total))) {
            err = cx_copy_charged(d->stage_base, total, MPI_PACKED, a->rbuf, a->rcount, a->rtype);
        }
        int aerr = end_pass(d, 1);
        return err ? err : aerr;
    }
    /* Announced: grow alike, then the pieces. Non-contiguous types are
     * gathered packed and unpacked at the end. */
    if ((cerr = end_pass(d, 1)) || (cerr = restage(d, grown(d->cap, total))))
        return cerr;
    char *dst = a->rbuf, *packed = NULL;
    if (agree && contiguous(a->rtype, &off))
        dst += off;
    else if (agree && !(dst = packed = malloc((size_t)total)))
        cerr = MPI_ERR_NO_MEM;
    for (off = 0; off < total; off += d->cap) {
        MPI_Aint want = piece(total, off, d->cap);
        MPI_Aint same;
        int perr = next_pass(d, &bytes, &same);
        if (!perr && bytes != want)
            perr = MPI_ERR_INTERN;
        if (!perr && agree && !cerr)
            perr = take(d, dst + off, bytes);
        int aerr = end_pass(d, off + want >= total);
        cerr = cerr ? cerr : perr ? perr : aerr;
    }
    if (packed && !cerr)
        cerr = cx_copy_charged(packed, total, MPI_PACKED, a->rbuf, a->rcount, a->rtype);
    free(packed);
    return err ? err : cerr;
}

/* Call k->n with a small message by LL (ll.h), from the root. */
static int root_ll(call *k, MPI_Aint total)
{
    const char *src;
    char *packed;
    int err = source(k->a, total, NULL, 0, &packed, &src);
    if (!err)
        err = cx_rma_ll_send(k->d->ll, k->n, k->alg, src, total);
    free(packed);
    return err;
}

/* Call k->n by LL at a receiver: received and forwarded whatever this
 * rank's own size (mine); a size that disagrees gives MPI_ERR_TRUNCATE. */
static int receive_ll(call *k, MPI_Aint mine)
{
    const cx_args *a = k->a;
    MPI_Aint off, total = 0;
    char *dst = a->rbuf, *packed = NULL;
    int nomem = 0;
    if (contiguous(a->rtype, &off))
        dst += off;
    else if (!(dst = packed = malloc(mine > 0 ? (size_t)mine : 1)))
        nomem = 1;   /* still forwarded: the subtree waits for it */
    int err = cx_rma_ll_recv(k->d->ll, k->n, a->root, k->alg, dst, mine, &total);
    if (!err && total != mine)
        err = MPI_ERR_TRUNCATE;   /* the root's message has another size */
    if (!err && nomem)
        err = MPI_ERR_NO_MEM;
    if (!err && packed)
        err = cx_copy_charged(packed, mine, MPI_PACKED, a->rbuf, a->rcount, a->rtype);
    free(packed);
    return err;
}

/* Which protocol the root chose for broadcast n: the first of an LL
 * header in this rank's slot (*ll_path = 1) or a descriptor request of
 * call n (forwarded by the job meanwhile). A rank's own size does not
 * decide: in an erroneous call it may disagree with the root's. A request
 * of call n + 1 may come first (its root does not wait for LL broadcasts
 * to complete everywhere); it stays pending until that call. */
static int wait_first(dropin *d, long long n, int *ll_path)
{
    *ll_path = 0;
    if (!d->ll)
        return MPI_SUCCESS;
    for (int spins = 0;; cx_backoff(&spins)) {
        cx_progress_poke();
        if (atomic_load_explicit(&d->rt->arrived, memory_order_acquire) > d->recvs &&
            d->rt->last_aux[1] == n)
            return MPI_SUCCESS;
        int err = cx_rma_ll_landed(d->ll, n, ll_path);
        if (err || *ll_path)
            return err;
    }
}

/* The whole call in one poll step of a blocking schedule. Messages up to
 * COLLX_RMA_LL_MAX go by LL, larger ones by the paper's PutRequest. */
static int run(cx_sched *s, void *ctx, int *done)
{
    (void)s;
    call *k = ctx;
    dropin *d = k->d;
    MPI_Aint bytes = call_bytes(k->a);
    long long n = k->n = ++d->calls;
    int err, ll_path;
    *done = 1;
    if (k->a->rank == k->a->root) {
        err = d->ll && bytes <= cx_rma_ll_max(d->ll) ? root_ll(k, bytes)
                                                      : run_root(k, bytes);
    } else {
        /* Another root's turn: a rank that kept the lock gives it back
         * (before waiting: that root may need it). */
        err = cx_rma_release(d->rt);
        int rerr = wait_first(d, n, &ll_path);
        if (!rerr)
            rerr = ll_path ? receive_ll(k, bytes) : run_receiver(k, bytes);
        err = err ? err : rerr;
    }
    int derr = d->ll ? cx_rma_ll_done(d->ll, n) : MPI_SUCCESS;
    return err ? err : derr;
}

/* Every rank takes part, even with nothing to receive: which passes run
 * is the root's decision (as two-sided trees send their empty messages). */
int cx_rma_dropin(const cx_args *a, cx_sched *s)
{
    int err;
    if (a->size == 1)
        return MPI_SUCCESS;
    dropin *d = state(a->cc, &err);
    if (!d || !d->rt || err)
        return err ? err : MPI_ERR_INTERN;
    call *k = cx_sched_alloc(s, sizeof *k);
    if (!k)
        return MPI_ERR_NO_MEM;
    *k = (call){a, d, *(const int *)a->alg->family_data, 0};
    return cx_sched_poll(s, run, k);
}
