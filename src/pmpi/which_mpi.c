/* The interposer built for one MPI, run under another (issues 51, 75).
 * Preloaded into a program of the other family, both libraries end up in
 * the process, the program's calls go to one and collx's PMPI_ calls to
 * the other, and the program crashes somewhere inside MPI_Init: before
 * anything is called, look for a symbol only the other family defines.
 * Within a family the soname stays (libmpi.so.40 for Open MPI 4 and 5,
 * libmpi.so.12 for MPICH 4, 5 and Intel MPI), so a library path that
 * finds another release loads it silently: compare the library's own
 * version (MPI_Get_library_version may be called before MPI_Init) with
 * the one collx was compiled for, family and major version. Either stops
 * with one line that names both and what to do. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "which_mpi.h"
#include "../core/util/util.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#if defined(OMPI_MAJOR_VERSION)
#define BUILT_FOR "Open MPI"
#define BUILT_VERSION STR(OMPI_MAJOR_VERSION) "." STR(OMPI_MINOR_VERSION) "." STR(OMPI_RELEASE_VERSION)
#define BUILT_MAJOR OMPI_MAJOR_VERSION
#define OTHER "MPICH"
#define OTHER_SYMBOL "MPIR_Err_create_code"
#elif defined(I_MPI_VERSION)   /* before MPICH: Intel MPI defines both */
#define BUILT_FOR "Intel MPI"
#define BUILT_VERSION I_MPI_VERSION
#define BUILT_MAJOR atoi(I_MPI_VERSION)
#define OTHER "Open MPI"
#define OTHER_SYMBOL "ompi_mpi_init"
#elif defined(MPICH_VERSION)
#define BUILT_FOR "MPICH"
#define BUILT_VERSION MPICH_VERSION
#define BUILT_MAJOR atoi(MPICH_VERSION)
#define OTHER "Open MPI"
#define OTHER_SYMBOL "ompi_mpi_init"
#endif

#ifdef OTHER_SYMBOL
static const char *self_name(void)
{
    static Dl_info self;
    dladdr((void *)cx_pmpi_check_mpi, &self);
    return self.dli_fname ? self.dli_fname : "the interposer";
}

#endif

void cx_pmpi_check_mpi(void)
{
#ifdef OTHER_SYMBOL
    void *other = dlsym(RTLD_DEFAULT, OTHER_SYMBOL);
    if (other) {
        Dl_info where = {0};
        dladdr(other, &where);
        fprintf(stderr, "collx: error: %s was built for " BUILT_FOR ", but this program also "
                "loads " OTHER " (%s): preload the interposer built for " OTHER " (a build "
                "configured with its mpicc). Stopping before MPI_Init.\n", self_name(),
                where.dli_fname ? where.dli_fname : "its library");
        fflush(stderr);
        _exit(2);
    }
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    int major;
    if (PMPI_Get_library_version(text, &len) != MPI_SUCCESS)
        return;
    const char *family = cx_mpi_family(text, &major);
    if (!family || (strcmp(family, BUILT_FOR) == 0 && major == BUILT_MAJOR))
        return;   /* an MPI collx cannot name is let be */
    text[strcspn(text, "\n,")] = 0;
    fprintf(stderr, "collx: error: %s was built for " BUILT_FOR " " BUILT_VERSION ", but this "
            "program runs %s: collx's code and constants are that build's; preload the "
            "interposer built with this MPI's mpicc (or fix the library path that found "
            "it). Stopping before MPI_Init.\n", self_name(), text);
    fflush(stderr);
    _exit(2);
#endif
}
