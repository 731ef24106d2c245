/* The rank a launcher gave this process, read from its environment, for
 * what a tool prints before MPI_Init (--version, collx_info --list): under
 * mpirun -n 2 only rank 0 prints. 0 when started alone. */
#ifndef CB_LAUNCHER_RANK_H
#define CB_LAUNCHER_RANK_H

#include <stdlib.h>

static inline int cb_launcher_rank(void)
{
    /* Open MPI, PMIx (Open MPI 5, srun --mpi=pmix), Hydra and PMI-2, Slurm */
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v);
    }
    return 0;
}

#endif
