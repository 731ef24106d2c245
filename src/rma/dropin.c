/* The one-sided broadcast as a drop-in MPI_Bcast ("rma_linear",
 * "rma_binomial"): per communicator (the family's state) a runtime and a
 * staging window, grown collectively when the root's message needs more (the
 * first descriptor says so: no rank decides from its own size). A call's
 * steps are in call.c. Where windows cannot be created, every rank runs
 * native (requirements, .check). */
#include <pthread.h>
#include <stdlib.h>
#include "dropin.h"

int cx_rma_slot;   /* the key of this family's state (util/catalogue.h) */

#define MIN_STAGING ((MPI_Aint)64 << 10)

/* Windows must be freed while MPI still works: Open MPI deletes
 * MPI_COMM_WORLD's attributes (and so this state) after its one-sided
 * components are gone, MPI_COMM_SELF's first. An attribute on
 * MPI_COMM_SELF frees the windows of every live state (as src/core/engine/shm.c
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

void cx_rma_dropin_release(void *state)
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
    return (MPI_Aint)cx_knob_int(CX_KNOB_RMA_MAX);
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
    if ((err = cx_rma_win_alloc(d->rt->memory, cap, 1, MPI_INFO_NULL, d->rt->comm,
                                &d->stage_base, &d->stage)))
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

dropin *cx_rma_dropin_state(cx_comm *c, int *err)
{
    dropin *had = cx_comm_state_of(c, cx_rma_slot);
    *err = MPI_SUCCESS;
    if (had)
        return had;
    dropin *d = calloc(1, sizeof *d);
    if (!d) {
        *err = MPI_ERR_NO_MEM;
        return NULL;
    }
    d->stage = MPI_WIN_NULL;
    d->wid = -1;
    int e = cx_comm_quiesce(c);   /* set-up collectives follow */
    if (!e)
        e = cx_rma_open(c->priv, &d->rt, &d->why);
    if (e && e != MPI_ERR_UNSUPPORTED_OPERATION) {
        free(d);
        *err = e;
        return NULL;
    }
    list(d);
    *cx_comm_state(c, cx_rma_slot) = d;
    if (!d->rt)
        return d;
    d->rt->hold_acks = 1;   /* the receiver releases staging once read */
    d->rt->stage = stage_copy;
    d->rt->stage_ctx = d;
    d->rt->sticky = 1;      /* MPI_Bcast calls come in collective order */
    MPI_Aint cap = staging_max() < MIN_STAGING ? staging_max() : MIN_STAGING;
    if ((e = restage(d, cap)) || (e = cx_rma_ll_create(d->rt, &d->ll))) {
        free_windows(d);   /* no staging: native from now on */
        *err = e;
    }
    return d;
}

/* Nothing here depends on this rank's message size: an erroneous call
 * whose sizes disagree still runs the same algorithm everywhere. */
const char *cx_rma_dropin_check(const cx_args *a, cx_comm *c)
{
    int err;
    if (a->size == 1)
        return NULL;
    dropin *d = cx_rma_dropin_state(c, &err);
    if (!d || err)
        return "cannot set up its RMA runtime";
    if (d->rt)
        return NULL;
    return d->why ? d->why : "cannot create RMA windows on this communicator";
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

int cx_rma_dropin_grow(dropin *d, MPI_Aint total)
{
    return restage(d, grown(d->cap, total));
}
