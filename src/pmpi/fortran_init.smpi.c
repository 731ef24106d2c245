/* SMPI only: a Fortran program's MPI_INIT, MPI_INIT_THREAD and
 * MPI_FINALIZE are SimGrid's mpi_init_ ... (they also set up its Fortran
 * handles), which call SimGrid's own C MPI_Init and MPI_Finalize, never
 * collx's (core/api/smpi_finalize.smpi.c): the program is a shared object that
 * SMPI opens with RTLD_DEEPBIND, so only the program's own references
 * reach collx. These take the program's calls, run SimGrid's (the next
 * definition after the program: RTLD_NEXT) and do collx's work around
 * them: COLLX_STATS's report and online tuning, the nonblocking calls
 * still in flight at the end. Real MPIs call MPI_Init from their Fortran
 * bindings or are preloaded: nothing here. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "../core/api/smpi_hooks.h"

typedef void init_fn(MPI_Fint *ierr);
typedef void init_thread_fn(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);

static void *simgrids(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "collx: SMPI's %s not found (%s)\n", name, dlerror());
        abort();
    }
    return f;
}

void mpi_init_(MPI_Fint *ierr);
void mpi_init_(MPI_Fint *ierr)
{
    ((init_fn *)simgrids("mpi_init_"))(ierr);
    if (*ierr == MPI_SUCCESS)
        cx_smpi_at_init();
}

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    ((init_thread_fn *)simgrids("mpi_init_thread_"))(required, provided, ierr);
    if (*ierr == MPI_SUCCESS)
        cx_smpi_at_init();
}

void mpi_finalize_(MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr)
{
    cx_smpi_at_finalize();
    ((init_fn *)simgrids("mpi_finalize_"))(ierr);
}
