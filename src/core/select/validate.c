/* Argument checks, derived from each collective's shape (colls.h).
 *
 * Only arguments that are significant on the calling rank are checked, as
 * MPI does; an error that only one rank can see (e.g. a negative count in
 * the root's recvcounts) is reported there, and the other ranks behave as
 * they would in MPI for an erroneous program. */
#include "select.h"

static int check_type(MPI_Datatype t)
{
    return t == MPI_DATATYPE_NULL ? MPI_ERR_TYPE : MPI_SUCCESS;
}

/* One side: count(s), type(s). v: counts[] (and displs[] unless no_displs);
 * w: types[] too. */
static int check_side(int n, int one, int v, int w, int no_displs, int count,
                      const int *counts, const int *displs, MPI_Datatype type,
                      const MPI_Datatype *types)
{
    int err;
    if (one)
        return count < 0 ? MPI_ERR_COUNT : check_type(type);
    if (!v && !w)
        return MPI_SUCCESS;
    if (!counts || (!displs && !no_displs) || (w && !types))
        return MPI_ERR_ARG;
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0)
            return MPI_ERR_COUNT;
        if (w && counts[i] > 0 && (err = check_type(types[i])))
            return err;
    }
    return w ? MPI_SUCCESS : check_type(type);
}

int cx_validate(const cx_args *a)
{
    unsigned sh = cx_coll_shape(a->coll);
    int p = a->size, is_root = a->rank == a->root, err;
    if ((sh & CX_ROOTED) && (a->root < 0 || a->root >= p))
        return MPI_ERR_ROOT;
    if ((sh & CX_REDUCTION) && a->op == MPI_OP_NULL)
        return MPI_ERR_OP;
    /* MPI_IN_PLACE only where the standard allows it. */
    int s_ip = a->sbuf == MPI_IN_PLACE, r_ip = a->rbuf == MPI_IN_PLACE;
    if (s_ip && !((sh & CX_IP_SEND) || ((sh & CX_IP_SEND_ROOT) && is_root)))
        return MPI_ERR_BUFFER;
    if (r_ip && !((sh & CX_IP_RECV_ROOT) && is_root))
        return MPI_ERR_BUFFER;
    /* Which sides matter here: an in-place side does not. */
    int send = (sh & (CX_SEND_ONE | CX_SEND_V | CX_SEND_W)) && !s_ip &&
               (!(sh & CX_SEND_AT_ROOT) || is_root);
    int recv = (sh & (CX_RECV_ONE | CX_RECV_V | CX_RECV_W)) && !r_ip &&
               (!(sh & CX_RECV_AT_ROOT) || is_root);
    if (sh & CX_REDUCTION)   /* count and datatype describe both buffers */
        recv = 1;
    if (send && (err = check_side(p, sh & CX_SEND_ONE, sh & CX_SEND_V, sh & CX_SEND_W,
                                  0, a->scount, a->scounts, a->sdispls, a->stype,
                                  a->stypes)))
        return err;
    if (recv && (err = check_side(p, sh & CX_RECV_ONE, sh & CX_RECV_V, sh & CX_RECV_W,
                                  sh & CX_RECV_NO_DISPLS, a->rcount, a->rcounts,
                                  a->rdispls, a->rtype, a->rtypes)))
        return err;
    return MPI_SUCCESS;
}
