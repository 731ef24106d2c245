/* Result rows and their writers: OSU-like text on stdout, tidy CSV, JSON.
 * The CSV/JSON schema is documented in bench/README.md. */
#ifndef CB_OUTPUT_H
#define CB_OUTPUT_H

#include <stdio.h>
#include "cb_stats.h"

typedef struct {
    char platform[64];
    int p, ppn, warmup, iters;
    int nodes;            /* nodes of the communicator as collx sees them (-1: unknown) */
    char shape[32];       /* --comm-shape NxK as given ("": none) */
    double max_delay_ms;
    unsigned long long seed;
    char root[16];
} cb_meta;

typedef struct {
    char kind[12];        /* "time" or "guideline" */
    char coll[40], alg[48];
    char ran[96];         /* what served the timed calls: alg, its fallback,
                             or both joined by '+' */
    long size_bytes;      /* -1: problem mode */
    char problem[16];     /* "": size mode */
    long b;               /* -1: size mode */
    long long m, m_pad;   /* total MPI_INTs, and p * max m_i */
    char metric[8];       /* r, e, t (time); G1, G2 (guideline) */
    cb_summary s;         /* microseconds; lhs of a guideline */
    int valid;            /* -1 not checked, 0 wrong, 1 same as PMPI_ */
    char ref[96];         /* guideline: right-hand side */
    double ref_us, ratio; /* guideline: rhs min time, lhs/rhs */
    int violated;
    double host_s;        /* --host-time: CPU seconds of rank 0's process
                             during the case (SMPI: the whole simulation);
                             < 0: not measured */
    double first_us;      /* the first call of alg on a new communicator, before
                             any warm-up (this row's metric; the run's first
                             point only); < 0: not measured */
} cb_row;

typedef struct {
    cb_row *rows;
    int n, cap;
} cb_table;

void cb_table_add(cb_table *t, const cb_row *r);

void cb_print_header(FILE *f, const cb_meta *m, const char *coll,
                     int problem_mode, int full);
void cb_print_case(FILE *f, const cb_row *r, const cb_row *e, const cb_row *t,
                   int problem_mode, int full);
void cb_print_verdict(FILE *f, const cb_row *g, double tol);

int cb_write_csv(const char *path, const cb_meta *m, const cb_table *t);
/* The same, a row at a time (collbench appends each case as it ends, so
 * that a run killed midway leaves the cases it finished). */
void cb_csv_header(FILE *f);
void cb_csv_row(FILE *f, const cb_meta *m, const cb_row *r);
int cb_write_json(const char *path, const cb_meta *m, const cb_table *t,
                  const char *cmdline);

#endif
