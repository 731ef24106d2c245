/* PMPI interposer: LD_PRELOAD=libcollx_pmpi.so routes every MPI
 * collective, blocking (MPI_<Name>) and nonblocking (MPI_I<name>), to
 * collx, which runs the algorithm selected for it or, with nothing
 * selected (and for whatever it cannot serve, e.g. intercommunicators),
 * the library's PMPI_ version. A nonblocking call that collx serves
 * returns a generalized request that collx completes (src/core/engine/request.c);
 * the completion calls are interposed too (complete.c), so that they move
 * collx's schedules on while they wait. One wrapper per collective of
 * include/collx_colls.h, and MPI_Init(_thread) for COLLX_STATS and
 * COLLX_TUNE_ONLINE. Built with smpicc too (libcollx_smpi_interpose.a,
 * linked into the program: cmake/smpi_interpose.cmake), where MPI_Init and
 * MPI_Finalize are collx's SMPI ones (core/api/smpi_finalize.c). */
#include "../core/persist/persist.h"
#include "which_mpi.h"

#define CX_WRAP(E, N, n)                                                       \
    int MPI_##N(CX_DECLS(E)) { return CX_##N(CX_NAMES(E)); }                   \
    int MPI_I##n(CX_DECLS(E), MPI_Request *request)                            \
    {                                                                          \
        cx_args a = {CX_PARAMS_##E(CX_ARG_INIT) .coll = CX_COLL_##E};          \
        return cx_dispatch_mpi(&a, request);                                   \
    }
CX_COLLECTIVES(CX_WRAP)

#ifndef SMPI_H
/* Every rank's settings are compared first (settings.c).
 * COLLX_STATS reduces every rank's counters at MPI_Finalize: each rank
 * hooks it at MPI_Init, also a rank that never calls a collective.
 * COLLX_TUNE_ONLINE reads its cache there (collective over
 * MPI_COMM_WORLD), and hooks its end at MPI_Finalize. */
int MPI_Init(int *argc, char ***argv)
{
    cx_pmpi_check_mpi();
    int err = PMPI_Init(argc, argv);
    if (err == MPI_SUCCESS) {
        cx_settings_check();
        cx_stats_report_at_finalize();
        cx_online_start();
    }
    return err;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    cx_pmpi_check_mpi();
    int err = PMPI_Init_thread(argc, argv, required, provided);
    if (err == MPI_SUCCESS) {
        cx_settings_check();
        cx_stats_report_at_finalize();
        cx_online_start();
    }
    return err;
}
#endif
