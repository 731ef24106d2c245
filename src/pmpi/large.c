/* MPI-4's large-count collectives (MPI_<Name>_c, MPI_I<name>_c,
 * MPI_<Name>_init_c; MPICH 4, and what mpi4py 4 calls there), served by
 * the same code as the int ones: when every count and displacement the
 * calling rank passes fits in an int (collx's call record holds ints; its
 * schedules are 64-bit inside), the call becomes the int call, with its
 * arrays converted into scratch copies that a call outliving the wrapper
 * keeps (scratch_arrays); otherwise, on intercommunicators, and with
 * nothing selected (blocking and nonblocking: the persistent one is
 * collx's, persistent.c says why) it is the MPI's own PMPI_..._c. Every rank of a call decides alone: a call whose
 * counts fit on some ranks only would mix collx's algorithm with the
 * MPI's, so a count above INT_MAX must be one every rank sees (the
 * regular collectives' counts, which MPI requires to match) or else the
 * selection must leave that collective to the MPI. */
#include <limits.h>
#include <stdlib.h>
#include "../core/persist/persist.h"

#if MPI_VERSION >= 4   /* MPICH 4-5, Intel MPI, the MPI 5 ABI (mpi_abi.h) */

/* The _c parameter types, by (kind, field) of CX_PARAMS_<UPPER>. */
#define CX_LT_SBUF_sbuf const void *
#define CX_LT_RBUF_rbuf void *
#define CX_LT_INT_scount MPI_Count
#define CX_LT_INT_rcount MPI_Count
#define CX_LT_INT_root int
#define CX_LT_INTS_scounts const MPI_Count *
#define CX_LT_INTS_rcounts const MPI_Count *
#define CX_LT_INTS_sdispls const MPI_Aint *
#define CX_LT_INTS_rdispls const MPI_Aint *
#define CX_LT_TYPE_stype MPI_Datatype
#define CX_LT_TYPE_rtype MPI_Datatype
#define CX_LT_TYPES_stypes const MPI_Datatype *
#define CX_LT_TYPES_rtypes const MPI_Datatype *
#define CX_LT_OP_op MPI_Op
#define CX_LT_COMM_comm MPI_Comm
#define CX_LDECL(kind, name, field) , CX_LT_##kind##_##field name
#define CX_LDECLS(E) CX_DROP_FIRST(CX_PARAMS_##E(CX_LDECL))

/* One call's conversion. */
typedef struct large {
    cx_args a;
    int fits, p;
    int send_arrays, recv_arrays;   /* the v arrays significant here */
    int *ints[4];                   /* scratch copies */
    int n;
} large;

/* First pass: the buffers, root and communicator, which say which
 * arrays are significant on this rank. */
#define CX_LP_SBUF_sbuf(x) L.a.sbuf = (x);
#define CX_LP_RBUF_rbuf(x) L.a.rbuf = (x);
#define CX_LP_INT_root(x) L.a.root = (x);
#define CX_LP_COMM_comm(x) L.a.comm = (x);
#define CX_LP_INT_scount(x)
#define CX_LP_INT_rcount(x)
#define CX_LP_INTS_scounts(x)
#define CX_LP_INTS_rcounts(x)
#define CX_LP_INTS_sdispls(x)
#define CX_LP_INTS_rdispls(x)
#define CX_LP_TYPE_stype(x)
#define CX_LP_TYPE_rtype(x)
#define CX_LP_TYPES_stypes(x)
#define CX_LP_TYPES_rtypes(x)
#define CX_LP_OP_op(x)
#define CX_LPEEK(kind, name, field) CX_LP_##kind##_##field(name)

static void begin(large *L, cx_coll coll)
{
    unsigned sh = cx_coll_shape(coll);
    int inter = 0, rank = 0;
    L->a.coll = coll;
    L->a.scratch_arrays = 1;
    L->fits = L->a.comm != MPI_COMM_NULL;
    L->n = 0;
    L->p = 0;
    if (L->fits)
        PMPI_Comm_test_inter(L->a.comm, &inter);
    L->fits &= !inter;   /* the MPI's own call there (collx serves none) */
    if (!L->fits)
        return;
    PMPI_Comm_rank(L->a.comm, &rank);
    PMPI_Comm_size(L->a.comm, &L->p);
    int root = !(sh & CX_ROOTED) || rank == L->a.root;
    L->send_arrays = (sh & (CX_SEND_V | CX_SEND_W)) && L->a.sbuf != MPI_IN_PLACE &&
                     (!(sh & CX_SEND_AT_ROOT) || root);
    L->recv_arrays = (sh & (CX_RECV_V | CX_RECV_W)) && (!(sh & CX_RECV_AT_ROOT) || root);
}

static int to_int(large *L, MPI_Count c)
{
    if (c > INT_MAX || c < INT_MIN)
        L->fits = 0;
    return (int)c;
}

/* An array of p counts or displacements as ints (NULL where it is not
 * significant: collx never reads it there). */
#define CX_TO_INTS(name, type)                                                 \
    static const int *name(large *L, const type *v, int significant)           \
    {                                                                          \
        if (!L->fits || !significant || !v)                                    \
            return NULL;                                                       \
        int *c = malloc(sizeof *c * (size_t)(L->p ? L->p : 1));                \
        if (!c) {                                                              \
            L->fits = 0;                                                       \
            return NULL;                                                       \
        }                                                                      \
        L->ints[L->n++] = c;                                                   \
        for (int i = 0; i < L->p; i++)                                         \
            c[i] = to_int(L, (MPI_Count)v[i]);                                 \
        return c;                                                              \
    }
