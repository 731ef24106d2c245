/* What a nonblocking call keeps of its arguments. The significant
 * counts and displacements are always copied: MPI asks the program to
 * keep them until the call completes, but the MPIs read them only while
 * the call starts, and programs count on that: mpi4py 4.1.2 frees them as
 * soon as MPI_Iallgatherv and MPI_Ireduce_scatter return. A schedule
 * built later (hier's nonblocking calls, queue.c) read freed memory:
 * counts that sized nothing the node agreed on, hangs and bus errors.
 * Arrays the caller marks as scratch (a->scratch_arrays) were the only
 * ones copied before. MPI lets the program
 * free a datatype once a call that uses it has started (the call still
 * completes as if it had not), but a schedule posts its later rounds and
 * copies with the call's datatypes long after that. So a schedule that
 * outlives its call runs on duplicates of the derived datatypes, freed
 * with it. One duplicate per distinct handle: code that compares a
 * call's types (cx_same_piece) sees the same answers. Only the types
 * significant on this rank are touched (others may be garbage). A
 * reduction with a user-defined operation keeps the program's datatype:
 * MPI hands the operation the call's own handle, and operations compare
 * it with theirs (freeing that datatype before the call completes is
 * then the one case not covered). */
#include <string.h>
#include "engine.h"

static int derived(MPI_Datatype t)
{
    int ni, na, nd, combiner;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner))
        return 0;
    return combiner != MPI_COMBINER_NAMED;
}

static int predefined_op(MPI_Op op)
{
    static const MPI_Op ops[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND,
                                 MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC,
                                 MPI_MINLOC, MPI_REPLACE};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (op == ops[i])
            return 1;
    return 0;
}

typedef struct held {
    MPI_Datatype from[8], to[8];   /* the last distinct ones, round robin */
    int n;
} held;

/* The duplicate of t (t itself when predefined). */
static int hold(cx_sched *s, held *h, MPI_Datatype *t)
{
    if (!derived(*t))
        return MPI_SUCCESS;
    for (int i = 0; i < h->n && i < 8; i++)
        if (h->from[i] == *t) {
            *t = h->to[i];
            return MPI_SUCCESS;
        }
    MPI_Datatype d;
    int err = PMPI_Type_dup(*t, &d);
    if (err || (err = cx_sched_own_type(s, d)))
        return err;
    h->from[h->n % 8] = *t;
    h->to[h->n % 8] = d;
    h->n++;
    *t = d;
    return MPI_SUCCESS;
}

/* An all-to-all-w side: the types of the blocks that exist. */
static int hold_all(cx_sched *s, held *h, int p, const int *counts,
                    const MPI_Datatype **types)
{
    MPI_Datatype *copy = cx_sched_alloc(s, sizeof *copy * (size_t)(p ? p : 1));
    int err = copy ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int i = 0; !err && i < p; i++) {
        copy[i] = (*types)[i];
        if (counts[i] > 0)
            err = hold(s, h, &copy[i]);
    }
    if (!err)
        *types = copy;
    return err;
}

/* A copy of the caller's p ints, owned by s (NULL stays NULL). */
static int keep_ints(cx_sched *s, int p, const int **v)
{
    if (!*v)
        return MPI_SUCCESS;
    int *copy = cx_sched_alloc(s, sizeof *copy * (size_t)(p ? p : 1));
    if (!copy)
        return MPI_ERR_NO_MEM;
    memcpy(copy, *v, sizeof *copy * (size_t)p);
    *v = copy;
    return MPI_SUCCESS;
}

/* The significant v/w arrays, copied into s (the w types are copied by
 * hold_all). */
static int keep_arrays(cx_args *a, cx_sched *s, int send, int recv)
{
    unsigned sh = cx_coll_shape(a->coll);
    int err = MPI_SUCCESS, p = a->size;
    if (send && (sh & (CX_SEND_V | CX_SEND_W)) &&
        !(err = keep_ints(s, p, &a->scounts)))
        err = keep_ints(s, p, &a->sdispls);
    if (!err && recv && (sh & (CX_RECV_V | CX_RECV_W)) &&
        !(err = keep_ints(s, p, &a->rcounts)) && !(sh & CX_RECV_NO_DISPLS))
        err = keep_ints(s, p, &a->rdispls);
    return err;
}

int cx_hold_args(cx_args *a, cx_sched *s)
{
    unsigned sh = cx_coll_shape(a->coll);
    int is_root = a->rank == a->root, err = MPI_SUCCESS;
    int send = (sh & (CX_SEND_ONE | CX_SEND_V | CX_SEND_W)) && a->sbuf != MPI_IN_PLACE &&
               (!(sh & CX_SEND_AT_ROOT) || is_root);
    int recv = (sh & (CX_RECV_ONE | CX_RECV_V | CX_RECV_W)) && a->rbuf != MPI_IN_PLACE &&
               (!(sh & CX_RECV_AT_ROOT) || is_root);
    held h = {.n = 0};
    if ((err = keep_arrays(a, s, send, recv || (sh & CX_REDUCTION))))
        return err;
    if (sh & CX_REDUCTION)
        recv = predefined_op(a->op);
    if (send && (sh & CX_SEND_W) && a->stypes)
        err = hold_all(s, &h, a->size, a->scounts, &a->stypes);
    else if (send)
        err = hold(s, &h, &a->stype);
    if (!err && recv && (sh & CX_RECV_W) && a->rtypes)
        err = hold_all(s, &h, a->size, a->rcounts, &a->rtypes);
    else if (!err && recv)
        err = hold(s, &h, &a->rtype);
    return err;
}
