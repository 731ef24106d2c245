/* Per-communicator state (see comm.h): creation, the attribute's delete
 * callback, tags and family hooks. The node layout is in nodes.c, the
 * shared segment in shm.c. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "comm.h"
#include "recent.h"
#include "plan_comm.h"
#include "progress.h"
#include "sched.h"

static int cx_keyval = MPI_KEYVAL_INVALID;
static int keyval_err = MPI_SUCCESS;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

static void free_comm(MPI_Comm *c)
{
    if (*c != MPI_COMM_NULL)
        PMPI_Comm_free(c);
}

void cx_comm_free_nodes(cx_comm *c);
void cx_comm_free_shm(cx_comm *c);

void cx_comm_enter(cx_comm *c)
{
    if (c)
        __atomic_add_fetch(&c->inflight, 1, __ATOMIC_RELAXED);
}

void cx_comm_leave(cx_comm *c)
{
    if (c)
        __atomic_sub_fetch(&c->inflight, 1, __ATOMIC_RELEASE);
}

/* The schedules still in flight on c finish first (every rank frees the
 * communicator, so every rank gets here and finishes its part). */
static void drain(cx_comm *c)
{
    for (int spins = 0; __atomic_load_n(&c->inflight, __ATOMIC_ACQUIRE) > 0;) {
        cx_progress_poke();
        cx_backoff(&spins);
    }
}

/* States deleted so far, and this thread's last lookup (recent.h). */
static atomic_uint deleted;
static CX_RECENT_LOCAL cx_recent recent;

cx_comm *cx_comm_recent(MPI_Comm comm)
{
    return cx_recent_get(&recent, &deleted, comm);
}

static void (*_Atomic room_release[CX_ROOMS])(void *state);

void cx_comm_room_release(int room, void (*release)(void *state))
{
    atomic_store(&room_release[room], release);
}

void cx_comm_release_rooms(cx_comm *c)
{
    for (int i = 0; i < CX_ROOMS; i++) {
        void (*release)(void *) = atomic_load(&room_release[i]);
        if (c->room_state[i] && release)
            release(c->room_state[i]);
        c->room_state[i] = NULL;
    }
}

static int delete_state(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    cx_comm *c = attr;
    cx_recent_forget(&deleted);
    drain(c);
    for (int i = 0; cx_families[i]; i++)
        if (c->family_state[i] && cx_families[i]->release)
            cx_families[i]->release(c->family_state[i]);
    cx_comm_release_rooms(c);
    cx_plan_comms_release(c);
    cx_comm_free_shm(c);
    cx_comm_free_nodes(c);
    free_comm(&c->priv);
    free(c);
    return MPI_SUCCESS;
}

/* The keyval lives until MPI_Finalize: freeing it earlier would only mark
 * it, and MPI releases it with the last attribute anyway. */
static void create_keyval(void)
{
    keyval_err = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state,
                                         &cx_keyval, NULL);
}

int cx_comm_get(MPI_Comm comm, cx_comm **out)
{
    cx_comm *c = cx_comm_recent(comm);
    if (c) {
        *out = c;
        return MPI_SUCCESS;
    }
    cx_families_init();
    int err, found = 0;
    pthread_once(&keyval_once, create_keyval);
    if (keyval_err)
        return keyval_err;
    if ((err = PMPI_Comm_get_attr(comm, cx_keyval, &c, &found)))
        return err;
    if (found) {
        cx_recent_set(&recent, &deleted, comm, c);
        *out = c;
        return MPI_SUCCESS;
    }
    c = calloc(1, sizeof *c);
    if (!c)
        return MPI_ERR_NO_MEM;
    c->priv = c->node = c->leaders = c->column = MPI_COMM_NULL;
    c->shm_win = c->ctl_win = MPI_WIN_NULL;
    if ((err = PMPI_Comm_dup(comm, &c->priv))) {
        free(c);
        return err;
    }
    /* Our own errors come back as codes; we report them on the user's comm. */
    PMPI_Comm_set_errhandler(c->priv, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(c->priv, &c->rank);
    PMPI_Comm_size(c->priv, &c->size);
    PMPI_Comm_test_inter(comm, &c->inter);
    /* Requirements are checked alike on every rank: agree on the thread
     * level once. */
    int provided = MPI_THREAD_SINGLE, mine[2], all[2];
    PMPI_Query_thread(&provided);
    mine[0] = provided == MPI_THREAD_MULTIPLE;
    mine[1] = !mine[0];
    if ((err = PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, c->priv)) ||
        (err = PMPI_Comm_set_attr(comm, cx_keyval, c))) {
        delete_state(comm, cx_keyval, c, NULL);
        return err;
    }
    c->thread_multiple = all[0];
    c->one_thread_each = all[1];
    cx_recent_set(&recent, &deleted, comm, c);
    *out = c;
    return MPI_SUCCESS;
}

cx_comm *cx_comm_find(MPI_Comm comm)
{
    cx_comm *c = NULL;
    int found = 0;
    pthread_once(&keyval_once, create_keyval);
    if (keyval_err || comm == MPI_COMM_NULL ||
        PMPI_Comm_get_attr(comm, cx_keyval, &c, &found) != MPI_SUCCESS || !found)
        return NULL;
    return c;
}

int cx_comm_next_tag(cx_comm *c)
{
    /* MPI guarantees tags up to 32767; collectives are called in the same
     * order everywhere, so the sequence agrees on all ranks. */
    unsigned t = c->tag_seq;
    c->tag_seq = t + 1 < 32000u ? t + 1 : 0;   /* 1, 2, ..., 32000, 1, ... */
    return (int)t + 1;
}

int cx_comm_quiesce(cx_comm *c)
{
    int err = MPI_SUCCESS;
    for (int i = 0; cx_families[i] && !err; i++)
        if (c->family_state[i] && cx_families[i]->quiesce)
            err = cx_families[i]->quiesce(c);
    return err;
}

void cx_comm_after_call_hooks(cx_comm *c)
{
    int n;
    const int *with = cx_families_after_call(&n);
    for (int k = 0; k < n; k++)
        if (c->family_state[with[k]])
            cx_families[with[k]]->after_call(c->family_state[with[k]]);
}

/* A family's state is written through the slot returned here only: a
 * hooked family's first ask marks c (for good: a cleared slot costs the
 * look, as before). */
void **cx_comm_state(cx_comm *c, int slot)
{
    if (!c->hooked && cx_families[slot]->after_call)
        c->hooked = 1;
    return &c->family_state[slot];
}

void *cx_comm_state_of(const cx_comm *c, int slot)
{
    return c->family_state[slot];
}
