/* Online tuning (COLLX_TUNE_ONLINE=1). A call site is a communicator, a
 * collective and a class of message sizes (powers of two: 0, 1, 2-3,
 * 4-7, ...). After COLLX_TUNE_WARMUP calls of a site that run the usual
 * choice, its next calls try candidates in turn, COLLX_TUNE_CALLS each
 * (the first untimed: set-up), native and the rules' choice first, within
 * COLLX_TUNE_MAX_TRIALS calls; at the next call every rank agrees on the
 * slowest rank's median time of each (one MPI_Allreduce MAX on a duplicate
 * collx owns) and the site settles: native unless another is faster by
 * COLLX_TUNE_MARGIN. Every rank makes the same calls on a communicator, and
 * the message size of these collectives is the same on every rank, so
 * every count, candidate and choice is the same on every rank. Covered:
 * blocking calls of the collectives whose size every rank knows (not the
 * v- and w-collectives, not reduce_scatter); nonblocking and persistent
 * calls keep the usual choice.
 *
 * Settled choices are kept in a cache file per machine fingerprint (MPI
 * library, collx version, ranks, nodes, ranks per node, CPU model) in the
 * rules file's format (online_cache.c), read at MPI_Init (or a linked
 * program's first collx call) so that a second run starts settled. */
#ifndef CX_ONLINE_H
#define CX_ONLINE_H

#include <stdio.h>
#include "../stats/stats.h"

struct cx_algorithm;
struct cx_comm;
struct cx_knob_params;

#define CX_TUNE_MAX_CANDIDATES 8
#define CX_TUNE_CLASSES CX_SIZE_CLASSES   /* cx_size_class (util) */

/* A call site's outcome as the report and the cache file see it. */
typedef struct cx_online_site {
    int coll, comm_size, ranks_per_node, cls;
    int chosen;        /* catalogue index; -1: not settled (trials under way) */
    int from_cache;    /* settled by the cache file, no trials */
    int trials;        /* calls spent trying */
    int ncand;
    int cand[CX_TUNE_MAX_CANDIDATES];      /* catalogue indices */
    double us[CX_TUNE_MAX_CANDIDATES];     /* slowest rank's median, us per call;
                                              < 0: no timed call */
} cx_online_site;

/* What every part asks (online_state.c). COLLX_TUNE_ONLINE is 1 and the
 * start did not fail; the start succeeded on every rank (the end takes
 * place at MPI_Finalize); the start's outcome (1: active, 0: off). */
int cx_online_on(void);
int cx_online_active(void);
void cx_online_set_started(int ok);
/* Collective c can be tuned online: every rank knows its message size. */
int cx_online_coll(cx_coll c);

/* Sites, trials and the agreement (online.c). */
/* The selection's policy (select/decide_call.h), registered at the start:
 * for blocking call a on c, whose usual choice is `usual` with *params,
 * usual during warm-up, a candidate during trials (a->tune set when the
 * call is timed), the settled one after. May be collective over c's
 * ranks (set-up, the agreement), at the same call on all. *params becomes
 * the chosen algorithm's (the rule's only for its own algorithm). */
extern const cx_select_policy cx_online_policy;
/* A timed trial call took seconds on this rank. */
void cx_online_timed(cx_args *a, double seconds);
/* The records of sites (online_sites.c): a site settles or is loaded from
 * the cache on a communicator whose rank 0 this process is; this
 * process's records; rank 0 after the end: every rank's (-1: no end). */
void cx_online_record(const cx_online_site *s);
int cx_online_mine(const cx_online_site **sites);
void cx_online_set_sites(cx_online_site *sites, int n);
int cx_online_sites(const cx_online_site **sites);

/* The start (online_start.c): reads the cache (rank 0) and gives it to
 * every rank, hooks the end at MPI_Finalize, registers the policy:
 * collective over MPI_COMM_WORLD, once (MPI_Init, or a linked program's
 * first collx call). */
void cx_online_start(void);

/* The end (online_end.c): rank 0's room for the gather (at the start);
 * at MPI_Finalize, collective over MPI_COMM_WORLD, once: every rank's
 * records to rank 0, which writes the cache file and keeps them for the
 * COLLX_STATS report. */
int cx_online_end_prepare(int world_size);
void cx_online_finish(void);
/* The end, now, if hooked (every rank; collective over the world),
 * instead of when MPI_Finalize deletes MPI_COMM_SELF's attributes: for
 * SMPI, which deletes them only once MPI calls fail (api/smpi_finalize.smpi.c;
 * online_start.c). */
void cx_online_end_now(void);

/* The machine fingerprint (online_fingerprint.c): made by rank 0. */
struct cx_json;
typedef struct cx_fingerprint {
    char mpi[MPI_MAX_LIBRARY_VERSION_STRING];   /* white space squeezed */
    char collx[64];                             /* version and catalogue size */
    int ranks, nodes, ranks_per_node;           /* of MPI_COMM_WORLD */
    char cpu[256];
    unsigned long long hash;                    /* of all of them */
} cx_fingerprint;
void cx_fingerprint_make(cx_fingerprint *f, int ranks, int nodes, int ranks_per_node);
/* As a JSON object. */
void cx_fingerprint_write(FILE *out, const cx_fingerprint *f);
/* NULL when the JSON object j describes f, else what differs, in words. */
const char *cx_fingerprint_differs(const cx_fingerprint *f, const struct cx_json *j);

/* The cache file (online_cache.c). Rank 0: makes the fingerprint, reads
 * the file, returns how many choices it holds; then every rank: gets them
 * (0: a rank had no room). The cached choice for a site, NULL if none.
 * Rank 0: writes the cache with the loaded choices and these new ones. */
int cx_online_cache_load(int ranks, int nodes, int ranks_per_node);
int cx_online_cache_share(struct cx_comm *w, int n);
const struct cx_algorithm *cx_online_cached(cx_coll coll, int comm_size,
                                            int ranks_per_node, int cls);
void cx_online_cache_write(const cx_online_site *sites, int n);

/* The sites in the COLLX_STATS report (online_report.c), nothing when
 * online tuning is off: a section of the table, rows of the CSV, member
 * "online" of the JSON object (with its leading comma). */
void cx_online_report(FILE *f, int format);

#endif
