/* Quirks of the reference MPIs (Open MPI 4.1 and 5.0, MPICH 4.0 and 5.0,
 * Intel MPI 2021): calls whose results are wrong or that crash, found by
 * probing where a probe is safe and by version where the call itself
 * would crash. Each is a NOTE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "quirks.h"

static MPI_Comm comm;
static int rank, size;
static int struct_broken;        /* see struct_large_broken() */
static int rusable[64];          /* reduction case i works with this MPI */
static int gapped_broken[C_NCOLL];
/* see quirk_native_crashes() */
static int ialltoallw_in_place, reduce_in_place, reduce_scatter_in_place;
static int rsb_noncomm_holes;    /* see quirks_probe() */
static int allgather_mixed_rank; /* see quirk_case_ok() */
static int bottom_crashes;       /* see quirk_native_crashes() */

static void note(const char *msg)
{
    if (rank == 0)
        printf("NOTE: %s\n", msg);
}

/* Whether the MPI library reduces rc's type with rc's operation (Open MPI
 * 4.1 and MPICH 4.0 reduce derived types with user operations only). */
static int reducible(const rcase *rc)
{
    char in[64] = {0}, inout[64] = {0};
    return PMPI_Reduce_local(in, inout, 1, rc->side->type, rc->op) == MPI_SUCCESS;
}

/* On one rank, MPICH 4.0's allgatherv copies to displacement 0, ignoring
 * displs[0], and Open MPI 4.1's alltoallw (coll/self) multiplies the byte
 * displacements by the extent: the reference is then wrong (or writes out
 * of bounds) for the gapped layout. */
static int self_ignores_displs(int coll)
{
    int in[8] = {0, 7}, out[8] = {0}, cnt = 1, disp = 1, bytes = 4;
    MPI_Datatype t = MPI_INT;
    if (size != 1)
        return 0;
    if (coll == C_ALLGATHERV)
        PMPI_Allgatherv(&in[1], 1, MPI_INT, out, &cnt, &disp, MPI_INT, comm);
    else if (coll == C_ALLTOALLW)
        PMPI_Alltoallw(in, &cnt, &bytes, &t, out, &cnt, &bytes, &t, comm);
    else
        return 0;
    return out[1] != 7;
}

/* MPICH 4.0.2 (ch4:ucx) truncates a message received into a heterogeneous
 * struct type above its eager size when the sender used MPI_PACKED, which
 * its own scatter/alltoallv do. MPICH 5.0.2 receives that, but its own
 * MPI_Gather of such messages fails with MPI_ERR_TYPE or hangs (1000
 * elements at p = 7, 20000 at p = 4 and p = 5; by version: a probe could
 * hang). Such an MPI cannot be the reference for large struct messages;
 * struct cases then stay below STRUCT_SMALL. */
static int struct_large_broken(const tside *t)
{
    int n = 1000, err = MPI_SUCCESS, broken = 0;
    if (size < 2)
        return 0;
    char *buf = calloc((size_t)n, (size_t)t->ext);
    int bytes;
    MPI_Type_size(t->type, &bytes);
    bytes *= n;
    if (rank == 0)
        err = PMPI_Send(buf, bytes, MPI_PACKED, 1, 0, comm);
    else if (rank == 1)
        err = PMPI_Recv(buf, n, t->type, 0, 0, comm, MPI_STATUS_IGNORE);
    broken = err != MPI_SUCCESS;
    MPI_Allreduce(MPI_IN_PLACE, &broken, 1, MPI_INT, MPI_MAX, comm);
    free(buf);
    return broken;
}

/* Whether the library is Intel MPI (built on MPICH, its own version). */
static int intel_mpi(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(v, &len);
    return strstr(v, "Intel(R) MPI") != NULL;
}

/* MPICH's version as 10000 major + 100 minor + patch, 0 for another MPI;
 * for Intel MPI the MPICH it is built on (its mpi.h's MPICH_VERSION: 3.4
 * in 2021.19, which has 4.0's bugs below). */
static int mpich_version(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len, major = 0, minor = 0, patch = 0;
    MPI_Get_library_version(v, &len);
    const char *at = strstr(v, "MPICH Version:");
#ifdef MPICH_VERSION
    if (!at && intel_mpi() && sscanf(MPICH_VERSION, "%d.%d", &major, &minor) == 2)
        return major * 10000 + minor * 100;
#endif
    if (!at || sscanf(at + 14, " %d.%d.%d", &major, &minor, &patch) < 2)
        return 0;
    return major * 10000 + minor * 100 + patch;
}

static int has_holes(const tside *t)
{
    int bytes;
    MPI_Type_size(t->type, &bytes);
    return bytes < t->ext;
}

