/* The node-shared segment of a communicator: one MPI_Win_allocate_shared
 * window on the node communicator, created on first need and grown on
 * demand. The node's first rank allocates it all and the others pass size
 * 0 (SMPI addresses the segment by rank x own size: unequal sizes would be
 * out of bounds), then everyone finds it with MPI_Win_shared_query. The
 * window stays in a lock_all epoch, so MPI_Win_sync may order stores and
 * loads between the node's ranks. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "comm.h"
#include "bell.h"
#include "../util/util.h"

MPI_Aint cx_shm_max(void)
{
    return (MPI_Aint)cx_knob_int(CX_KNOB_SHM_MAX);
}

MPI_Aint cx_node_cell_bytes(void)
{
    /* 64-byte multiples: a cell starts on a line of its own */
    return (MPI_Aint)(cx_knob_int(CX_KNOB_NODE_CELL) + 63) / 64 * 64;
}

static void free_win(MPI_Win *w)
{
    PMPI_Win_unlock_all(*w);
    PMPI_Win_free(w);
}

/* Windows must be freed while MPI still works: Open MPI deletes
 * MPI_COMM_WORLD's attributes (and so its collx state) after its one-sided
 * components are gone, but MPI_COMM_SELF's first. States that hold a
 * segment are listed; an attribute on MPI_COMM_SELF frees their windows
 * at MPI_Finalize. */
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static cx_comm *live;
static int self_keyval = MPI_KEYVAL_INVALID;

static void unlist(cx_comm *c)
{
    pthread_mutex_lock(&live_mu);
    for (cx_comm **p = &live; *p; p = &(*p)->next_live)
        if (*p == c) {
            *p = c->next_live;
            break;
        }
    pthread_mutex_unlock(&live_mu);
}

static int at_finalize(MPI_Comm comm, int keyval, void *attr, void *extra);

static int list(cx_comm *c)
{
    int err = MPI_SUCCESS;
    pthread_mutex_lock(&live_mu);
    if (self_keyval == MPI_KEYVAL_INVALID &&
        !(err = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &self_keyval,
                                        NULL)))
        err = PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
    if (!err) {
        c->next_live = live;
        live = c;
    }
    pthread_mutex_unlock(&live_mu);
    return err;
}

void cx_comm_free_shm(cx_comm *c);

static int at_finalize(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm; (void)keyval; (void)attr; (void)extra;
    while (live)
        cx_comm_free_shm(live);   /* unlists it */
    return MPI_SUCCESS;
}

void cx_comm_free_shm(cx_comm *c)
{
    if (c->shm_win != MPI_WIN_NULL || c->nshm_old || c->ctl_win != MPI_WIN_NULL)
        unlist(c);
    if (c->shm_win != MPI_WIN_NULL)
        free_win(&c->shm_win);
    if (c->ctl_win != MPI_WIN_NULL) {
        cx_bell_taken bell = cx_bell_take(c);
        free_win(&c->ctl_win);
        cx_bell_free(bell);
    }
    c->ctl_base = NULL;
    for (int i = 0; i < c->nshm_old; i++)
        free_win(&c->shm_old[i]);
    free(c->shm_old);
    c->shm_old = NULL;
    c->nshm_old = 0;
    c->shm_base = NULL;
    c->shm_size = 0;
}

/* An outgrown segment may still be read by a call in flight: it is kept
 * (geometric growth bounds them to the size of the last one). */
static int retire(cx_comm *c)
{
    MPI_Win *n = realloc(c->shm_old, sizeof *n * (size_t)(c->nshm_old + 1));
    if (!n)
        return MPI_ERR_NO_MEM;
    c->shm_old = n;
    c->shm_old[c->nshm_old++] = c->shm_win;
    c->shm_win = MPI_WIN_NULL;
    c->shm_base = NULL;
    return MPI_SUCCESS;
}

/* One node-shared window of bytes, the node's first rank allocating, in
 * a passive-target epoch for its whole life (MPI_Win_sync, the memory
 * barrier between a store and another rank's load, is only legal inside
 * one); *base = its start in this process. */
static int node_window(cx_comm *c, MPI_Aint bytes, MPI_Win *win, char **base)
{
    void *mine;
    MPI_Aint size;
    int disp, err;
    err = cx_win_allocate_shared(c->local_rank == 0 ? bytes : 0, c->node, c->one_thread_each,
                                 &mine, win);
    if (err)
        return err;
    if ((err = PMPI_Win_shared_query(*win, 0, &size, &disp, base)) ||
        (err = PMPI_Win_lock_all(MPI_MODE_NOCHECK, *win))) {
        PMPI_Win_free(win);
        *base = NULL;
    }
    return err;
}

int cx_comm_node_ctl(cx_comm *c, char **base)
{
    int err;
    if (c->ctl_win != MPI_WIN_NULL) {
        *base = c->ctl_base;
        return MPI_SUCCESS;
    }
    if ((err = cx_comm_nodes(c)))
        return err;
    if (c->shm_win == MPI_WIN_NULL && !c->nshm_old && (err = list(c)))
        return err;
    c->cell_bytes = cx_node_cell_bytes();
    MPI_Aint bytes = CX_NODE_CTL_BYTES +
                     (MPI_Aint)c->local_size * (CX_NODE_LINE_BYTES + 2 * c->cell_bytes);
    if ((err = node_window(c, bytes, &c->ctl_win, &c->ctl_base)))
        return err;
    if (c->local_rank == 0) {
        memset(c->ctl_base, 0, (size_t)bytes);
        cx_bell_make(c);
    }
    PMPI_Win_sync(c->ctl_win);
    PMPI_Barrier(c->node);   /* zeroed before anyone uses it */
    *base = c->ctl_base;
    return MPI_SUCCESS;
}

int cx_comm_shm(cx_comm *c, MPI_Aint bytes, char **base)
{
    int err;
    *base = NULL;
    if (bytes > cx_shm_max())
        return MPI_ERR_NO_MEM;
    if ((err = cx_comm_nodes(c)))
        return err;
    if (c->shm_win != MPI_WIN_NULL && bytes <= c->shm_size) {
        *base = c->shm_base;
        return MPI_SUCCESS;
    }
    /* Grow geometrically (bounded by the cap), so that a sweep of sizes
     * reallocates O(log) times. */
    MPI_Aint want = c->shm_size ? c->shm_size : 4096;
    while (want < bytes)
        want *= 2;
    if (want > cx_shm_max())
        want = bytes;
    if (c->shm_win != MPI_WIN_NULL && (err = retire(c)))
        return err;
    if (c->shm_win == MPI_WIN_NULL && !c->nshm_old && c->ctl_win == MPI_WIN_NULL &&
        (err = list(c)))
        return err;
    if ((err = node_window(c, want, &c->shm_win, &c->shm_base)))
        return err;
    c->shm_size = want;
    *base = c->shm_base;
    return MPI_SUCCESS;
}
