/* What collx costs a program that selects nothing: run under
 * LD_PRELOAD=libcollx_pmpi.so, every MPI_<Coll> goes through the
 * interposer to the native call, while PMPI_<Coll> bypasses it. Both are
 * timed in the same run, alternating blocks of calls, and the median block
 * (or with --stat min the fastest, the one least disturbed by other jobs
 * on a loaded machine) gives the time per call. On MPI_COMM_SELF the
 * collective itself is a few tens of nanoseconds, so the interposer's
 * share is visible. Nonblocking ones (i...) are MPI_I<name> + MPI_Wait
 * against PMPI_I<name> + PMPI_Wait. Run with COLLX_RULES, it measures
 * what the rules file costs per call (bench/lookup.sh).
 *
 * usage: overhead [--calls N] [--blocks B] [--stat median|min] [--csv FILE]
 * prints one line per collective: us/call through MPI_, via PMPI_, the
 * difference and the ratio. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

typedef int (*call_fn)(int pmpi, MPI_Comm comm, int *buf);

static int c_barrier(int pm, MPI_Comm c, int *b)
{
    (void)b;
    return pm ? PMPI_Barrier(c) : MPI_Barrier(c);
}

static int c_bcast(int pm, MPI_Comm c, int *b)
{
    return pm ? PMPI_Bcast(b, 1, MPI_INT, 0, c) : MPI_Bcast(b, 1, MPI_INT, 0, c);
}

static int c_allreduce(int pm, MPI_Comm c, int *b)
{
    return pm ? PMPI_Allreduce(b, b + 1, 1, MPI_INT, MPI_SUM, c)
              : MPI_Allreduce(b, b + 1, 1, MPI_INT, MPI_SUM, c);
}

static int c_gather(int pm, MPI_Comm c, int *b)
{
    return pm ? PMPI_Gather(b, 1, MPI_INT, b + 1, 1, MPI_INT, 0, c)
              : MPI_Gather(b, 1, MPI_INT, b + 1, 1, MPI_INT, 0, c);
}

static int c_alltoall(int pm, MPI_Comm c, int *b)
{
    return pm ? PMPI_Alltoall(b, 1, MPI_INT, b + 64, 1, MPI_INT, c)
              : MPI_Alltoall(b, 1, MPI_INT, b + 64, 1, MPI_INT, c);
}

/* Nonblocking: MPI_I<name> + MPI_Wait, both interposed (with nothing in
 * flight the wait is the MPI's after one load), against PMPI_I + PMPI_Wait. */
static int wait_for(int pm, MPI_Request *r)
{
    return pm ? PMPI_Wait(r, MPI_STATUS_IGNORE) : MPI_Wait(r, MPI_STATUS_IGNORE);
}

static int c_ibarrier(int pm, MPI_Comm c, int *b)
{
    MPI_Request r;
    (void)b;
    int err = pm ? PMPI_Ibarrier(c, &r) : MPI_Ibarrier(c, &r);
    return err ? err : wait_for(pm, &r);
}

static int c_iallreduce(int pm, MPI_Comm c, int *b)
{
    MPI_Request r;
    int err = pm ? PMPI_Iallreduce(b, b + 1, 1, MPI_INT, MPI_SUM, c, &r)
                 : MPI_Iallreduce(b, b + 1, 1, MPI_INT, MPI_SUM, c, &r);
    return err ? err : wait_for(pm, &r);
}

static int c_ialltoall(int pm, MPI_Comm c, int *b)
{
    MPI_Request r;
    int err = pm ? PMPI_Ialltoall(b, 1, MPI_INT, b + 64, 1, MPI_INT, c, &r)
                 : MPI_Ialltoall(b, 1, MPI_INT, b + 64, 1, MPI_INT, c, &r);
    return err ? err : wait_for(pm, &r);
}

static const struct { const char *name; call_fn fn; } colls[] = {
    {"barrier", c_barrier}, {"bcast", c_bcast}, {"allreduce", c_allreduce},
    {"gather", c_gather}, {"alltoall", c_alltoall}, {"ibarrier", c_ibarrier},
    {"iallreduce", c_iallreduce}, {"ialltoall", c_ialltoall}};

static double block_time(call_fn fn, int pmpi, MPI_Comm comm, int *buf, int calls)
{
    PMPI_Barrier(comm);
    double t = MPI_Wtime();
    for (int i = 0; i < calls; i++)
        fn(pmpi, comm, buf);
    return (MPI_Wtime() - t) / calls;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int calls = 20000, blocks = 21, rank, p, fastest = 0;
    const char *csv = NULL;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--calls"))
            calls = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--blocks"))
            blocks = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--csv"))
            csv = argv[i + 1];
        else if (!strcmp(argv[i], "--stat"))
            fastest = !strcmp(argv[i + 1], "min");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    FILE *out = csv && rank == 0 ? fopen(csv, "w") : NULL;
    if (out)
        fprintf(out, "comm,p,collective,us_mpi,us_pmpi,us_overhead,ratio\n");
    if (rank == 0)
        printf("# us per call, %s of %d blocks of %d calls, MPI_ (through "
               "whatever LD_PRELOAD holds) vs PMPI_ (never interposed)\n",
               fastest ? "fastest" : "median", blocks, calls);
    int buf[256] = {1};
    double *tm = malloc(sizeof(double) * blocks), *tp = malloc(sizeof(double) * blocks);
    for (int w = 0; w < 2; w++) {
        MPI_Comm comm = w ? MPI_COMM_WORLD : MPI_COMM_SELF;
        int n = w ? p : 1;
        if (w && p == 1)
            break;
        for (size_t k = 0; k < sizeof colls / sizeof *colls; k++) {
            int c = w ? calls / 20 : calls;
            block_time(colls[k].fn, 0, comm, buf, c / 10 + 1);   /* warm-up */
            block_time(colls[k].fn, 1, comm, buf, c / 10 + 1);
            for (int b = 0; b < blocks; b++) {   /* alternate: same conditions */
                tm[b] = block_time(colls[k].fn, 0, comm, buf, c);
                tp[b] = block_time(colls[k].fn, 1, comm, buf, c);
            }
            qsort(tm, (size_t)blocks, sizeof *tm, cmp);
            qsort(tp, (size_t)blocks, sizeof *tp, cmp);
            int at = fastest ? 0 : blocks / 2;
            double m = tm[at] * 1e6, q = tp[at] * 1e6;
            if (rank == 0)
                printf("%-5s p=%-3d %-10s MPI_ %8.3f  PMPI_ %8.3f  +%6.3f us  x%.3f\n",
                       w ? "world" : "self", n, colls[k].name, m, q, m - q, m / q);
            if (out)
                fprintf(out, "%s,%d,%s,%.4f,%.4f,%.4f,%.4f\n", w ? "world" : "self", n,
                        colls[k].name, m, q, m - q, m / q);
        }
    }
    if (out)
        fclose(out);
    free(tm);
    free(tp);
    MPI_Finalize();
    return 0;
}
