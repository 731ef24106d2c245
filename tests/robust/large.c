/* Legal calls whose byte totals (or buffer spans) pass 2^31: every
 * registered algorithm of the collectives a case names (found with
 * CX_Algorithm_count/name, native included), results checked against a
 * computed pattern, one algorithm after the other in the same process.
 *
 *   robust_large CASE [--no-native] [--algs a,b] [--colls c,d]
 *
 * cases (sizes for the p given; real bytes unless said):
 *   char29  gather, scatter of MPI_CHAR, count 2^29, roots 0 and p-1
 *           (p=5: this segfaulted with int block offsets)
 *   char30  gather, scatter of MPI_CHAR, count 2^30+1 (subtree messages
 *           of more than INT_MAX elements), root 0
 *   long    gather of MPI_LONG, count 134217729 (the case), root 0
 *   blocks  gather, scatter, gatherv, scatterv of 1 MiB contiguous
 *           elements, a few hundred per rank, totals above 2^31
 *   all     bcast, allgather, allgatherv, alltoallv of 1 MiB elements,
 *           every rank's buffer above 2^31 bytes
 *   rsb     reduce_scatter_block of MPI_LONG, in place, sum above 2^31
 *   span    every collective with data, on an element of 512 bytes of int64
 *           data in a 1 MiB extent: buffer spans above 2^31 bytes but
 *           little memory (pages never touched are never allocated);
 *           reductions with a user-defined sum
 * Prints one line per algorithm with its time; exit code 1 on failure.
 * A native (PMPI_) failure is a NOTE, not a failure: it is the MPI's;
 * so is the failure of an algorithm that handed the call to native (its
 * needs did not hold: the line says so). MPICH's own MPI_Scatter is not
 * run with real bytes above 2^31: it crashes (MPICH 4.0.2). */
#include <stdint.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collx.h"
#include "robust.h"
#include "robust_calls.h"

static int failures, notes, rank, size;
static MPI_Comm comm;

/* ---- a case: collectives x algorithms x roots ---- */
static const char *only_algs, *only_colls;

static int listed(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
            return 1;
    return 0;
}

static int no_native, mpich;

