/* Hand-written parser: getopt keeps global state, which SMPI ranks would
 * share when globals are not privatized. Accepts "--opt value" and
 * "--opt=value". */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cb_opts.h"
#include "cb_problem.h"

#include "collx_colls.h"

static const char *const colls[] = {
#define CB_NAME(E, N, n) #n,
    CX_COLLECTIVES(CB_NAME)
#undef CB_NAME
    NULL};

void cb_opts_usage(void *file, const char *prog)
{
    FILE *f = file;
    fprintf(f,
"usage: %s --coll NAME [options]\n", prog);
    fprintf(f, "  --coll C          ");
    for (int i = 0; colls[i]; i++)
        fprintf(f, "%s%s", colls[i], !colls[i + 1] ? "\n" : i % 5 == 4 ? "|\n                    " : "|");
    fprintf(f,
"  --algs A,B,...    algorithms to compare (default: every registered one);\n"
"                    'selected' = none forced: COLLX_<COLL>_ALGORITHM, COLLX_RULES\n"
"                    or the default decide per call (column ran says what ran)\n"
"  -m MIN:MAX        bytes per rank, powers of two between (default 4:4096);\n"
"  -m A,B,...        or exactly these sizes (K, M suffixes)\n"
"  --comm-size Q     measure on ranks 0..Q-1 only (the others wait)\n"
"  --comm-shape NxK  measure on K ranks of each of the first N nodes (the\n"
"                    lowest ranks of each, in rank order; nodes as collx sees\n"
"                    them, COLLX_RANKS_PER_NODE/COLLX_FAKE_NODES included);\n"
"                    --comm-size, if given, must be N*K (the others wait)\n"
"  -i N              timed repetitions (default 100)\n"
"  -x N              warm-up calls (default 10)\n"
"  -f                full statistics (min/median/mean/max of r and e)\n"
"  -c                validate every algorithm against the PMPI_ result\n"
"  --root N|rotate|mid  root rank (default 0; mid = floor(p/2), the\n"
"                    default with --problem)\n"
"  --problem P,...   same|random|spikes|decreasing|alternating|twoblocks\n"
"                    (v-collectives; block sizes in MPI_INT, Traff sec. 5)\n"
"  -b B,...          block scale b of the problems (default 1,10,100,1000,10000)\n"
"  --pap uniform     random arrival delays, uniform in [0, max-delay]\n"
"  --max-delay T     e.g. 50ms, 1s, 300us (bare number = ms)\n"
"  --seed S          seed of random problems and delays (default 1)\n"
"  --guidelines      check Traff's guidelines (gatherv/scatterv):\n"
"                    (1) MPI_Gather(m) <= MPI_Gatherv(m)  [regular problems]\n"
"                    (2) MPI_Gatherv(m) <= MPI_Allreduce(1) + MPI_Gather(m')\n"
"  --guide-algs A,.. gather/scatter algorithms for the guidelines (default all)\n"
"  --g2-algs A,..    of these, the ones padded for Guideline (2) (default all)\n"
"  --tolerance X     violation when lhs > (1+X) rhs; 0.05 or 5%% (default 5%%)\n"
"  --mode M          blocking (default) | nonblocking (CX_I<coll>: the call\n"
"                    alone, then OSU's overlap: post, compute for the call's\n"
"                    time, wait) | persistent (CX_<Coll>_init once, then\n"
"                    CX_Start + CX_Wait per repetition)\n"
"  --csv FILE        tidy CSV, one row per case and metric\n"
"  --json FILE       the same rows as JSON\n"
"                    column first_us: at the run's first size, each algorithm's\n"
"                    first call on a new communicator (a duplicate, timed\n"
"                    after the warm-ups on the benchmark one; also on stdout).\n"
"                    Minus that size's median: the algorithm's setup on a new\n"
"                    communicator (topology measurement, hier's shared-memory\n"
"                    segment, rma_*'s window), which warm-ups hide\n"
"  -q                no progress line on stderr\n"
"  --host-time       column host_s: CPU seconds of rank 0's process per case\n"
"                    (in SMPI the whole simulation's: what measuring it cost)\n"
"  --version         collx's version and the MPI it was built for (no launcher\n"
"                    needed; as collx_info --version)\n"
"  -h, --help        this text\n");
}

int cb_fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

