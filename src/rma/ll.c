/* LL protocol of the drop-in one-sided broadcast (ll.h says why and how).
 *
 * Window of each rank, in 16-byte elements (displacement unit 16):
 * element 0 = how far this rank has read (int64, published every
 * PUBLISH broadcasts), then SLOTS slots of slot_elems elements. A message
 * of total bytes is 1 + ceil(total / 15) elements: a header (int64 total,
 * 7 bytes unused, flag) and data elements (15 data bytes, flag).
 *
 * Flag of broadcast n: n mod 255 + 1. Broadcasts n and m in one slot
 * (n = m mod SLOTS) have the same flag only when n - m is a multiple of
 * 255 * SLOTS = 8160. An element a shorter broadcast left alone keeps an
 * older broadcast's flag, so each rank zeroes the used part of every slot
 * of its own every ZERO_GENS * SLOTS = 4096 broadcasts, before its credit
 * lets a writer at that slot again: no element is ever 8160 broadcasts
 * old, and a flag that matches is the expected broadcast's. (Zeroing at
 * every read costs a copy of the message per rank and broadcast.) Local
 * copies (encode, decode, zeroing) are charged in SMPI. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ll.h"
#include "rma.h"

enum { ELEM = 16, DATA = ELEM - 1, SLOTS = 32, PUBLISH = SLOTS / 2, ZERO_GENS = 128 };

struct cx_rma_ll {
    MPI_Comm comm;
    int rank, size;
    MPI_Win win;
    char *base;
    MPI_Datatype elem;    /* MPI_C_DOUBLE_COMPLEX: 16 bytes, atomic */
    MPI_Aint max;         /* largest message by LL (bytes) */
    int slot_elems;       /* elements of a slot (a message of max bytes) */
    char *buf;            /* a message being sent or received, encoded */
    char *zeros;          /* slot_elems zero elements */
    int used[SLOTS];      /* elements of each slot written since it was zeroed */
    long long *known;     /* [p] how far each rank had read, last seen */
    /* The broadcast being passed on (ll.h: in steps). */
    long long n;          /* its number; 0 none yet */
    int root, elems;      /* its root; its elements */
    int nkids;
    int *kids;            /* [p] children of this rank (relative ranks) */
};

static int elems_of(MPI_Aint total)
{
    return (int)(1 + (total + DATA - 1) / DATA);
}

/* Never 0 (what a fresh or zeroed slot holds); see the top of this file. */
static unsigned char flag_of(long long n)
{
    return (unsigned char)(n % 255 + 1);
}

static unsigned char flag_at(const char *e)
{
    return (unsigned char)e[DATA];
}

static MPI_Aint slot_disp(const cx_rma_ll *ll, long long n)
{
    return 1 + (MPI_Aint)(n % SLOTS) * ll->slot_elems;
}

int cx_rma_ll_create(const cx_rma *rt, cx_rma_ll **out)
{
    MPI_Comm comm = rt->comm;
    int ok = 1, all_ok = 0, tsize = 0;
    *out = NULL;
    long long want = cx_knob_int(CX_KNOB_RMA_LL_MAX), max = 0;
    PMPI_Type_size(MPI_C_DOUBLE_COMPLEX, &tsize);
    if (tsize != ELEM || want < 0)
        want = 0;
    if (want > (1LL << 28))
        want = 1LL << 28;   /* keeps element counts in an int */
    /* Slots are found by displacement: every rank must size them alike. */
    PMPI_Allreduce(&want, &max, 1, MPI_LONG_LONG, MPI_MIN, comm);
    if (max <= 0)
        return MPI_SUCCESS;
    cx_rma_ll *ll = calloc(1, sizeof *ll);
    if (!ll)
        ok = 0;
    if (ok) {
        ll->comm = comm;
        ll->win = MPI_WIN_NULL;
        PMPI_Comm_rank(comm, &ll->rank);
        PMPI_Comm_size(comm, &ll->size);
        ll->elem = MPI_C_DOUBLE_COMPLEX;
        ll->max = (MPI_Aint)max;
        ll->slot_elems = elems_of(ll->max);
        ll->buf = malloc((size_t)ll->slot_elems * ELEM);
        ll->zeros = calloc((size_t)ll->slot_elems, ELEM);
        ll->known = calloc((size_t)ll->size, sizeof *ll->known);
        ll->kids = malloc((size_t)ll->size * sizeof *ll->kids);
        ok = ll->buf && ll->zeros && ll->known && ll->kids;
    }
    if (ok) {
        MPI_Info info;
        PMPI_Info_create(&info);
        PMPI_Info_set(info, "accumulate_ordering", "none");
        MPI_Aint bytes = (1 + (MPI_Aint)SLOTS * ll->slot_elems) * ELEM;
        ok = cx_rma_win_alloc(rt->memory, bytes, ELEM, info, comm, &ll->base, &ll->win) ==
             MPI_SUCCESS;
        PMPI_Info_free(&info);
        if (!ok)
            ll->win = MPI_WIN_NULL;
        if (ok) {
            PMPI_Win_set_errhandler(ll->win, MPI_ERRORS_RETURN);
            memset(ll->base, 0, (size_t)bytes);
            ok = PMPI_Win_lock_all(MPI_MODE_NOCHECK, ll->win) == MPI_SUCCESS;
            if (!ok)
                cx_rma_win_free(&ll->win, ll->base);
        }
    }
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        cx_rma_ll_free(ll);
        if (cx_verbose() > 0)
            cx_say("rma: LL protocol off (no window for it on some rank)");
        return MPI_SUCCESS;
    }
    PMPI_Barrier(comm);   /* every slot is zero before anyone writes */
    if (ll->rank == 0 && cx_verbose() > 0)
        cx_say("rma: drop-in bcast: LL up to %lld bytes (COLLX_RMA_LL_MAX), %d slots of "
               "%lld bytes per rank", (long long)max, SLOTS, (long long)ll->slot_elems * ELEM);
    *out = ll;
    return MPI_SUCCESS;
}

