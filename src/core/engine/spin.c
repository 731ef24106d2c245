/* The spin budget of blocking waits (spin.h). Whether the node's ranks
 * fit its cores comes from the launcher (Open MPI, MPICH's hydra and
 * Slurm say how many ranks share the node); where none says, the
 * machine is taken as not oversubscribed. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "spin.h"
#include "../util/util.h"

int64_t cx_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Ranks on this machine as the launcher tells, 0 when it does not. */
static long ranks_here(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                                 "SLURM_NTASKS_PER_NODE", NULL};
    for (int i = 0; vars[i]; i++) {
        const char *v = cx_env_system(vars[i]);
        long n = v ? strtol(v, NULL, 10) : 0;
        if (n > 0)
            return n;
    }
    return 0;
}

int64_t cx_spin_budget_ns(void)
{
    static _Atomic int64_t budget = -1;   /* racing threads compute the same */
    int64_t known = atomic_load_explicit(&budget, memory_order_relaxed);
    if (CX_SIMULATED)   /* simulated time moves only in MPI calls and sleeps */
        return 0;
    if (known >= 0)
        return known;
    int64_t b;
    if (cx_knob_given(CX_KNOB_SPIN)) {
        b = (int64_t)(cx_knob_real(CX_KNOB_SPIN) * 1000);
    } else {
        long cores = sysconf(_SC_NPROCESSORS_ONLN), ranks = ranks_here();
        b = cores > 0 && ranks > cores ? 0 : (int64_t)CX_SPIN_DEFAULT_US * 1000;
    }
    atomic_store_explicit(&budget, b, memory_order_relaxed);
    return b;
}