CX_TO_INTS(counts_of, MPI_Count)
CX_TO_INTS(displs_of, MPI_Aint)

static void end(large *L)
{
    for (int i = 0; i < L->n; i++)
        free(L->ints[i]);
}

/* Second pass: the int call record. */
#define CX_LC_SBUF_sbuf(x) (x)
#define CX_LC_RBUF_rbuf(x) (x)
#define CX_LC_INT_scount(x) to_int(&L, x)
#define CX_LC_INT_rcount(x) to_int(&L, x)
#define CX_LC_INT_root(x) (x)
#define CX_LC_INTS_scounts(x) counts_of(&L, x, L.send_arrays)
#define CX_LC_INTS_sdispls(x) displs_of(&L, x, L.send_arrays)
#define CX_LC_INTS_rcounts(x) counts_of(&L, x, L.recv_arrays)
#define CX_LC_INTS_rdispls(x) displs_of(&L, x, L.recv_arrays)
#define CX_LC_TYPE_stype(x) (x)
#define CX_LC_TYPE_rtype(x) (x)
#define CX_LC_TYPES_stypes(x) (x)
#define CX_LC_TYPES_rtypes(x) (x)
#define CX_LC_OP_op(x) (x)
#define CX_LC_COMM_comm(x) (x)
#define CX_LCONV(kind, name, field) L.a.field = CX_LC_##kind##_##field(name);

/* Nothing selected for the collective: the MPI's own _c call, untouched. */
static int unselected(cx_coll coll)
{
    int err;
    const cx_algorithm *alg = cx_select_global(coll, &err);
    return alg && !alg->build;
}

/* The three forms of one collective. */
#define CX_LARGE(E, N, n)                                                      \
    int MPI_##N##_c(CX_LDECLS(E))                                              \
    {                                                                          \
        large L = {0};                                                         \
        if (unselected(CX_COLL_##E))                                           \
            return PMPI_##N##_c(CX_NAMES(E));                                  \
        CX_PARAMS_##E(CX_LPEEK)                                                \
        begin(&L, CX_COLL_##E);                                                \
        CX_PARAMS_##E(CX_LCONV)                                                \
        int err = L.fits ? cx_dispatch(&L.a, NULL) : PMPI_##N##_c(CX_NAMES(E)); \
        end(&L);                                                               \
        return err;                                                            \
    }                                                                          \
    int MPI_I##n##_c(CX_LDECLS(E), MPI_Request *request)                       \
    {                                                                          \
        large L = {0};                                                         \
        if (unselected(CX_COLL_##E))                                           \
            return PMPI_I##n##_c(CX_NAMES(E), request);                        \
        CX_PARAMS_##E(CX_LPEEK)                                                \
        begin(&L, CX_COLL_##E);                                                \
        CX_PARAMS_##E(CX_LCONV)                                                \
        int err = L.fits ? cx_dispatch_mpi(&L.a, request)                      \
                         : PMPI_I##n##_c(CX_NAMES(E), request);                \
        end(&L);                                                               \
        return err;                                                            \
    }                                                                          \
    int MPI_##N##_init_c(CX_LDECLS(E), MPI_Info info, MPI_Request *request)    \
    {                                                                          \
        large L = {0};                                                         \
        CX_PARAMS_##E(CX_LPEEK)                                                \
        begin(&L, CX_COLL_##E);                                                \
        CX_PARAMS_##E(CX_LCONV)                                                \
        int err = L.fits ? cx_plan_init_mpi(&L.a, info, request, NULL)         \
                         : PMPI_##N##_init_c(CX_NAMES(E), info, request);      \
        end(&L);                                                               \
        return err;                                                            \
    }
/* Every collective but barrier (no counts: no _c form). */
#define CX_LARGE_SKIP(E, N, n)
#define CX_LARGE_OF_BARRIER CX_LARGE_SKIP
#define CX_LARGE_OF_BCAST CX_LARGE
#define CX_LARGE_OF_GATHER CX_LARGE
#define CX_LARGE_OF_GATHERV CX_LARGE
#define CX_LARGE_OF_SCATTER CX_LARGE
#define CX_LARGE_OF_SCATTERV CX_LARGE
#define CX_LARGE_OF_ALLGATHER CX_LARGE
#define CX_LARGE_OF_ALLGATHERV CX_LARGE
#define CX_LARGE_OF_ALLTOALL CX_LARGE
#define CX_LARGE_OF_ALLTOALLV CX_LARGE
#define CX_LARGE_OF_ALLTOALLW CX_LARGE
#define CX_LARGE_OF_REDUCE CX_LARGE
#define CX_LARGE_OF_ALLREDUCE CX_LARGE
#define CX_LARGE_OF_REDUCE_SCATTER CX_LARGE
#define CX_LARGE_OF_REDUCE_SCATTER_BLOCK CX_LARGE
#define CX_LARGE_OF_SCAN CX_LARGE
#define CX_LARGE_OF_EXSCAN CX_LARGE
#define CX_LARGE_ONE(E, N, n) CX_LARGE_OF_##E(E, N, n)
CX_COLLECTIVES(CX_LARGE_ONE)

#endif