double cb_parse_duration(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0)
        return -1;
    if (!*end || strcmp(end, "ms") == 0)
        return v * 1e-3;
    if (strcmp(end, "s") == 0)
        return v;
    if (strcmp(end, "us") == 0)
        return v * 1e-6;
    return -1;
}

long cb_parse_size(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || v < 0)
        return -1;
    if (*end == 'K' || *end == 'k')
        v *= 1024, end++;
    else if (*end == 'M' || *end == 'm')
        v *= 1024 * 1024, end++;
    return *end ? -1 : v;
}

int cb_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

#define MAX_SIZE (1L << 30)

/* Splits a comma list into names[]; -1 if too many or an empty item. */
static int split_names(const char *s, char names[][CB_NAME_LEN], int *n)
{
    *n = 0;
    const char *p = s;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == 0 || len >= CB_NAME_LEN || *n >= CB_MAX_LIST)
            return -1;
        memcpy(names[*n], p, len);
        names[(*n)++][len] = 0;
        if (!c)
            return 0;
        p = c + 1;
    }
}

/* -m A,B,...: sizes measured in this order. */
static int size_list(cb_opts *o, const char *val, char *err, size_t len)
{
    char list[CB_MAX_LIST][CB_NAME_LEN];
    int n;
    if (split_names(val, list, &n))
        return cb_fail(err, len, "bad size list for -m: '%s' (at most %d sizes)", val,
                    CB_MAX_LIST);
    for (int i = 0; i < n; i++) {
        o->size_list[i] = cb_parse_size(list[i]);
        if (o->size_list[i] < 0 || o->size_list[i] > MAX_SIZE)
            return cb_fail(err, len, "bad size '%s' in -m %s (want bytes <= 1G)", list[i], val);
    }
    o->nsize_list = n;
    return 0;
}

/* --comm-shape NxK: two counts >= 1 whose product is a rank count. */
static int comm_shape(cb_opts *o, const char *val, char *err, size_t len)
{
    char *end;
    errno = 0;
    long n = strtol(val, &end, 10), k = 0;
    if (!errno && end != val && *end == 'x') {
        const char *s = end + 1;
        k = strtol(s, &end, 10);
        if (errno || end == s || *end)
            k = 0;
    }
    if (n < 1 || k < 1 || n > (1 << 20) || k > (1 << 20) || n * k > (1L << 30))
        return cb_fail(err, len, "bad --comm-shape '%s' (want NxK: K ranks on each of N "
                    "nodes, e.g. 4x1)", val);
    o->shape_nodes = (int)n;
    o->shape_per = (int)k;
    return 0;
}

static void defaults(cb_opts *o)
{
    memset(o, 0, sizeof *o);
    o->min_size = 4;
    o->max_size = 4096;
    o->iters = 100;
    o->warmup = 10;
    o->root_mode = CB_ROOT_FIXED;
    o->seed = 1;
    o->tolerance = 0.05;
    const long bs[] = {1, 10, 100, 1000, 10000};
    for (int i = 0; i < 5; i++)
        o->bs[i] = bs[i];
    o->nb = 5;
}

/* Collectives whose block sizes differ per rank (Träff's problems). */
static int is_v_coll(const char *c)
{
    return !strcmp(c, "gatherv") || !strcmp(c, "scatterv") ||
           !strcmp(c, "allgatherv") || !strcmp(c, "alltoallv") ||
           !strcmp(c, "alltoallw") || !strcmp(c, "reduce_scatter");
}

