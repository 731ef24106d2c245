/* Persistent collectives through the interposer: MPI-4's MPI_<Name>_init
 * (an MPI of version 4 or later, Open MPI 5) or Open MPI 4.1's MPIX_<Name>_init (mpi-ext.h,
 * pcollreq), as the MPI declares them, plus MPI_Start, MPI_Startall and
 * MPI_Request_free, which must tell collx's persistent requests (persist.c)
 * from the MPI's own. With nothing selected the init is the MPI's own
 * (PMPI_), and with no persistent request of collx alive MPI_Start is
 * PMPI_Start after one relaxed read. SMPI: where SimGrid declares MPI-4's
 * PMPI_<Name>_init (CX_HAVE_COLL_INIT, a symbol check of
 * cmake/smpi_interpose.cmake; SimGrid 3.32 has none, and a program that
 * calls them does not compile there), as MPICH 4's. */
#include "../core/persist/persist.h"
#if defined(OPEN_MPI) && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

#if MPI_VERSION >= 4   /* MPICH 4-5, Intel MPI, the MPI 5 ABI (mpi_abi.h) */
#define CX_INIT_NAME(N) MPI_##N##_init
#define CX_PMPI_INIT_NAME(N) PMPI_##N##_init
#elif defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
/* Open MPI 5 declares MPI-4's names while its MPI_VERSION is still 3 */
#define CX_INIT_NAME(N) MPI_##N##_init
#define CX_PMPI_INIT_NAME(N) PMPI_##N##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define CX_INIT_NAME(N) MPIX_##N##_init
#define CX_PMPI_INIT_NAME(N) PMPIX_##N##_init
#elif defined(CX_HAVE_COLL_INIT)   /* SMPI with MPI-4's calls: cmake/smpi_interpose.cmake */
#define CX_INIT_NAME(N) MPI_##N##_init
#define CX_PMPI_INIT_NAME(N) PMPI_##N##_init
#endif

#ifdef CX_INIT_NAME
#define CX_ARG(kind, name, field) , a->field
/* The MPI 5 ABI (mpi_abi.h) may be MPICH underneath (the only one here
 * is): its own are taken as MPICH's. */
#if defined(MPICH) || defined(MPI_ABI_VERSION)
#define CX_UNTRUSTED_INIT 1
#endif
#ifndef CX_UNTRUSTED_INIT
#define CX_ARGS(E) CX_DROP_FIRST(CX_PARAMS_##E(CX_ARG))

static int native_init(const cx_args *a, MPI_Info info, MPI_Request *req)
{
    switch (a->coll) {
#define CX_CASE(E, N, n) case CX_COLL_##E: return CX_PMPI_INIT_NAME(N)(CX_ARGS(E), info, req);
    CX_COLLECTIVES(CX_CASE)
#undef CX_CASE
    default: return MPI_ERR_INTERN;
    }
}
#endif

/* MPICH's own persistent collectives are not trusted: 4.0.2's
 * MPI_Testall fails over them (MPI_ERR_IN_STATUS, no status in error) and
 * its MPI_Request_free crashes on a persistent bcast of an empty vector;
 * later versions fixed a gather that sent the send buffer's contents of
 * init time (pmodels/mpich#7078, 4.1.2) and a bcast whose state was not
 * reset between starts (pmodels/mpich#7550, 2025); under the MPI 5 ABI
 * MPICH 5.0.2's hung in the contract's persistent run. There, with
 * nothing selected, collx's own persistent request starts MPI_I<name>. */
#ifdef CX_UNTRUSTED_INIT
#define CX_NATIVE_INIT NULL
#else
#define CX_NATIVE_INIT native_init
#endif

#define CX_PWRAP(E, N, n)                                                      \
    int CX_INIT_NAME(N)(CX_DECLS(E), MPI_Info info, MPI_Request *request)      \
    {                                                                          \
        cx_args a = {CX_PARAMS_##E(CX_ARG_INIT) .coll = CX_COLL_##E};          \
        return cx_plan_init_mpi(&a, info, request, CX_NATIVE_INIT);            \
    }
CX_COLLECTIVES(CX_PWRAP)
#endif

int MPI_Start(MPI_Request *request)
{
    return cx_plan_owns(*request) ? cx_plan_start_mpi(request) : PMPI_Start(request);
}

int MPI_Startall(int count, MPI_Request requests[])
{
    int mine = 0, err = MPI_SUCCESS;
    for (int i = 0; i < count && !mine; i++)
        mine = cx_plan_owns(requests[i]);
    if (!mine)
        return PMPI_Startall(count, requests);
    for (int i = 0; i < count && !err; i++)
        err = MPI_Start(&requests[i]);
    return err;
}

/* MPICH calls generalized requests' free_fn here: the request may have to
 * be buried after (request.c). */
int MPI_Request_free(MPI_Request *request)
{
    int err = cx_plan_owns(*request) ? cx_plan_free_mpi(request) : PMPI_Request_free(request);
    cx_request_bury();
    return err;
}
