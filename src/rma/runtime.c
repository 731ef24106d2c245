/* The RMA runtime's life: what the MPI can do (probed at creation and
 * agreed on by every rank), the control window, the registered windows
 * (the paper's wid list) and the engine that will run the forwarding job
 * (bcast.c starts and stops it). Calls nothing of src/rma but its own. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rma.h"

/* Does a passive-target atomic complete while its target is outside MPI?
 * Rank 1 sleeps 30 ms without calling MPI; rank 0's fetch-and-op on it
 * either returns at once or only after the sleep. Everyone learns the
 * answer (rank 0's). */
static int probe_async(cx_rma *rt)
{
    int64_t one = 1, old = 0;
    int yes = 1;
    PMPI_Barrier(rt->comm);
    if (rt->rank == 1) {
        struct timespec t = {0, 30000000L};
        nanosleep(&t, NULL);
    } else if (rt->rank == 0) {
        double t0 = PMPI_Wtime();
        PMPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, CX_RMA_TICKET, MPI_NO_OP, rt->ctl);
        PMPI_Win_flush(1, rt->ctl);
        yes = PMPI_Wtime() - t0 < 0.015;
    }
    PMPI_Bcast(&yes, 1, MPI_INT, 0, rt->comm);
    return yes;
}

/* Polling by loads (rma.h: local_poll): only in the unified memory model.
 * COLLX_RMA_POLL=rma forces atomic reads (to measure the difference). */
static int local_poll_ok(MPI_Win win)
{
    int *model = NULL, flag = 0;
    if (cx_knob_int(CX_KNOB_RMA_POLL) == 1)   /* rma */
        return 0;
    PMPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    return flag && model && *model == MPI_WIN_UNIFIED;
}

static int engine_from_env(int thread_ok)
{
    if (cx_knob_int(CX_KNOB_RMA_ENGINE) == 1)   /* inline */
        return CX_RMA_ENGINE_INLINE;
    return thread_ok ? CX_RMA_ENGINE_THREAD : CX_RMA_ENGINE_INLINE;
}

const char *cx_rma_engine_name(const cx_rma *rt)
{
    return rt->engine == CX_RMA_ENGINE_THREAD ? "thread" : "inline";
}