/* One option with its value (val is NULL for flags). */
static int apply(cb_opts *o, const char *name, const char *val, char *err,
                 size_t len)
{
    long v;
    char list[CB_MAX_LIST][CB_NAME_LEN];
    int n;
    if (!strcmp(name, "--coll")) {
        for (int i = 0; colls[i]; i++)
            if (!strcmp(val, colls[i])) {
                snprintf(o->coll, sizeof o->coll, "%s", val);
                return 0;
            }
        return cb_fail(err, len, "unknown collective '%s' for --coll", val);
    }
    if (!strcmp(name, "--algs")) {
        if (split_names(val, o->algs, &o->nalgs))
            return cb_fail(err, len, "bad list for --algs: '%s'", val);
        return 0;
    }
    if (!strcmp(name, "--guide-algs")) {
        if (split_names(val, o->gather_algs, &o->ngather_algs))
            return cb_fail(err, len, "bad list for --guide-algs: '%s'", val);
        return 0;
    }
    if (!strcmp(name, "--g2-algs")) {
        if (split_names(val, o->g2_algs, &o->ng2_algs))
            return cb_fail(err, len, "bad list for --g2-algs: '%s'", val);
        return 0;
    }
    if (!strcmp(name, "-m")) {
        if (strchr(val, ','))
            return size_list(o, val, err, len);
        const char *c = strchr(val, ':');
        char lo[64];
        o->nsize_list = 0;
        if (c && (size_t)(c - val) < sizeof lo) {
            memcpy(lo, val, (size_t)(c - val));
            lo[c - val] = 0;
            o->min_size = cb_parse_size(lo);
            o->max_size = cb_parse_size(c + 1);
        } else if (!c) {
            o->min_size = o->max_size = cb_parse_size(val);
        } else {
            o->min_size = -1;
        }
        if (o->min_size < 0 || o->max_size < 0 || o->min_size > o->max_size ||
            o->max_size > MAX_SIZE)
            return cb_fail(err, len, "bad size range for -m: '%s' (want MIN:MAX "
                        "bytes, MIN <= MAX <= 1G, or a list A,B,...)", val);
        return 0;
    }
    if (!strcmp(name, "--comm-size")) {
        if (cb_parse_long(val, 1, 1 << 30, &v))
            return cb_fail(err, len, "bad --comm-size '%s' (want a rank count >= 1)", val);
        o->comm_size = (int)v;
        return 0;
    }
    if (!strcmp(name, "--comm-shape"))
        return comm_shape(o, val, err, len);
    if (!strcmp(name, "-i") || !strcmp(name, "-x")) {
        if (cb_parse_long(val, !strcmp(name, "-i") ? 1 : 0, 1000000, &v))
            return cb_fail(err, len, "bad count for %s: '%s'", name, val);
        *(!strcmp(name, "-i") ? &o->iters : &o->warmup) = (int)v;
        return 0;
    }
    if (!strcmp(name, "--root")) {
        o->root_given = 1;
        if (!strcmp(val, "rotate"))
            o->root_mode = CB_ROOT_ROTATE;
        else if (!strcmp(val, "mid"))
            o->root_mode = CB_ROOT_MID;
        else if (cb_parse_long(val, 0, 1 << 30, &v) == 0)
            o->root_mode = CB_ROOT_FIXED, o->root = (int)v;
        else
            return cb_fail(err, len, "bad --root '%s' (want N, rotate or mid)", val);
        return 0;
    }
    if (!strcmp(name, "--problem")) {
        if (split_names(val, list, &n))
            return cb_fail(err, len, "bad list for --problem: '%s'", val);
        for (int i = 0; i < n; i++)
            if ((o->problems[i] = cb_problem_from_name(list[i])) < 0)
                return cb_fail(err, len, "unknown problem '%s' (want same, random, "
                            "spikes, decreasing, alternating, twoblocks)", list[i]);
        o->nproblems = n;
        return 0;
    }
    if (!strcmp(name, "-b")) {
        if (split_names(val, list, &n))
            return cb_fail(err, len, "bad list for -b: '%s'", val);
        for (int i = 0; i < n; i++)
            if (cb_parse_long(list[i], 1, 100000000, &o->bs[i]))
                return cb_fail(err, len, "bad block scale '%s' for -b (want an "
                            "integer >= 1)", list[i]);
        o->nb = n;
        return 0;
    }
    if (!strcmp(name, "--pap")) {
        if (strcmp(val, "uniform"))
            return cb_fail(err, len, "unknown arrival pattern '%s' for --pap "
                        "(want uniform)", val);
        o->pap = CB_PAP_UNIFORM;
        return 0;
    }
    if (!strcmp(name, "--max-delay")) {
        if ((o->max_delay = cb_parse_duration(val)) < 0)
            return cb_fail(err, len, "bad duration for --max-delay: '%s' (e.g. 50ms)", val);
        return 0;
    }
    if (!strcmp(name, "--seed")) {
        char *end;
        errno = 0;
        o->seed = strtoull(val, &end, 10);
        if (errno || end == val || *end)
            return cb_fail(err, len, "bad --seed '%s'", val);
        return 0;
    }
    if (!strcmp(name, "--tolerance")) {
        char *end;
        double t = strtod(val, &end);
        if (end != val && *end == '%' && !end[1])
            t /= 100, end++;
        if (end == val || *end || t < 0)
            return cb_fail(err, len, "bad --tolerance '%s' (e.g. 0.05 or 5%%)", val);
        o->tolerance = t;
        return 0;
    }
    if (!strcmp(name, "--mode")) {
        static const char *const modes[] = {"blocking", "nonblocking", "persistent"};
        for (int i = 0; i < 3; i++)
            if (!strcmp(val, modes[i])) {
                o->mode = i;
                return 0;
            }
        return cb_fail(err, len, "unknown --mode '%s' (want blocking, nonblocking or "
                    "persistent)", val);
    }
    if (!strcmp(name, "--csv") || !strcmp(name, "--json")) {
        char *dst = !strcmp(name, "--csv") ? o->csv : o->json;
        if (strlen(val) >= CB_PATH_LEN)
            return cb_fail(err, len, "path too long for %s", name);
        strcpy(dst, val);
        return 0;
    }
    return cb_fail(err, len, "unknown option '%s'", name);
}

