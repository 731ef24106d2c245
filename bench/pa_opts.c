/* proxy_app's options: "--opt value" or "--opt=value", hand-parsed
 * (getopt keeps global state). */
#include <string.h>
#include "cb_opts.h"   /* collbench's parsers: sizes (K/M), numbers, errors */
#include "pa_opts.h"

#define MAX_BYTES (1L << 30)

void pa_opts_usage(FILE *f)
{
    fprintf(f,
"usage: proxy_app [options]\n"
"  the communication skeleton of a spectral/Krylov solver on R x C ranks;\n"
"  per iteration: alltoall in each row, allgather in each column, two\n"
"  allreduces of 2 doubles, one of --vec, a bcast every 5th iteration\n"
"  --rows R       grid rows; rows are consecutive ranks, R must divide the\n"
"                 ranks (default: one row per node, nodes of equal size from\n"
"                 COLLX_RANKS_PER_NODE or MPI_COMM_TYPE_SHARED; else the\n"
"                 largest divisor of the ranks <= their square root)\n"
"  --iters N      iterations (default 20)\n"
"  --fft B        alltoall bytes per pair in each row (default 2048)\n"
"  --gather B     allgather bytes per rank in each column (default 512)\n"
"  --vec B        allreduce bytes on all ranks (default 8192)\n"
"  --bcast B      bcast bytes from rank 0, every 5th iteration (default 4096)\n"
"  --compute US   microseconds of compute (a sleep) per iteration (default 0)\n"
"  --csv          also a CSV header and row on stdout\n"
"  --corrupt      damage one result of every collective of the first\n"
"                 iteration on the last rank (tests the checks: FAILED)\n"
"  -h, --help     this text\n"
"  sizes: bytes, K/M suffixes, rounded up to whole doubles\n");
}

/* Whole doubles: every buffer is doubles, so checks are exact. */
static int parse_bytes(const char *s, long *out)
{
    long v = cb_parse_size(s);
    if (v < 0 || v > MAX_BYTES)
        return -1;
    *out = (v + 7) / 8 * 8;
    return 0;
}

int pa_opts_parse(int argc, char **argv, pa_opts *o, char *err, size_t errlen)
{
    *o = (pa_opts){.iters = 20, .fft = 2048, .gather = 512, .vec = 8192, .bcast = 4096};
    for (int i = 1; i < argc; i++) {
        char name[32];
        const char *arg = argv[i], *val = NULL, *eq = strchr(arg, '=');
        if (strncmp(arg, "--", 2) == 0 && eq && (size_t)(eq - arg) < sizeof name) {
            memcpy(name, arg, (size_t)(eq - arg));
            name[eq - arg] = 0;
            arg = name, val = eq + 1;
        }
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            o->help = 1;
            continue;
        }
        int *flag = NULL;
        if (!strcmp(arg, "--csv"))
            flag = &o->csv;
        else if (!strcmp(arg, "--corrupt"))
            flag = &o->corrupt;
        if (flag) {
            if (val)
                return cb_fail(err, errlen, "%s takes no value", arg);
            *flag = 1;
            continue;
        }
        static const char *const valued[] = {"--rows", "--iters", "--compute", "--fft",
                                             "--gather", "--vec", "--bcast", NULL};
        int known = 0;
        for (int k = 0; valued[k]; k++)
            known |= !strcmp(arg, valued[k]);
        if (!known)
            return cb_fail(err, errlen, "unknown option '%s'", arg);
        if (!val && i + 1 < argc)
            val = argv[++i];
        if (!val)
            return cb_fail(err, errlen, "%s needs a value", arg);
        long v = 0;
        int bad = 0;
        if (!strcmp(arg, "--rows"))
            bad = cb_parse_long(val, 1, 1L << 24, &v), o->rows = (int)v;
        else if (!strcmp(arg, "--iters"))
            bad = cb_parse_long(val, 1, 100000000, &v), o->iters = (int)v;
        else if (!strcmp(arg, "--compute"))
            bad = cb_parse_long(val, 0, 1000000000, &o->compute_us);
        else if (!strcmp(arg, "--fft"))
            bad = parse_bytes(val, &o->fft);
        else if (!strcmp(arg, "--gather"))
            bad = parse_bytes(val, &o->gather);
        else if (!strcmp(arg, "--vec"))
            bad = parse_bytes(val, &o->vec);
        else
            bad = parse_bytes(val, &o->bcast);
        if (bad)
            return cb_fail(err, errlen, "bad value '%s' for %s", val, arg);
    }
    return 0;
}

int pa_default_rows(int p, int ppn)
{
    if (ppn > 0 && p % ppn == 0)
        return p / ppn;
    int rows = 1;
    for (int r = 1; (long)r * r <= p; r++)
        if (p % r == 0)
            rows = r;
    return rows;
}