void cx_rma_ll_free(cx_rma_ll *ll)
{
    if (!ll)
        return;
    if (ll->win != MPI_WIN_NULL) {
        PMPI_Win_unlock_all(ll->win);
        cx_rma_win_free(&ll->win, ll->base);
    }
    free(ll->buf);
    free(ll->zeros);
    free(ll->known);
    free(ll->kids);
    free(ll);
}

MPI_Aint cx_rma_ll_max(const cx_rma_ll *ll)
{
    return ll->max;
}

/* The message of broadcast n, encoded into buf. */
static void encode(cx_rma_ll *ll, long long n, const char *src, MPI_Aint total)
{
    unsigned char f = flag_of(n);
    int64_t t = total;
    char *e = ll->buf;
    memset(e, 0, ELEM);
    memcpy(e, &t, sizeof t);
    e[DATA] = (char)f;
    for (MPI_Aint off = 0; off < total; off += DATA) {
        e += ELEM;
        MPI_Aint k = total - off < DATA ? total - off : DATA;
        memcpy(e, src + off, (size_t)k);
        memset(e + k, 0, (size_t)(DATA - k));
        e[DATA] = (char)f;
    }
    cx_charge_copy((MPI_Count)total);
}

static void decode(const cx_rma_ll *ll, char *dst, MPI_Aint total)
{
    const char *e = ll->buf;
    for (MPI_Aint off = 0; off < total; off += DATA) {
        e += ELEM;
        memcpy(dst + off, e, (size_t)(total - off < DATA ? total - off : DATA));
    }
    cx_charge_copy((MPI_Count)total);
}

/* The broadcast n of elems elements from root is this rank's to pass on
 * (to its children in the tree of alg). */
static int pass_on(cx_rma_ll *ll, long long n, int root, int alg, int elems)
{
    int p = ll->size, v = (ll->rank - root + p) % p;
    ll->n = n;
    ll->root = root;
    ll->elems = elems;
    return ll->nkids = cx_rma_children(v, p, alg, ll->kids);
}

int cx_rma_ll_load(cx_rma_ll *ll, long long n, int alg, const char *src, MPI_Aint total,
                   int *nkids)
{
    *nkids = 0;
    if (total > ll->max)
        return MPI_ERR_INTERN;
    encode(ll, n, src, total);
    *nkids = pass_on(ll, n, ll->rank, alg, elems_of(total));
    return MPI_SUCCESS;
}

/* One message per child, complete at each before the next, largest
 * subtree first: a binomial root sends the whole message to each child
 * anyway, so cutting it in pipelined chunks only adds per-message costs
 * (measured). A child's slot is written only once the child has read
 * broadcast n - SLOTS (credit: its published progress, read again only
 * when the cached value is too old). */
int cx_rma_ll_to_child(cx_rma_ll *ll, int i, int *done)
{
    int err = MPI_SUCCESS, target = (ll->kids[i] + ll->root) % ll->size;
    long long n = ll->n;
    *done = 0;
    if (ll->known[target] < n - SLOTS) {
        int64_t zero = 0, got = 0;
        err = PMPI_Fetch_and_op(&zero, &got, MPI_INT64_T, target, 0, MPI_NO_OP, ll->win);
        if (!err)
            err = PMPI_Win_flush(target, ll->win);
        if (!err && got > ll->known[target])
            ll->known[target] = got;
        if (!err && ll->known[target] < n - SLOTS) {
            cx_rma_poll(ll->comm);
            return MPI_SUCCESS;
        }
    }
    *done = 1;
    if (!err)
        err = PMPI_Accumulate(ll->buf, ll->elems, ll->elem, target, slot_disp(ll, n),
                              ll->elems, ll->elem, MPI_REPLACE, ll->win);
    /* Flushed at once: some MPIs apply an operation only at a flush. */
    return err ? err : PMPI_Win_flush(target, ll->win);
}

