/* collbench command line. Pure C (no MPI, no getopt global state), so every
 * rank parses the same argv independently and a unit test can call it. */
#ifndef CB_OPTS_H
#define CB_OPTS_H

#include <stddef.h>
#include <stdint.h>

#define CB_MAX_LIST 32
#define CB_NAME_LEN 48
#define CB_PATH_LEN 512

enum { CB_ROOT_FIXED, CB_ROOT_ROTATE, CB_ROOT_MID };
enum { CB_PAP_NONE, CB_PAP_UNIFORM };
/* --mode: how each repetition calls the collective. */
enum { CB_MODE_BLOCKING, CB_MODE_NONBLOCKING, CB_MODE_PERSISTENT };

typedef struct {
    char coll[CB_NAME_LEN];                 /* --coll */
    char algs[CB_MAX_LIST][CB_NAME_LEN];    /* --algs; none = all registered */
    int nalgs;
    long min_size, max_size;                /* -m MIN:MAX, bytes per rank */
    long size_list[CB_MAX_LIST];            /* -m A,B,...: these sizes instead */
    int nsize_list;
    int comm_size;                          /* --comm-size Q: ranks 0..Q-1 (0: all) */
    int shape_nodes, shape_per;             /* --comm-shape NxPER: PER ranks on each
                                               of the first N nodes (0: none) */
    int iters, warmup;                      /* -i, -x */
    int full, validate, quiet;              /* -f, -c, -q */
    int host_time;                          /* --host-time */
    int root_mode, root;                    /* --root N|rotate|mid */
    int root_given;
    int problems[CB_MAX_LIST], nproblems;   /* --problem a,b,... */
    long bs[CB_MAX_LIST];                   /* -b 1,10,100 */
    int nb;
    int pap;                                /* --pap uniform */
    double max_delay;                       /* --max-delay, seconds */
    uint64_t seed;                          /* --seed */
    int guidelines;                         /* --guidelines */
    int mode;                               /* --mode (CB_MODE_*) */
    double tolerance;                       /* --tolerance (fraction) */
    char gather_algs[CB_MAX_LIST][CB_NAME_LEN]; /* --guide-algs */
    int ngather_algs;
    char g2_algs[CB_MAX_LIST][CB_NAME_LEN];     /* --g2-algs */
    int ng2_algs;
    char csv[CB_PATH_LEN], json[CB_PATH_LEN];
    int help;
} cb_opts;

/* Parses argv[1..argc-1]. Returns 0, or -1 with a message in err. */
int cb_opts_parse(int argc, char **argv, cb_opts *o, char *err, size_t errlen);
void cb_opts_usage(void *file, const char *prog);

/* "50ms", "2s", "300us", "0.5" (bare number = ms) -> seconds; -1 if bad. */
double cb_parse_duration(const char *s);
/* "4096", "4K", "2M" -> bytes; -1 if bad. */
long cb_parse_size(const char *s);
/* A whole number in lo..hi (the whole string): 0 and *out, else -1. */
int cb_parse_long(const char *s, long lo, long hi, long *out);
/* Writes the message into err (len bytes); returns -1, a parser's failure. */
int cb_fail(char *err, size_t len, const char *fmt, ...);

#endif