static int takes_value(const char *name)
{
    static const char *const v[] = {
        "--coll", "--algs", "--guide-algs", "--g2-algs", "-m", "-i", "-x", "--root",
        "--problem", "-b", "--pap", "--max-delay", "--seed", "--tolerance",
        "--mode", "--csv", "--json", "--comm-size", "--comm-shape", NULL};
    for (int i = 0; v[i]; i++)
        if (!strcmp(name, v[i]))
            return 1;
    return 0;
}

/* Consistency of the whole command line. */
static int check(cb_opts *o, char *err, size_t len)
{
    if (!o->coll[0])
        return cb_fail(err, len, "--coll is required");
    int v = is_v_coll(o->coll);
    if (o->nproblems && !v)
        return cb_fail(err, len, "--problem needs a v-collective (gatherv, scatterv, "
                    "allgatherv, alltoallv), not %s", o->coll);
    if (o->guidelines && strcmp(o->coll, "gatherv") && strcmp(o->coll, "scatterv"))
        return cb_fail(err, len, "--guidelines needs --coll gatherv or scatterv");
    if (o->pap && o->max_delay <= 0)
        return cb_fail(err, len, "--pap uniform needs --max-delay > 0");
    if (!o->pap && o->max_delay > 0)
        return cb_fail(err, len, "--max-delay needs --pap uniform");
    if (o->mode != CB_MODE_BLOCKING && (o->guidelines || o->pap))
        return cb_fail(err, len, "--mode %s: --guidelines and --pap time blocking calls",
                    o->mode == CB_MODE_PERSISTENT ? "persistent" : "nonblocking");
    if (o->mode == CB_MODE_PERSISTENT && o->root_mode == CB_ROOT_ROTATE)
        return cb_fail(err, len, "--mode persistent fixes the root at init: no --root rotate");
    if (o->shape_nodes) {   /* the shape says the size; a size given must agree */
        int q = o->shape_nodes * o->shape_per;
        if (o->comm_size && o->comm_size != q)
            return cb_fail(err, len, "--comm-size %d and --comm-shape %dx%d (%d ranks) disagree",
                        o->comm_size, o->shape_nodes, o->shape_per, q);
        o->comm_size = q;
    }
    if (o->nproblems && !o->root_given)
        o->root_mode = CB_ROOT_MID; /* Träff: r = floor(p/2) */
    return 0;
}

int cb_opts_parse(int argc, char **argv, cb_opts *o, char *err, size_t len)
{
    defaults(o);
    err[0] = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char name[64];
        const char *val = NULL;
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        if (eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = 0;
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
        }
        if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
            o->help = 1;
            return 0;
        }
        if (!strcmp(name, "--host-time")) {
            if (val)
                return cb_fail(err, len, "option %s takes no value", name);
            o->host_time = 1;
            continue;
        }
        if (!strcmp(name, "-f") || !strcmp(name, "-c") || !strcmp(name, "-q") ||
            !strcmp(name, "--guidelines")) {
            if (val)
                return cb_fail(err, len, "option %s takes no value", name);
            if (name[1] == 'f') o->full = 1;
            else if (name[1] == 'c') o->validate = 1;
            else if (name[1] == 'q') o->quiet = 1;
            else o->guidelines = 1;
            continue;
        }
        if (!takes_value(name))
            return cb_fail(err, len, "unknown option '%s'", a);
        if (!val) {
            if (i + 1 >= argc)
                return cb_fail(err, len, "option %s needs a value", name);
            val = argv[++i];
        }
        if (apply(o, name, val, err, len))
            return -1;
    }
    return check(o, err, len);
}
