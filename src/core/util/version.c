/* Which collx this is, for which MPI it was compiled, and which MPI a
 * library's version text names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

int CX_Get_version(int *major, int *minor, int *patch)
{
    if (major)
        *major = COLLX_VERSION_MAJOR;
    if (minor)
        *minor = COLLX_VERSION_MINOR;
    if (patch)
        *patch = COLLX_VERSION_PATCH;
    return MPI_SUCCESS;
}

int CX_Get_library_version(char *version, int len, int *resultlen)
{
    if (!version || len < 1)
        return MPI_ERR_ARG;
#if defined(OMPI_MAJOR_VERSION)
    int n = snprintf(version, (size_t)len, "collx %d.%d.%d for Open MPI %d.%d.%d",
                     COLLX_VERSION_MAJOR, COLLX_VERSION_MINOR, COLLX_VERSION_PATCH,
                     OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION, OMPI_RELEASE_VERSION);
#elif defined(I_MPI_VERSION)   /* before MPICH: Intel MPI defines both */
    int n = snprintf(version, (size_t)len, "collx %d.%d.%d for Intel MPI %s",
                     COLLX_VERSION_MAJOR, COLLX_VERSION_MINOR, COLLX_VERSION_PATCH,
                     I_MPI_VERSION);
#elif defined(MPICH_VERSION)
    int n = snprintf(version, (size_t)len, "collx %d.%d.%d for MPICH %s", COLLX_VERSION_MAJOR,
                     COLLX_VERSION_MINOR, COLLX_VERSION_PATCH, MPICH_VERSION);
#else
    int n = snprintf(version, (size_t)len, "collx %d.%d.%d for MPI %d.%d", COLLX_VERSION_MAJOR,
                     COLLX_VERSION_MINOR, COLLX_VERSION_PATCH, MPI_VERSION, MPI_SUBVERSION);
#endif
    if (resultlen)
        *resultlen = n < len ? n : len - 1;
    return MPI_SUCCESS;
}

const char *cx_mpi_family(const char *text, int *major)
{
    /* Intel's first: its MPICH heritage shows in some of its strings */
    static const struct { const char *name, *mark; } known[] = {
        {"Intel MPI", "Intel(R) MPI Library"}, {"Open MPI", "Open MPI v"},
        {"MPICH", "MPICH Version:"}};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        const char *at = strstr(text, known[i].mark);
        if (!at)
            continue;
        at += strlen(known[i].mark);
        *major = atoi(at + strspn(at, " \t"));
        return known[i].name;
    }
    *major = 0;
    return NULL;
}
