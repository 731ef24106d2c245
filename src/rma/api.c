/* The public one-sided API (include/collx.h, "one-sided broadcast"): a
 * runtime per communicator, windows registered with it (an attribute on
 * the window leads back to the runtime and the wid), the root's
 * CX_Rma_bcast and the completion calls. Errors go through the
 * communicator's (init, finalize) or the window's error handler. */
#include <stdlib.h>
#include <pthread.h>
#include "rma.h"

typedef struct reg {
    cx_rma *rt;
    int wid;
} reg;

static int win_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

static void make_keyval(void)
{
    PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &win_keyval, NULL);
}

static reg *find(MPI_Win win)
{
    reg *r = NULL;
    int flag = 0;
    pthread_once(&keyval_once, make_keyval);
    if (win == MPI_WIN_NULL || win_keyval == MPI_KEYVAL_INVALID)
        return NULL;
    PMPI_Win_get_attr(win, win_keyval, &r, &flag);
    return flag ? r : NULL;
}

/* Through the window's handler. With MPI_ERRORS_RETURN the code is just
 * returned (SMPI 3.32 crashes in MPI_Win_call_errhandler with it). */
static int win_error(MPI_Win win, int err)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (!err || win == MPI_WIN_NULL || PMPI_Win_get_errhandler(win, &eh))
        return err;
    int returns = eh == MPI_ERRORS_RETURN;
    PMPI_Errhandler_free(&eh);
    if (!returns)
        PMPI_Win_call_errhandler(win, err);
    return err;
}

int CX_Rma_init(MPI_Comm comm, CX_Rma *rma)
{
    int err, inter = 0;
    if (!rma)
        return cx_error(comm, MPI_ERR_ARG, "CX_Rma_init: rma is NULL");
    *rma = NULL;
    if (comm == MPI_COMM_NULL)
        return cx_error(comm, MPI_ERR_COMM, "CX_Rma_init: MPI_COMM_NULL");
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return cx_error(comm, MPI_ERR_COMM, "CX_Rma_init: intercommunicator");
    cx_progress_poke();
    cx_rma *rt;
    if ((err = cx_rma_open(comm, &rt, NULL)))
        return cx_error(comm, err, "CX_Rma_init: cannot set up the RMA runtime");
    *rma = rt;
    return MPI_SUCCESS;
}

int CX_Rma_finalize(CX_Rma *rma)
{
    if (!rma || !*rma)
        return MPI_ERR_ARG;
    cx_rma *rt = *rma;
    /* Registrations point at the runtime: take them off the windows. */
    for (int i = 0; i < rt->nwins; i++)
        if (rt->wins[i].win != MPI_WIN_NULL) {
            reg *r = find(rt->wins[i].win);
            if (r && r->rt == rt) {
                PMPI_Win_delete_attr(rt->wins[i].win, win_keyval);
                free(r);
            }
        }
    *rma = NULL;
    return cx_rma_close(rt, 0);
}

int CX_Rma_engine(CX_Rma rma, const char **engine)
{
    if (!rma || !engine)
        return MPI_ERR_ARG;
    *engine = cx_rma_engine_name(rma);
    return MPI_SUCCESS;
}

int CX_Rma_win_register(CX_Rma rma, MPI_Win win, int *wid)
{
    int err;
    if (!rma || !wid || win == MPI_WIN_NULL)
        return MPI_ERR_ARG;
    if (find(win))
        return win_error(win, MPI_ERR_WIN);   /* already registered */
    reg *r = malloc(sizeof *r);
    if (!r)
        return win_error(win, MPI_ERR_NO_MEM);
    if ((err = cx_rma_register(rma, win, wid))) {
        free(r);
        return win_error(win, err);
    }
    *r = (reg){rma, *wid};
    if ((err = PMPI_Win_set_attr(win, win_keyval, r))) {
        cx_rma_unregister(rma, *wid);
        free(r);
        return win_error(win, err);
    }
    return MPI_SUCCESS;
}

int CX_Rma_win_unregister(MPI_Win win)
{
    reg *r = find(win);
    if (!r)
        return win_error(win, MPI_ERR_WIN);
    int err = cx_rma_flush(r->rt);
    cx_rma_unregister(r->rt, r->wid);
    PMPI_Win_delete_attr(win, win_keyval);
    free(r);
    return win_error(win, err);
}

int CX_Rma_bcast(const void *buf, int count, MPI_Datatype type, int root, MPI_Win win,
                 MPI_Aint disp, int alg)
{
    int err, size = 0;
    reg *r = find(win);
    if (!r)
        return win_error(win, MPI_ERR_WIN);
    cx_rma *rt = r->rt;
    cx_progress_poke();
    if (root != rt->rank)
        return win_error(win, MPI_ERR_ROOT);
    if (count < 0)
        return win_error(win, MPI_ERR_COUNT);
    if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size))
        return win_error(win, MPI_ERR_TYPE);
    if (alg != CX_RMA_LINEAR && alg != CX_RMA_BINOMIAL)
        return win_error(win, MPI_ERR_ARG);
    /* The window receives the packed bytes: contiguous data is put as it
     * is, anything else is packed first. */
    MPI_Aint lb, extent, tlb, textent, bytes = (MPI_Aint)count * size;
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &tlb, &textent);
    /* NULL is MPI_BOTTOM: the data's address must then be in the type */
    if (count > 0 && !buf && tlb == 0)
        return win_error(win, MPI_ERR_BUFFER);
    const char *src = (const char *)buf + tlb;
    char *packed = NULL;
    if (bytes > 0 && !(size == extent && extent == textent)) {
        if (!(packed = malloc((size_t)bytes)))
            return win_error(win, MPI_ERR_NO_MEM);
        if ((err = cx_copy_charged(buf, count, type, packed, bytes, MPI_PACKED))) {
            free(packed);
            return win_error(win, err);
        }
        src = packed;
    }
    const int64_t aux[CX_RMA_AUX] = {0, 0};
    err = cx_rma_bcast_bytes(rt, src, bytes, r->wid, disp, alg, aux);
    free(packed);
    return win_error(win, err);
}

int CX_Rma_bcast_flush(MPI_Win win)
{
    reg *r = find(win);
    return r ? win_error(win, cx_rma_flush(r->rt)) : win_error(win, MPI_ERR_WIN);
}

int CX_Rma_bcast_test(MPI_Win win, int *flag)
{
    reg *r = find(win);
    if (!r || !flag)
        return win_error(win, r ? MPI_ERR_ARG : MPI_ERR_WIN);
    cx_rma_poll(r->rt->comm);
    *flag = !atomic_load(&r->rt->active);
    return win_error(win, *flag ? atomic_exchange(&r->rt->err, MPI_SUCCESS) : MPI_SUCCESS);
}

int CX_Rma_bcast_arrived(MPI_Win win, long long *count)
{
    reg *r = find(win);
    if (!r || !count)
        return win_error(win, r ? MPI_ERR_ARG : MPI_ERR_WIN);
    cx_rma_poll(r->rt->comm);
    *count = atomic_load(&r->rt->delivered);
    return MPI_SUCCESS;
}
