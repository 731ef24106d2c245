/* The interposer's MPI_Init, MPI_Init_thread and MPI_Finalize on a real
 * MPI (SMPI's are collx's own: core/api/smpi_finalize.smpi.c). Before
 * MPI_Init: the interposer must be the running MPI's (which_mpi.c). */
#include "../core/persist/persist.h"
#include "which_mpi.h"

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

/* A request the program freed (MPI_Request_free) still completes: its
 * schedule runs to its end before MPI goes (the peers wait for it). */
int MPI_Finalize(void)
{
    cx_request_drain_mpi();
    return PMPI_Finalize();
}
