/* The COLLX_STATS report as rank 0 writes it (stats_write.c): the
 * counters of every rank reduced over MPI_COMM_WORLD (stats_report.c). */
#ifndef CX_STATS_WRITE_H
#define CX_STATS_WRITE_H

#include <stdio.h>

typedef struct cx_stats_report {
    int ranks, nalgs;
    /* [2 * algorithm index + nonblocking] */
    const long long *calls;        /* the most any rank made */
    const long long *nanoseconds;  /* the slowest rank's total */
    const long long *served_ranks; /* ranks that made such calls */
    const long long *bytes;        /* payload, summed over ranks */
    /* [CX_STATS_FALLBACK_SLOTS * index of the algorithm asked for +
     *  CX_STATS_REASONS * nonblocking + reason] */
    const long long *fallbacks;      /* the most any rank handed over */
    const long long *fallback_to;    /* index of the algorithm that ran */
    const long long *fallback_ranks; /* ranks that handed such calls over */
    char *const *why;                /* the reason as a rank said it, or NULL */
} cx_stats_report;

enum { CX_STATS_TABLE, CX_STATS_CSV, CX_STATS_JSON };
void cx_stats_write(FILE *f, const cx_stats_report *r, int format);

/* A part of the report that a room above adds (online tuning's sites),
 * so that statistics never call up into it: prepare runs on every rank at
 * MPI_Finalize before the counters are gathered (collective over the
 * world); write adds rank 0's part to the file, in the report's format
 * (JSON: a member of the top object, led by a comma). */
typedef struct cx_stats_section {
    void (*prepare)(void);
    void (*write)(FILE *f, int format);
} cx_stats_section;
void cx_stats_add_section(const cx_stats_section *s);
void cx_stats_prepare_sections(void);
void cx_stats_write_sections(FILE *f, int format);

#endif
