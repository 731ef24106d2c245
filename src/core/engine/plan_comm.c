/* Persistent plans' own communicators (plan_comm.h): made at init, retired
 * at free, reused or destroyed at a later init once every rank freed
 * them. Every
 * rank numbers its plans on a communicator alike (inits are ordered); a
 * plan is freed everywhere when its number is below every rank's lowest
 * live plan, which the next init agrees on with one MPI_Allreduce. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "comm.h"
#include "plan_comm.h"

typedef struct cx_plan_comms cx_plan_comms;

struct cx_plan_comm {
    MPI_Comm comm;
    unsigned id;              /* its number among the parent's plans */
    int retired;              /* freed on this rank */
    cx_plan_comms *home;
    cx_plan_comm *next;       /* in home's list, ascending id */
};

struct cx_plan_comms {        /* per parent communicator */
    pthread_mutex_t mu;       /* all below: a free may come from any thread */
    int parent;               /* the parent's state still holds it */
    unsigned next_id;
    cx_plan_comm *list;       /* alive and retired, ascending id */
};

/* h->mu held. The parent's state gone (no sweep comes) and nothing
 * listed: h is unused. */
static int unused(const cx_plan_comms *h)
{
    return !h->parent && !h->list;
}

static void free_home(cx_plan_comms *h)
{
    pthread_mutex_destroy(&h->mu);
    free(h);
}

/* h->mu held: pc unlisted without a word to MPI. Once the parent's state
 * is gone no sweep comes and no rank can free it alone: its windows go at
 * MPI_Finalize with every node segment (shm.c), the communicator stays
 * the MPI's to clean up. */
static void forget(cx_plan_comms *h, cx_plan_comm *pc)
{
    for (cx_plan_comm **at = &h->list; *at; at = &(*at)->next)
        if (*at == pc) {
            *at = pc->next;
            break;
        }
    free(pc);
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: from then on a
 * parent's state goes without a word to MPI. */
static atomic_int finalizing;
static int at_finalize(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm; (void)keyval; (void)attr; (void)extra;
    atomic_store(&finalizing, 1);
    return MPI_SUCCESS;
}

static void watch_finalize(void)
{
    int keyval;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &keyval, NULL) ==
        MPI_SUCCESS)
        PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL);
}

static cx_plan_comms *home_of(cx_comm *parent)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch_finalize);
    if (!parent->plan_comms) {
        cx_plan_comms *h = calloc(1, sizeof *h);
        if (!h)
            return NULL;
        pthread_mutex_init(&h->mu, NULL);
        h->parent = 1;
        parent->plan_comms = h;
    }
    return parent->plan_comms;
}

/* The retired plans every rank has freed: the oldest is *reuse (a new
 * plan runs on it: no duplicate, node layout and windows to make; every
 * rank picks the same), up to SPARE more stay for the next inits (making
 * a communicator and its windows is dear: MPICH's sequence.persist.p4
 * 5.9 s with 4, 3.5 s with 16), the
 * rest are destroyed in id order (their windows are freed collectively:
 * the same order everywhere). */
#define SPARE 16
static int sweep(MPI_Comm comm, cx_plan_comms *h, cx_plan_comm **reuse, int spare)
{
    if (reuse)
        *reuse = NULL;
    pthread_mutex_lock(&h->mu);
    unsigned low = h->next_id;   /* this rank's lowest live plan */
    for (cx_plan_comm *pc = h->list; pc; pc = pc->next)
        if (!pc->retired) {
            low = pc->id;
            break;
        }
    pthread_mutex_unlock(&h->mu);
    unsigned all = low;
    /* on the program's communicator, where this init is a collective in
     * order: collx's private one may have collectives of calls in flight */
    int err = PMPI_Allreduce(&low, &all, 1, MPI_UNSIGNED, MPI_MIN, comm);
    if (err)
        return err;
    pthread_mutex_lock(&h->mu);
    cx_plan_comm *dead = NULL, **tail = &dead, **at = &h->list;
    int kept = 0;
    while (*at && (*at)->id < all) {   /* retired: below a live one */
        if (reuse && !*reuse) {
            *reuse = *at;
            *at = (*at)->next;
        } else if (kept < spare) {
            kept++;
            at = &(*at)->next;
        } else {
            *tail = *at;
            *at = (*at)->next;
            tail = &(*tail)->next;
        }
    }
    *tail = NULL;
    pthread_mutex_unlock(&h->mu);
    while (dead) {
        cx_plan_comm *pc = dead;
        dead = pc->next;
        PMPI_Comm_free(&pc->comm);   /* collx's state with it: its windows */
        free(pc);
    }
    return MPI_SUCCESS;
}

int cx_plan_comm_new(cx_comm *parent, MPI_Comm comm, cx_plan_comm **out)
{
    cx_plan_comms *h = home_of(parent);
    cx_plan_comm *pc = NULL;
    int err = h ? sweep(comm, h, &pc, SPARE) : MPI_ERR_NO_MEM;
    if (!err && !pc) {
        if (!(pc = calloc(1, sizeof *pc)))
            err = MPI_ERR_NO_MEM;
        else if ((err = PMPI_Comm_dup(comm, &pc->comm)))
            free(pc);
    }
    if (err)
        return err;
    pc->home = h;
    pc->retired = 0;
    pc->next = NULL;
    pthread_mutex_lock(&h->mu);
    pc->id = h->next_id++;   /* the largest: last in the list */
    cx_plan_comm **at = &h->list;
    while (*at)
        at = &(*at)->next;
    *at = pc;
    pthread_mutex_unlock(&h->mu);
    *out = pc;
    return MPI_SUCCESS;
}

MPI_Comm cx_plan_comm_of(const cx_plan_comm *pc)
{
    return pc->comm;
}

void cx_plan_comm_retire(cx_plan_comm *pc)
{
    cx_plan_comms *h = pc->home;
    pthread_mutex_lock(&h->mu);
    pc->retired = 1;
    if (!h->parent)
        forget(h, pc);
    int last = unused(h);
    pthread_mutex_unlock(&h->mu);
    if (last)
        free_home(h);
}

void cx_plan_comms_release(cx_comm *parent)
{
    cx_plan_comms *h = parent->plan_comms;
    if (!h)
        return;
    /* The program freed the parent (collective, its calls drained): what
     * every rank retired is destroyed now, or a program that makes
     * persistent calls on communicators it makes and frees in turn runs
     * the MPI out of communicators (MPICH: 2048 context ids). */
    if (!atomic_load(&finalizing))
        sweep(parent->priv, h, NULL, 0);
    parent->plan_comms = NULL;
    pthread_mutex_lock(&h->mu);
    h->parent = 0;
    for (cx_plan_comm *pc = h->list, *next; pc; pc = next) {
        next = pc->next;
        if (pc->retired)
            forget(h, pc);
    }
    int last = unused(h);
    pthread_mutex_unlock(&h->mu);
    if (last)
        free_home(h);
}