void quirks_probe(MPI_Comm c)
{
    char msg[200];
    comm = c;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mpich = mpich_version();
    for (int t = 0; t < tcase_count(); t++)
        if (strcmp(tcase_get(t)->name, "struct") == 0)
            struct_broken = mpich >= 50000 || struct_large_broken(tcase_get(t)->same);
    if (struct_broken) {
        snprintf(msg, sizeof msg, "%s; struct cases limited to count <= %d",
                 mpich >= 50000 ? "this MPICH's MPI_Gather of large struct messages errs "
                                  "or hangs"
                                : "this MPI truncates large MPI_PACKED -> struct messages",
                 STRUCT_SMALL);
        note(msg);
    }
    for (int coll = 0; coll < C_NCOLL; coll++)
        if ((gapped_broken[coll] = self_ignores_displs(coll))) {
            snprintf(msg, sizeof msg, "this MPI's %s on one rank gets the "
                     "displacements wrong; gapped layouts not checked",
                     coll_names[coll]);
            note(msg);
        }
    for (int t = 0; t < rcase_count() && t < 64; t++)
        if (!(rusable[t] = reducible(rcase_get(t)))) {
            snprintf(msg, sizeof msg, "this MPI cannot reduce %s; case not run",
                     rcase_get(t)->name);
            note(msg);
        }
    ialltoallw_in_place = mpich && mpich < 40101;
    reduce_in_place = mpich && mpich < 40102;
    /* these two again in MPICH 5.0.2 (from PyPI), each seen in a program
     * of its own without collx */
    reduce_scatter_in_place = mpich && (mpich < 40100 || mpich >= 50000);
    rsb_noncomm_holes = mpich && (mpich < 40100 || mpich >= 50000);
    if (ialltoallw_in_place)
        note("this MPICH's MPI_Ialltoallw with MPI_IN_PLACE is broken "
             "(pmodels/mpich#6404): native CX_Ialltoallw not run in place");
    if (reduce_in_place)
        note("this MPICH's MPI_Reduce with MPI_IN_PLACE at a root other than 0 "
             "crashes (pmodels/mpich#6540): native CX_Reduce not run there, "
             "reference without MPI_IN_PLACE");
    if (reduce_scatter_in_place)
        note("this MPICH's MPI_(I)reduce_scatter with MPI_IN_PLACE above 512 KB "
             "aborts: native CX_(I)reduce_scatter not run there, reference "
             "without MPI_IN_PLACE");
    allgather_mixed_rank = bottom_crashes = intel_mpi();
    if (bottom_crashes)
        note("this Intel MPI's MPI_Gather at MPI_BOTTOM (absolute datatypes) segfaults "
             "from 1000 elements (a program of its own shows it): native calls at "
             "MPI_BOTTOM not run");
    if (allgather_mixed_rank)
        note("this Intel MPI's MPI_Allgather gives wrong bytes where the datatypes differ "
             "by rank (p = 6, 8; a program of its own shows it): such cases not run");
    if (rsb_noncomm_holes)
        note("this MPICH's MPI_Reduce_scatter(_block) with a non-commutative "
             "operation on a datatype with holes and equal counts gives wrong bytes "
             "and corrupts the heap (hier_ms's columns call it so): such cases not run");
    fflush(stdout);
}

int quirk_case_ok(int coll, int t, int n)
{
    if (coll_has(coll, F_op)) {
        const rcase *rc = rcase_get(t);
        int commutative = 1;
        MPI_Op_commutative(rc->op, &commutative);
        if ((coll == C_REDUCE_SCATTER_BLOCK || coll == C_REDUCE_SCATTER) &&
            rsb_noncomm_holes && !commutative && has_holes(rc->side))
            return 0;
        return rusable[t];
    }
    const tcase *tc = tcase_get(t);
    if (strcmp(tc->name, "struct") == 0 && !quirk_struct_ok(n))
        return 0;
    /* Open MPI 4.1's tuned allgatherv decides with sendtype size x
     * recvcounts, so ranks with different types pick different algorithms
     * and the reference deadlocks. */
    if (coll == C_ALLGATHER && tc->mixed == 2 && allgather_mixed_rank)
        return 0;
    return !(coll == C_ALLGATHERV && tc->mixed == 2);
}

int quirk_gapped_ok(int coll) { return !gapped_broken[coll]; }
int quirk_bottom_ok(void) { return !bottom_crashes; }
int quirk_struct_ok(int n) { return !struct_broken || n <= STRUCT_SMALL; }

/* A crash cannot be told apart by running the call. MPICH before 4.1.1
 * computes MPI_Ialltoallw with MPI_IN_PLACE with the wrong receive type
 * sizes (pmodels/mpich#6404: wrong bytes, truncation, then an assertion
 * aborts); MPICH before 4.1.2 segfaults in MPI_Reduce with MPI_IN_PLACE at
 * a root other than 0 above 2 KB (pmodels/mpich#6540); MPICH 4.0 aborts in
 * MPI_(I)reduce_scatter with MPI_IN_PLACE above 512 KB ("memcpy argument
 * memory ranges overlap" where a rank's block starts at 0). Intel MPI
 * 2021.19 segfaults in MPI_Gather at MPI_BOTTOM with absolute datatypes
 * (1000 elements, p = 2). */
int quirk_native_crashes(const call *c, int mode)
{
    if (c->bottom && bottom_crashes)
        return 1;
    if (!c->in_place)
        return 0;
    if (c->coll == C_ALLTOALLW && mode != MODE_BLOCKING)
        return ialltoallw_in_place;
    if (c->coll == C_REDUCE && mode == MODE_BLOCKING && c->root != 0)
        return reduce_in_place;
    if (c->coll == C_REDUCE_SCATTER && reduce_scatter_in_place) {
        int tsize;
        long total = 0;
        MPI_Type_size(c->rtype, &tsize);
        for (int i = 0; i < c->size; i++)
            total += c->rcounts[i];
        return total * tsize >= 512 * 1024;
    }
    return 0;
}
