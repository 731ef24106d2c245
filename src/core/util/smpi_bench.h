/* collx's own host time is never SMPI's "computation" (only the SMPI
 * build includes this, first in every source: CMakeLists.txt; the
 * functions are the seam's, util/sim.h).
 *
 * SMPI's computation simulation (smpi/simulate-computation:yes, collx
 * predict --compute host) times the host between two of its MPI calls and
 * charges that time as computation. Inside a call collx serves, that
 * would be collx's own code, timed on a host that runs every rank in
 * turn (cold caches, 1-6 us between its calls, 1-4 ms for a
 * communicator's first call at 64 ranks): its cost is the model's
 * (core/util/charge.smpi.c), not this host's. So a call collx serves
 * charges the program's host time up to its entry (cx_bench_enter), and
 * every MPI call collx makes inside it restarts SMPI's timer first
 * (cx_bench_drop, the macros below), as does its return
 * (cx_bench_leave). Without the simulation the timer is only read.
 * The names: the PMPI_ calls of collx's sources that SMPI times around
 * (communication, windows, the clock) and SMPI's clock and sleeps; a new
 * one belongs here. */
#ifndef CX_SMPI_BENCH_H
#define CX_SMPI_BENCH_H
#include <mpi.h>

void cx_bench_drop(void);

#define PMPI_Accumulate(...) (cx_bench_drop(), PMPI_Accumulate(__VA_ARGS__))
#define PMPI_Allgather(...) (cx_bench_drop(), PMPI_Allgather(__VA_ARGS__))
#define PMPI_Allreduce(...) (cx_bench_drop(), PMPI_Allreduce(__VA_ARGS__))
#define PMPI_Barrier(...) (cx_bench_drop(), PMPI_Barrier(__VA_ARGS__))
#define PMPI_Bcast(...) (cx_bench_drop(), PMPI_Bcast(__VA_ARGS__))
#define PMPI_Cancel(...) (cx_bench_drop(), PMPI_Cancel(__VA_ARGS__))
#define PMPI_Comm_dup(...) (cx_bench_drop(), PMPI_Comm_dup(__VA_ARGS__))
#define PMPI_Comm_free(...) (cx_bench_drop(), PMPI_Comm_free(__VA_ARGS__))
#define PMPI_Comm_split(...) (cx_bench_drop(), PMPI_Comm_split(__VA_ARGS__))
#define PMPI_Comm_split_type(...) (cx_bench_drop(), PMPI_Comm_split_type(__VA_ARGS__))
#define PMPI_Fetch_and_op(...) (cx_bench_drop(), PMPI_Fetch_and_op(__VA_ARGS__))
#define PMPI_Gather(...) (cx_bench_drop(), PMPI_Gather(__VA_ARGS__))
#define PMPI_Gatherv(...) (cx_bench_drop(), PMPI_Gatherv(__VA_ARGS__))
#define PMPI_Get(...) (cx_bench_drop(), PMPI_Get(__VA_ARGS__))
#define PMPI_Get_accumulate(...) (cx_bench_drop(), PMPI_Get_accumulate(__VA_ARGS__))
#define PMPI_Iallgather(...) (cx_bench_drop(), PMPI_Iallgather(__VA_ARGS__))
#define PMPI_Iallreduce(...) (cx_bench_drop(), PMPI_Iallreduce(__VA_ARGS__))
#define PMPI_Ibarrier(...) (cx_bench_drop(), PMPI_Ibarrier(__VA_ARGS__))
#define PMPI_Ibcast(...) (cx_bench_drop(), PMPI_Ibcast(__VA_ARGS__))
#define PMPI_Iprobe(...) (cx_bench_drop(), PMPI_Iprobe(__VA_ARGS__))
#define PMPI_Irecv(...) (cx_bench_drop(), PMPI_Irecv(__VA_ARGS__))
#define PMPI_Isend(...) (cx_bench_drop(), PMPI_Isend(__VA_ARGS__))
#define PMPI_Put(...) (cx_bench_drop(), PMPI_Put(__VA_ARGS__))
#define PMPI_Recv(...) (cx_bench_drop(), PMPI_Recv(__VA_ARGS__))
#define PMPI_Recv_init(...) (cx_bench_drop(), PMPI_Recv_init(__VA_ARGS__))
#define PMPI_Reduce(...) (cx_bench_drop(), PMPI_Reduce(__VA_ARGS__))
#define PMPI_Request_free(...) (cx_bench_drop(), PMPI_Request_free(__VA_ARGS__))
#define PMPI_Send(...) (cx_bench_drop(), PMPI_Send(__VA_ARGS__))
#define PMPI_Start(...) (cx_bench_drop(), PMPI_Start(__VA_ARGS__))
#define PMPI_Startall(...) (cx_bench_drop(), PMPI_Startall(__VA_ARGS__))
#define PMPI_Test(...) (cx_bench_drop(), PMPI_Test(__VA_ARGS__))
#define PMPI_Testall(...) (cx_bench_drop(), PMPI_Testall(__VA_ARGS__))
#define PMPI_Testany(...) (cx_bench_drop(), PMPI_Testany(__VA_ARGS__))
#define PMPI_Testsome(...) (cx_bench_drop(), PMPI_Testsome(__VA_ARGS__))
#define PMPI_Wait(...) (cx_bench_drop(), PMPI_Wait(__VA_ARGS__))
#define PMPI_Waitall(...) (cx_bench_drop(), PMPI_Waitall(__VA_ARGS__))
#define PMPI_Waitany(...) (cx_bench_drop(), PMPI_Waitany(__VA_ARGS__))
#define PMPI_Waitsome(...) (cx_bench_drop(), PMPI_Waitsome(__VA_ARGS__))
#define PMPI_Win_allocate(...) (cx_bench_drop(), PMPI_Win_allocate(__VA_ARGS__))
#define PMPI_Win_allocate_shared(...) (cx_bench_drop(), PMPI_Win_allocate_shared(__VA_ARGS__))
#define PMPI_Win_create(...) (cx_bench_drop(), PMPI_Win_create(__VA_ARGS__))
#define PMPI_Win_flush(...) (cx_bench_drop(), PMPI_Win_flush(__VA_ARGS__))
#define PMPI_Win_flush_all(...) (cx_bench_drop(), PMPI_Win_flush_all(__VA_ARGS__))
#define PMPI_Win_free(...) (cx_bench_drop(), PMPI_Win_free(__VA_ARGS__))
#define PMPI_Win_lock_all(...) (cx_bench_drop(), PMPI_Win_lock_all(__VA_ARGS__))
#define PMPI_Win_sync(...) (cx_bench_drop(), PMPI_Win_sync(__VA_ARGS__))
#define PMPI_Win_unlock_all(...) (cx_bench_drop(), PMPI_Win_unlock_all(__VA_ARGS__))
#define PMPI_Wtime(...) (cx_bench_drop(), PMPI_Wtime(__VA_ARGS__))
/* smpicc's smpi_helpers.h makes clock_gettime, nanosleep, usleep and
 * gettimeofday SMPI's, which time around themselves too */
#define smpi_clock_gettime(...) (cx_bench_drop(), smpi_clock_gettime(__VA_ARGS__))
#define smpi_nanosleep(...) (cx_bench_drop(), smpi_nanosleep(__VA_ARGS__))
#define smpi_usleep(...) (cx_bench_drop(), smpi_usleep(__VA_ARGS__))
#define smpi_gettimeofday(...) (cx_bench_drop(), smpi_gettimeofday(__VA_ARGS__))

#endif
