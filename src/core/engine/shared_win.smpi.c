/* Node-shared windows in SMPI (shared_win.mpi.c says what a real MPI's
 * do around them; SimGrid has no address search to avoid). */
#include "comm.h"

int cx_win_allocate_shared(MPI_Aint bytes, MPI_Comm node, int one_thread_each, void *base,
                           MPI_Win *win)
{
    (void)one_thread_each;
    return PMPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, node, base, win);
}
