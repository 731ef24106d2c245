/* PMPI interposer: LD_PRELOAD=libcollx_pmpi.so routes every MPI
 * collective, blocking (MPI_<Name>) and nonblocking (MPI_I<name>), to
 * collx, which runs the algorithm selected for it or, with nothing
 * selected (and for whatever it cannot serve, e.g. intercommunicators),
 * the library's PMPI_ version. A nonblocking call that collx serves
 * returns a generalized request that collx completes (src/core/engine/request.c);
 * the completion calls are interposed too (complete.c), so that they move
 * collx's schedules on while they wait. One wrapper per collective of
 * include/collx_colls.h (MPI_Init and MPI_Finalize: init.mpi.c). Built
 * with smpicc too (libcollx_smpi_interpose.a, linked into the program:
 * cmake/smpi_interpose.cmake), where MPI_Init and MPI_Finalize are
 * collx's SMPI ones (core/api/smpi_finalize.smpi.c). */
#include "../core/persist/persist.h"

#define CX_WRAP(E, N, n)                                                       \
    int MPI_##N(CX_DECLS(E)) { return CX_##N(CX_NAMES(E)); }                   \
    int MPI_I##n(CX_DECLS(E), MPI_Request *request)                            \
    {                                                                          \
        cx_args a = {CX_PARAMS_##E(CX_ARG_INIT) .coll = CX_COLL_##E};          \
        return cx_dispatch_mpi(&a, request);                                   \
    }
CX_COLLECTIVES(CX_WRAP)