int cx_rma_create(MPI_Comm comm, cx_rma **out, const char **why_not)
{
    int err, ok, all_ok = 0;
    const char *unsafe = NULL;
    if (why_not)
        *why_not = NULL;
    cx_rma *rt = calloc(1, sizeof *rt);
    *out = NULL;
    if (!rt)
        return MPI_ERR_NO_MEM;
    rt->ctl = MPI_WIN_NULL;
    rt->parent = -1;
    if ((err = PMPI_Comm_dup(comm, &rt->comm))) {
        free(rt);
        return err;
    }
    PMPI_Comm_set_errhandler(rt->comm, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(rt->comm, &rt->rank);
    PMPI_Comm_size(rt->comm, &rt->size);

    /* Probe 1: which windows cannot collide with another communicator's
     * (window.c), and can this MPI create them here (Debian's Open MPI
     * cannot across TCP nodes)? The answers must be the same everywhere. */
    rt->memory = cx_rma_memory(rt->comm, &unsafe);
    ok = rt->memory > CX_RMA_MEM_NONE &&
         cx_rma_win_alloc(rt->memory, CX_RMA_WORDS * sizeof(int64_t), sizeof(int64_t),
                          MPI_INFO_NULL, rt->comm, &rt->ctl_base, &rt->ctl) == MPI_SUCCESS;
    if (ok) {
        PMPI_Win_set_errhandler(rt->ctl, MPI_ERRORS_RETURN);
        memset(rt->ctl_base, 0, CX_RMA_WORDS * sizeof(int64_t));
        ok = PMPI_Win_lock_all(MPI_MODE_NOCHECK, rt->ctl) == MPI_SUCCESS;
    }
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, rt->comm);
    const char *why = unsafe ? unsafe : "this MPI cannot create RMA windows on this communicator";
    if (!all_ok) {
        if (why_not)
            *why_not = why;
        if (rt->ctl != MPI_WIN_NULL) {
            if (ok)
                PMPI_Win_unlock_all(rt->ctl);
            cx_rma_win_free(&rt->ctl, rt->ctl_base);
        }
        static atomic_int said_unsafe;   /* a long text: once per process */
        if (rt->rank == 0 && cx_verbose() > 0 && !(unsafe && atomic_exchange(&said_unsafe, 1)))
            cx_say("rma: %s", why);
        PMPI_Comm_free(&rt->comm);
        free(rt);
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    PMPI_Barrier(rt->comm);   /* every control word is zero before use */
    ok = local_poll_ok(rt->ctl);
    PMPI_Allreduce(&ok, &rt->local_poll, 1, MPI_INT, MPI_MIN, rt->comm);

    /* Probe 2: the engine. The thread needs MPI_THREAD_MULTIPLE and a
     * running progress thread on every rank (never in SMPI). */
    int provided = MPI_THREAD_SINGLE, thread_ok = 0;
    PMPI_Query_thread(&provided);
    ok = provided == MPI_THREAD_MULTIPLE && engine_from_env(1) == CX_RMA_ENGINE_THREAD &&
         cx_progress_thread();
    PMPI_Allreduce(&ok, &thread_ok, 1, MPI_INT, MPI_MIN, rt->comm);
    rt->engine = engine_from_env(thread_ok);

    /* Probe 3 (informative, 30 ms): passive-target progress. Without it the
     * inline engine needs every rank inside MPI (collx calls) to forward. */
    rt->async = -1;
    if (rt->size > 1 && (cx_verbose() > 0 || cx_knob_int(CX_KNOB_RMA_PROBE)))
        rt->async = probe_async(rt);
    if (rt->rank == 0 && cx_verbose() > 0) {
        int inline_asked = cx_knob_int(CX_KNOB_RMA_ENGINE) == 1;
        cx_say("rma: p=%d windows yes; polling by %s; passive-target progress without "
               "the target: %s; engine %s%s", rt->size,
               rt->local_poll ? "loads (unified model)" : "fetch-and-op",
               rt->async < 0 ? "not probed" : rt->async ? "yes" : "no",
               cx_rma_engine_name(rt),
               rt->engine == CX_RMA_ENGINE_THREAD ? " (progress thread)"
               : inline_asked ? " (COLLX_RMA_ENGINE=inline)"
               : " (no MPI_THREAD_MULTIPLE or SMPI: forwarding inside collx calls)");
    }
    *out = rt;
    return MPI_SUCCESS;
}

int cx_rma_register(cx_rma *rt, MPI_Win win, int *wid)
{
    int err, flag, *unit, p = rt->size, gsize;
    MPI_Aint *size, my[2];
    void *base;
    MPI_Group g;
    if ((err = PMPI_Win_get_group(win, &g)))
        return err;
    PMPI_Group_size(g, &gsize);
    PMPI_Group_free(&g);
    if (gsize != p)
        return MPI_ERR_WIN;
    PMPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    MPI_Aint *sz;
    PMPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag);
    my[0] = flag ? *sz : 0;
    int *du;
    PMPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag);
    my[1] = flag ? *du : 1;
    int slot = 0;
    while (slot < rt->nwins && rt->wins[slot].win != MPI_WIN_NULL)
        slot++;
    if (slot == rt->nwins) {
        cx_rma_win *w = realloc(rt->wins, (size_t)(slot + 1) * sizeof *w);
        if (!w)
            return MPI_ERR_NO_MEM;
        rt->wins = w;
        rt->nwins++;
    }
    MPI_Aint *all = malloc((size_t)p * 2 * sizeof *all);
    size = malloc((size_t)p * sizeof *size);
    unit = malloc((size_t)p * sizeof *unit);
    if (!all || !size || !unit) {
        free(all); free(size); free(unit);
        return MPI_ERR_NO_MEM;
    }
    if ((err = PMPI_Allgather(my, 2, MPI_AINT, all, 2, MPI_AINT, rt->comm))) {
        free(all); free(size); free(unit);
        return err;
    }
    for (int r = 0; r < p; r++) {
        size[r] = all[2 * r];
        unit[r] = (int)all[2 * r + 1];
    }
    free(all);
    /* The runtime keeps a passive-target epoch open on the window. */
    if ((err = PMPI_Win_lock_all(MPI_MODE_NOCHECK, win))) {
        free(size); free(unit);
        return err;
    }
    rt->wins[slot] = (cx_rma_win){win, base, size, unit};
    *wid = slot;
    return MPI_SUCCESS;
}

void cx_rma_unregister(cx_rma *rt, int wid)
{
    cx_rma_win *w = &rt->wins[wid];
    if (w->win == MPI_WIN_NULL)
        return;
    PMPI_Win_unlock_all(w->win);
    free(w->size);
    free(w->unit);
    *w = (cx_rma_win){MPI_WIN_NULL, NULL, NULL, NULL};
}

void cx_rma_destroy(cx_rma *rt)
{
    for (int i = 0; i < rt->nwins; i++)
        cx_rma_unregister(rt, i);
    free(rt->wins);
    PMPI_Win_unlock_all(rt->ctl);
    cx_rma_win_free(&rt->ctl, rt->ctl_base);
    PMPI_Comm_free(&rt->comm);
    free(rt);
}
