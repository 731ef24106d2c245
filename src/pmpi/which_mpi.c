/* The interposer built for one MPI, preloaded into a program of the other
 * (issue 51): both libraries end up in the process, the program's calls go
 * to one and collx's PMPI_ calls to the other, and the program crashes
 * somewhere inside MPI_Init. Before anything is called, look for a symbol
 * only the other MPI defines and stop with a message that says which
 * interposer to take. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
#include <mpi.h>
#include "which_mpi.h"

#if defined(OMPI_MAJOR_VERSION)
#define BUILT_FOR "Open MPI"
#define OTHER "MPICH"
#define OTHER_SYMBOL "MPIR_Err_create_code"
#elif defined(MPICH_VERSION)
#define BUILT_FOR "MPICH"
#define OTHER "Open MPI"
#define OTHER_SYMBOL "ompi_mpi_init"
#endif

void cx_pmpi_check_mpi(void)
{
#ifdef OTHER_SYMBOL
    void *other = dlsym(RTLD_DEFAULT, OTHER_SYMBOL);
    if (!other)
        return;
    Dl_info where = {0}, self = {0};
    dladdr(other, &where);
    dladdr((void *)cx_pmpi_check_mpi, &self);
    fprintf(stderr, "collx: error: %s was built for " BUILT_FOR ", but this program also "
            "loads " OTHER " (%s): preload the interposer built for " OTHER " (a build "
            "configured with its mpicc). Stopping before MPI_Init.\n",
            self.dli_fname ? self.dli_fname : "the interposer",
            where.dli_fname ? where.dli_fname : "its library");
    fflush(stderr);
    _exit(2);
#endif
}