static void run_coll(const char *casename, const char *coll, const etype *e, MPI_Aint count,
                     const int *roots, int nroots)
{
    static int salt = 1;
    if (!listed(only_colls, coll))
        return;
    int nalg = CX_Algorithm_count(coll);
    if (nalg < 1) {
        if (rank == 0)
            fprintf(stderr, "FAIL large %s: collx does not know %s\n", casename, coll);
        failures++;
        return;
    }
    for (int a = 0; a < nalg; a++) {
        const char *alg = CX_Algorithm_name(coll, a);
        int native = !strcmp(alg, "native");
        if (!listed(only_algs, alg) || (native && no_native))
            continue;
        /* Seen with MPICH 4.0.2 (ch4:ucx): a segfault in memcpy inside
         * PMPI_Scatter for each of char29, char30 and blocks; also where an
         * algorithm that needs a node segment of this size (above
         * COLLX_SHM_MAX) runs native instead. */
        if (mpich && !strcmp(coll, "scatter") && !e->sparse &&
            (native || (CX_Algorithm_requires(coll, a) & CX_REQ_SHM))) {
            if (rank == 0)
                printf("large: %-6s %-20s %-18s NOTE: not run, MPICH's own MPI_Scatter "
                       "crashes above 2^31 bytes%s\n", casename, coll, alg,
                       native ? "" : " (and this one would run it)");
            notes++;
            continue;
        }
        CX_Algorithm_set(coll, alg);
        for (int ri = 0; ri < nroots; ri++) {
            call c = {.coll = coll, .e = e, .count = count, .root = roots[ri],
                      .salt = salt++, .comm = comm};
            if (rank == 0) {   /* where it crashed or hung, if it does */
                fprintf(stderr, "large: %s %s/%s root=%d ...\n", casename, coll, alg, c.root);
                fflush(stderr);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            long before = CX_Algorithm_calls(coll, alg);
            double t0 = MPI_Wtime();
            int err = rc_run(&c);
            double t = MPI_Wtime() - t0;
            /* Did alg run, or did it hand the call to native (its needs)? */
            int fell_back = !native && CX_Algorithm_calls(coll, alg) == before;
            native |= fell_back;
            int cls = rb_class(err), bad = err != MPI_SUCCESS || c.bad >= 0, any = 0;
            if (bad)
                fprintf(stderr, "%s large %s %s/%s p=%d rank=%d root=%d type=%s count=%ld: %s%s "
                        "(first wrong byte %lld of %s)\n", native ? "NOTE (the MPI's own)" : "FAIL",
                        casename, coll, alg, size, rank, c.root, e->name, (long)count,
                        err ? "returned " : "wrong data", err ? rb_class_name(cls) : "",
                        c.bad, c.bad >= 0 ? c.where : "-");
            MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (rank == 0)
                printf("large: %-6s %-20s %-18s root=%d %-5s %6.2f s%s\n", casename, coll,
                       alg, c.root, any ? (native ? "NOTE" : "FAIL") : "ok", t,
                       fell_back ? "  (ran native: its needs do not hold)" : "");
            fflush(stdout);
            if (any && native)
                notes++;
            else if (any)
                failures++;
        }
        CX_Algorithm_set(coll, NULL);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *cs = argc > 1 ? argv[1] : "";
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--no-native"))
            no_native = 1;
        else if (!strcmp(argv[i], "--algs") && i + 1 < argc)
            only_algs = argv[++i];
        else if (!strcmp(argv[i], "--colls") && i + 1 < argc)
            only_colls = argv[++i];
    }
    if (size > 64)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    rc_make_types();
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    mpich = strstr(lib, "MPICH") != NULL;
    int p = size, first_last[2] = {0, p - 1}, zero = 0, last = p - 1;
    double t0 = MPI_Wtime();
    /* Counts of 1 MiB elements: each rank's share of 2100 MiB (> 2^31). */
    MPI_Aint share = (2100 + p - 1) / p;
    if (!strcmp(cs, "char29")) {
        run_coll(cs, "gather", &t_char, (MPI_Aint)1 << 29, first_last, 2);
        run_coll(cs, "scatter", &t_char, (MPI_Aint)1 << 29, first_last, 2);
    } else if (!strcmp(cs, "char30")) {
        run_coll(cs, "gather", &t_char, ((MPI_Aint)1 << 30) + 1, &zero, 1);
        run_coll(cs, "scatter", &t_char, ((MPI_Aint)1 << 30) + 1, &zero, 1);
    } else if (!strcmp(cs, "long")) {
        run_coll(cs, "gather", &t_long, 134217729, &zero, 1);
    } else if (!strcmp(cs, "blocks")) {
        run_coll(cs, "gather", &t_mib, share, &zero, 1);
        run_coll(cs, "scatter", &t_mib, share, &zero, 1);
        run_coll(cs, "gatherv", &t_mib, share, &last, 1);
        run_coll(cs, "scatterv", &t_mib, share, &last, 1);
    } else if (!strcmp(cs, "all")) {
        run_coll(cs, "bcast", &t_mib, 2100, &last, 1);
        run_coll(cs, "allgather", &t_mib, share, &zero, 1);
        run_coll(cs, "allgatherv", &t_mib, share, &zero, 1);
        run_coll(cs, "alltoallv", &t_mib, 2100 / p + 1, &zero, 1);
    } else if (!strcmp(cs, "rsb")) {
        /* p blocks of rc longs in place: p*rc*8 > 2^31. */
        run_coll(cs, "reduce_scatter_block", &t_long, ((MPI_Aint)1 << 31) / 8 / p + 4096,
                 &zero, 1);
    } else if (!strcmp(cs, "span")) {
        /* 1 MiB extents: per-rank shares of 2100 elements, single
         * buffers of 2100 elements. */
        static const char *rooted[] = {"gather", "scatter", "gatherv", "scatterv"};
        for (int i = 0; i < 4; i++)
            run_coll(cs, rooted[i], &t_span, share, first_last, 2);
        run_coll(cs, "bcast", &t_span, 2100, first_last, 2);
        run_coll(cs, "allgather", &t_span, share, &zero, 1);
        run_coll(cs, "allgatherv", &t_span, share, &zero, 1);
        run_coll(cs, "alltoall", &t_span, share, &zero, 1);
        run_coll(cs, "alltoallv", &t_span, 2100 / p + 1, &zero, 1);
        run_coll(cs, "alltoallw", &t_span, 2100 / p + 1, &zero, 1);
        run_coll(cs, "reduce", &t_span, 2100, first_last, 2);
        run_coll(cs, "allreduce", &t_span, 2100, &zero, 1);
        run_coll(cs, "reduce_scatter_block", &t_span, share, &zero, 1);
        run_coll(cs, "reduce_scatter", &t_span, share, &zero, 1);
        run_coll(cs, "scan", &t_span, 2100, &zero, 1);
        run_coll(cs, "exscan", &t_span, 2100, &zero, 1);
    } else {
        if (rank == 0)
            fprintf(stderr, "usage: robust_large char29|char30|long|blocks|all|rsb|span "
                    "[--no-native] [--algs a,b] [--colls c,d]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double t = MPI_Wtime() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long rss = ru.ru_maxrss, rss_sum = 0;   /* KiB */
    MPI_Reduce(&rss, &rss_sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("large %s: peak resident memory, summed over ranks: %.1f GiB\n", cs,
               rss_sum / 1048576.0);
    if (rank == 0) {
        if (failures)
            printf("large %s: FAILED (%d algorithm runs wrong, p=%d, %.0f s)\n", cs, failures,
                   p, t);
        else
            printf("large %s: OK (p=%d, %.0f s%s)\n", cs, p, t,
                   notes ? "; about the MPI's own calls, see NOTE" : "");
    }
    MPI_Comm_free(&comm);
    rc_free_types();
    MPI_Finalize();
    return failures ? 1 : 0;
}