/* Reads elements [first, first + count) of this rank's slot of n into
 * buf (atomically per element: data and flag together); *fresh = all of
 * them belong to n. */
static int read_own(cx_rma_ll *ll, long long n, int first, int count, int *fresh)
{
    char *to = ll->buf + (size_t)first * ELEM;
    int err = PMPI_Get_accumulate(NULL, 0, ll->elem, to, count, ll->elem, ll->rank,
                                  slot_disp(ll, n) + first, count, ll->elem, MPI_NO_OP,
                                  ll->win);
    if (!err)
        err = PMPI_Win_flush(ll->rank, ll->win);
    unsigned char f = flag_of(n);
    *fresh = 1;
    for (int k = 0; k < count && !err && *fresh; k++)
        *fresh = flag_at(to + (size_t)k * ELEM) == f;
    return err;
}

int cx_rma_ll_landed(cx_rma_ll *ll, long long n, int *yes)
{
    return read_own(ll, n, 0, 1, yes);
}

/* Poll: elements [0, count) of n are here (in buf). The last one first:
 * one element per poll while waiting. */
static int arrived(cx_rma_ll *ll, long long n, int count, int *done)
{
    int fresh = 0, err = read_own(ll, n, count - 1, 1, &fresh);
    if (!err && fresh && count > 1)
        err = read_own(ll, n, 0, count, &fresh);
    *done = err || fresh;
    if (!*done)
        cx_rma_poll(ll->comm);
    return err;
}

/* Zeroes the used part of the slot of broadcast n, which this rank has
 * read: no writer may access it before this rank's next credit. A put to
 * oneself, flushed (SMPI sends an accumulate to oneself as a message, a
 * put is a local copy). */
static int zero_slot(cx_rma_ll *ll, long long n)
{
    int *used = &ll->used[n % SLOTS], err = MPI_SUCCESS;
    if (*used > 0) {
        err = PMPI_Put(ll->zeros, *used, ll->elem, ll->rank, slot_disp(ll, n), *used, ll->elem,
                       ll->win);
        if (!err)
            err = PMPI_Win_flush(ll->rank, ll->win);
        cx_charge_copy((MPI_Count)*used * ELEM);
        *used = 0;
    }
    return err;
}

int cx_rma_ll_take(cx_rma_ll *ll, long long n, int root, int alg, int *done,
                   MPI_Aint *total, int *nkids)
{
    int err;
    int64_t t = 0;
    *nkids = 0;
    if (ll->n != n) {   /* the header first: the root's size */
        if ((err = arrived(ll, n, 1, done)) || !*done)
            return err;
        memcpy(&t, ll->buf, sizeof t);
        *total = (MPI_Aint)t;
        if (t < 0 || t > ll->max) {
            *done = 1;
            return MPI_ERR_INTERN;   /* COLLX_RMA_LL_MAX differs between ranks */
        }
        pass_on(ll, n, root, alg, elems_of((MPI_Aint)t));
    }
    memcpy(&t, ll->buf, sizeof t);
    *total = (MPI_Aint)t;
    *nkids = ll->nkids;
    if ((err = arrived(ll, n, ll->elems, done)) || !*done)
        return err;
    int *used = &ll->used[n % SLOTS];
    if (*used < ll->elems)
        *used = ll->elems;   /* for zero_slot */
    return MPI_SUCCESS;
}

void cx_rma_ll_decode(const cx_rma_ll *ll, char *dst, MPI_Aint total)
{
    decode(ll, dst, total);
}

int cx_rma_ll_done(cx_rma_ll *ll, long long n)
{
    if (n % PUBLISH)
        return MPI_SUCCESS;
    int err = MPI_SUCCESS;
    /* Before the credit that lets writers at these slots again. */
    for (long long c = n - PUBLISH + 1; c <= n && !err; c++)
        if ((c / SLOTS) % ZERO_GENS == 0)
            err = zero_slot(ll, c);
    /* Writers need this rank to have read n - SLOTS; publishing every
     * PUBLISH broadcasts keeps them SLOTS - PUBLISH ahead. */
    int64_t v = n;
    if (!err)
        err = PMPI_Accumulate(&v, 1, MPI_INT64_T, ll->rank, 0, 1, MPI_INT64_T, MPI_REPLACE,
                              ll->win);
    return err ? err : PMPI_Win_flush(ll->rank, ll->win);
}
