/* Persistent plans' own communicators (plan_comm.h): made at init, retired
 * at free, destroyed at a later init once every rank freed them. Every
 * rank numbers its plans on a communicator alike (inits are ordered); a
 * plan is freed everywhere when its number is below every rank's lowest
 * live plan, which the next init agrees on with one MPI_Allreduce. */
#include <pthread.h>
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
    int refs;                 /* the parent's state and every plan alive */
    unsigned next_id;
    cx_plan_comm *list;       /* alive and retired, ascending id */
};

static void unref(cx_plan_comms *h)
{
    pthread_mutex_lock(&h->mu);
    int last = --h->refs == 0;
    pthread_mutex_unlock(&h->mu);
    if (last) {
        pthread_mutex_destroy(&h->mu);
        free(h);
    }
}

static cx_plan_comms *home_of(cx_comm *parent)
{
    if (!parent->plan_comms) {
        cx_plan_comms *h = calloc(1, sizeof *h);
        if (!h)
            return NULL;
        pthread_mutex_init(&h->mu, NULL);
        h->refs = 1;   /* the parent's */
        parent->plan_comms = h;
    }
    return parent->plan_comms;
}

/* The retired plans every rank has freed, destroyed in id order (their
 * windows are freed collectively: the same order everywhere). */
static int sweep(cx_comm *parent, cx_plan_comms *h)
{
    pthread_mutex_lock(&h->mu);
    unsigned low = h->next_id;   /* this rank's lowest live plan */
    for (cx_plan_comm *pc = h->list; pc; pc = pc->next)
        if (!pc->retired) {
            low = pc->id;
            break;
        }
    pthread_mutex_unlock(&h->mu);
    unsigned all = low;
    int err = PMPI_Allreduce(&low, &all, 1, MPI_UNSIGNED, MPI_MIN, parent->priv);
    if (err)
        return err;
    pthread_mutex_lock(&h->mu);
    cx_plan_comm *dead = NULL, **tail = &dead;
    while (h->list && h->list->id < all) {   /* retired: below a live one */
        *tail = h->list;
        h->list = h->list->next;
        tail = &(*tail)->next;
    }
    *tail = NULL;
    pthread_mutex_unlock(&h->mu);
    while (dead) {
        cx_plan_comm *pc = dead;
        dead = pc->next;
        PMPI_Comm_free(&pc->comm);   /* collx's state with it: its windows */
        free(pc);
        unref(h);
    }
    return MPI_SUCCESS;
}

int cx_plan_comm_new(cx_comm *parent, MPI_Comm comm, cx_plan_comm **out)
{
    cx_plan_comms *h = home_of(parent);
    cx_plan_comm *pc = h ? calloc(1, sizeof *pc) : NULL;
    int err = pc ? sweep(parent, h) : MPI_ERR_NO_MEM;
    if (!err)
        err = PMPI_Comm_dup(comm, &pc->comm);
    if (err) {
        free(pc);
        return err;
    }
    pc->home = h;
    pthread_mutex_lock(&h->mu);
    h->refs++;
    pc->id = h->next_id++;
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
    pthread_mutex_unlock(&h->mu);
}

void cx_plan_comms_release(cx_comm *parent)
{
    cx_plan_comms *h = parent->plan_comms;
    if (h)
        unref(h);
    parent->plan_comms = NULL;
}
