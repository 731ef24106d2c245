/* MPI_Init and MPI_Finalize of the SMPI build (collx is linked into the
 * program: by CX_ calls, or whole as the SMPI interposer, whose Fortran
 * MPI_INIT/MPI_FINALIZE call the hooks below: src/pmpi/fortran_init.smpi.c),
 * the one place that does collx's work at the start and the end of MPI
 * there. SimGrid 3.32's MPI_Finalize marks
 * the rank finalized and only then deletes MPI_COMM_SELF's attributes
 * (ActorExt::finalize), so what collx hooks there (the COLLX_STATS
 * report, stats_report.c; online tuning's end, which writes its cache,
 * online_start.c) found every MPI call failing and did nothing. SMPI's
 * MPI_ functions are weak and smpirun loads the program with
 * RTLD_DEEPBIND, so these take the program's calls (the PMPI profiling
 * interface): MPI_Init does what the interposer's does (hooks the report
 * on every rank, also a rank that makes no collx call, which would
 * otherwise not join it; starts online tuning), and MPI_Finalize runs the
 * hooked work while MPI still works. The ranks share one environment, so
 * COLLX_STATS and COLLX_TUNE_ONLINE are on everywhere or nowhere. SMPI
 * build only (a real MPI's: the interposer's src/pmpi/init.mpi.c). */
#include "../engine/engine.h"
#include "../online/online.h"
#include "../stats/stats.h"
#include "smpi_hooks.h"
#include <stdio.h>
#include "../util/util.h"

/* A calibrated platform's per-route costs (sim/run: COLLX_SMPI_ROUTE_*),
 * registered with SimGrid before any message of this rank. A table that
 * does not parse stops the simulation: its figures would be another
 * platform's. */
static void routes_install(void)
{
    char err[256] = "";
    if (!cx_knob_int(CX_KNOB_SMPI_ROUTES))
        return;
    if (cx_smpi_routes_install(cx_knob_str(CX_KNOB_SMPI_ROUTE_NODE),
                               cx_knob_str(CX_KNOB_SMPI_ROUTE_NET), err, sizeof err) < 0) {
        fprintf(stderr, "collx: %s (the platform's collx:route_node, collx:route_net)\n", err);
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
}

void cx_smpi_at_init(void)
{
    routes_install();
    cx_stats_report_at_finalize();
    cx_online_start();
}

/* The nonblocking calls the interposer served and the program freed run
 * to their end first (the peers wait for them). Then, in the order
 * MPI_Finalize deletes MPI_COMM_SELF's attributes (the last set first):
 * online tuning's end, then the report, which lists its sites. */
void cx_smpi_at_finalize(void)
{
    cx_request_drain_mpi();
    cx_stats_report_at_finalize();   /* MPI_Init was not ours: hook now */
    cx_online_end_now();
    cx_stats_report_now();
    /* Every rank is a thread of one process: a rank that ends the program
     * as soon as MPI is finalized (Fortran's STOP calls exit: hypre's
     * ex5f) would end it before rank 0 has written the report. */
    if (cx_stats_on() || cx_online_on())
        PMPI_Barrier(MPI_COMM_WORLD);
}

int MPI_Init(int *argc, char ***argv)
{
    int err = PMPI_Init(argc, argv);
    if (err == MPI_SUCCESS)
        cx_smpi_at_init();
    return err;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int err = PMPI_Init_thread(argc, argv, required, provided);
    if (err == MPI_SUCCESS)
        cx_smpi_at_init();
    return err;
}

int MPI_Finalize(void)
{
    cx_smpi_at_finalize();
    return PMPI_Finalize();
}
