/* The simulator seam (issue 76): the one header that tells a build for
 * SimGrid SMPI from a build for a real MPI. What only the SMPI build does
 * is in files NAME.smpi.c, what only a real MPI's does in NAME.mpi.c
 * (CMakeLists.txt takes one kind); the rest of collx is one build that
 * calls what is declared here, which a real MPI's build makes inline
 * no-ops so that its calls cost nothing:
 *
 * - CX_SIMULATED (1 in SMPI): for the few branches whose both sides are
 *   plain MPI (SimGrid's quirks, the defaults of a simulated machine);
 *   a compile-time constant, so the other side compiles away;
 * - the charge (engine/charge.smpi.c): what real cores pay and SMPI would
 *   not see: local copies and reductions, a node's flag exchange, a
 *   call's own work;
 * - the bench (util/smpi_bench.smpi.c): collx's host time kept out of
 *   SMPI's computation (smpi_bench.h, force-included in the SMPI build,
 *   renames collx's PMPI_ calls to drop it);
 * - CX_SIM_THREAD_LOCAL: simulated ranks may share a thread. */
#ifndef CX_SIM_H
#define CX_SIM_H

#include <mpi.h>

#ifdef SMPI_H
#define CX_SIMULATED 1
#define CX_SIM_THREAD_LOCAL
void cx_bench_enter(void);
void cx_bench_leave(void);
void cx_bench_drop(void);
/* The simulated seconds of a local copy or reduction of bytes; charged,
 * with the other pending seconds, by cx_charge (which zeroes *pending):
 * one simulated action per run of local steps, not one per step (a rank
 * of an allgather at p = 4096 unpacks 4096 blocks). */
double cx_copy_seconds(MPI_Count bytes);
double cx_reduce_seconds(MPI_Count bytes);
void cx_charge(double *pending);
/* A local copy of bytes done outside the executor, charged at once. */
void cx_charge_copy(MPI_Count bytes);
/* What real cores pay and the simulation would not see (issue 61,
 * calibrated by bench/node_sync, sim/README.md): a node's flag exchange
 * among ranks ranks, seen by a waiter (COLLX_SMPI_SYNC + (ranks - 2) x
 * COLLX_SMPI_SYNC_RANK). */
void cx_charge_sync(int ranks);
/* A collective call's own work: the MPI's (collx:mpi_call) where the MPI
 * serves it, collx's (collx:call) where one of its algorithms does (its
 * messages pay their own overheads). */
void cx_charge_call(int collx_algorithm);
#else
#define CX_SIMULATED 0
#define CX_SIM_THREAD_LOCAL _Thread_local
static inline void cx_bench_enter(void) {}
static inline void cx_bench_leave(void) {}
static inline void cx_bench_drop(void) {}
static inline double cx_copy_seconds(MPI_Count bytes)
{
    (void)bytes;
    return 0;
}
static inline double cx_reduce_seconds(MPI_Count bytes)
{
    (void)bytes;
    return 0;
}
static inline void cx_charge(double *pending)
{
    *pending = 0;
}
static inline void cx_charge_copy(MPI_Count bytes)
{
    (void)bytes;
}
static inline void cx_charge_sync(int ranks)
{
    (void)ranks;
}
static inline void cx_charge_call(int collx_algorithm)
{
    (void)collx_algorithm;
}
#endif

#endif
