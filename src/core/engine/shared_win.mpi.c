/* Node-shared windows without MPICH's search for a common address.
 *
 * MPICH 4 maps a shared window at an address free on every rank of the
 * node (its "symmetric heap": up to MPIR_CVAR_SHM_SYMHEAP_RETRY tries),
 * and checks each candidate range page by page with msync: 0.15 ms per
 * MiB (collx's 256 MiB segment for nonblocking calls: 40 ms on idle
 * cores, 95 ms when they are shared; strace: 196608 msync calls for one
 * window). collx addresses its segments by offset and needs no common
 * address, so around its own windows the tries are set to 0 through
 * MPI_T and restored after. Only where no rank of the communicator runs
 * MPI_THREAD_MULTIPLE: then no other thread can allocate a window while
 * the value is changed (MPICH needs it alike on the node's ranks).
 * Where the variable does not exist (Open MPI) nothing changes, and
 * MPI_T is not even started: Open MPI 4's MPI_T_init opens every
 * component it has (0.2 s where PSM's libraries are installed, on the
 * first hierarchical call of a program: 10 times PARPACK's whole run at
 * two ranks, issue 74's real runs). SMPI's windows are
 * shared_win.smpi.c's. */
#include <string.h>
#include "comm.h"

#define SYMHEAP_TRIES "MPIR_CVAR_SHM_SYMHEAP_RETRY"

static int found;   /* 0: not looked yet, 1: the handle below, -1: none */
static MPI_T_cvar_handle tries;

/* MPICH's family (Intel MPI's library says MPICH too), asked of the
 * library that runs, not of the header: the MPI 5 ABI build runs under
 * either. */
static int mpich_runs(void)
{
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (PMPI_Get_library_version(text, &len) != MPI_SUCCESS)
        return 0;
    text[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] = 0;
    return strstr(text, "MPICH") || strstr(text, "Intel");
}

static int have_tries(void)
{
    int provided, index, count;
    if (found)
        return found > 0;
    found = -1;
    if (!mpich_runs() || MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return 0;
    if (MPI_T_cvar_get_index(SYMHEAP_TRIES, &index) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(index, NULL, &tries, &count) == MPI_SUCCESS && count == 1)
        found = 1;
    else
        MPI_T_finalize();
    return found > 0;
}

int cx_win_allocate_shared(MPI_Aint bytes, MPI_Comm node, int one_thread_each, void *base,
                           MPI_Win *win)
{
    int old, none = 0;
    if (one_thread_each && have_tries() && MPI_T_cvar_read(tries, &old) == MPI_SUCCESS &&
        old != 0 && MPI_T_cvar_write(tries, &none) == MPI_SUCCESS) {
        int err = PMPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, node, base, win);
        MPI_T_cvar_write(tries, &old);
        return err;
    }
    return PMPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, node, base, win);
}
