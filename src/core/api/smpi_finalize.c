/* MPI_Init and MPI_Finalize of the SMPI build (no interposer there: collx
 * is linked into the program), for COLLX_STATS. SimGrid 3.32's
 * MPI_Finalize marks the rank finalized and only then deletes
 * MPI_COMM_SELF's attributes (ActorExt::finalize), so the report hooked
 * there (stats_report.c) found every MPI call failing and wrote nothing.
 * SMPI's MPI_ functions are weak and smpirun loads the program with
 * RTLD_DEEPBIND, so these take the program's calls (the PMPI profiling
 * interface): MPI_Init hooks the report on every rank, as the interposer
 * does (also a rank that makes no collx call, which would otherwise not
 * join the report), and MPI_Finalize runs it while MPI still works. The
 * ranks share one environment, so COLLX_STATS is on everywhere or
 * nowhere. Empty outside SMPI. */
#include "../stats/stats.h"

#ifdef SMPI_H
int MPI_Init(int *argc, char ***argv)
{
    int err = PMPI_Init(argc, argv);
    if (err == MPI_SUCCESS)
        cx_stats_report_at_finalize();
    return err;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int err = PMPI_Init_thread(argc, argv, required, provided);
    if (err == MPI_SUCCESS)
        cx_stats_report_at_finalize();
    return err;
}

int MPI_Finalize(void)
{
    cx_stats_report_at_finalize();   /* MPI_Init was not ours: hook now */
    cx_stats_report_now();
    return PMPI_Finalize();
}
#endif
