/* proxy_app's command line and the default process grid. Pure C (no MPI,
 * no getopt state SMPI ranks could share), so a unit test can call it. */
#ifndef PA_OPTS_H
#define PA_OPTS_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    int rows;          /* --rows R; 0: pa_default_rows */
    int iters;         /* --iters N */
    long fft;          /* --fft: alltoall bytes per pair (whole doubles) */
    long gather;       /* --gather: allgather bytes per rank */
    long vec;          /* --vec: allreduce bytes (doubles) */
    long bcast;        /* --bcast: bytes from rank 0 */
    long compute_us;   /* --compute: sleep per iteration, microseconds */
    int csv;           /* --csv */
    int corrupt;       /* --corrupt: damage results to test the checks */
    int help;
} pa_opts;

/* Parses argv[1..argc-1] into o (defaults first). Returns 0, or -1 with a
 * message in err. Sizes take K and M suffixes and round up to whole
 * doubles. */
int pa_opts_parse(int argc, char **argv, pa_opts *o, char *err, size_t errlen);
void pa_opts_usage(FILE *f);

/* Rows of the default grid of p ranks: one row per node when the nodes
 * hold ppn ranks each (ppn divides p; 0 = unknown or uneven), else the
 * largest divisor of p not above sqrt(p). */
int pa_default_rows(int p, int ppn);

#endif
