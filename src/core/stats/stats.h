/* The counters of what collx served in this process (stats.c): every
 * call per algorithm and every hand-over, always (CX_Algorithm_calls,
 * CX_Algorithm_fallbacks); and under COLLX_STATS the calls, payload
 * bytes and time per (algorithm that ran, blocking or nonblocking), and
 * the hand-overs per (algorithm asked for, blocking or not, requirement
 * missed), which rank 0 reports at MPI_Finalize (stats_report.c). Slots
 * are indexed by the catalogue (cx_algorithm_index), alike in every
 * process, so the report reduces arrays of one shape over the ranks. */
#ifndef CX_STATS_H
#define CX_STATS_H

#include <stdatomic.h>
#include <stdio.h>
#include "../select/select.h"

struct cx_algorithm;

/* The profile's counters of one (communicator, collective, mode, size
 * class) (profile.c). */
typedef struct cx_profile_slot cx_profile_slot;

/* One call being measured: on the dispatcher's stack for a blocking
 * call, on the heap beside the request of a CX_I call (its time goes on
 * in CX_Test and CX_Wait). cx_args.stats points at it. */
typedef struct cx_stats_call {
    const struct cx_algorithm *ran;   /* last counted for the call (cx_count_call) */
    int nonblocking;
    long long bytes;                  /* the call's payload on this rank */
    cx_profile_slot *slot;            /* where the profile counts it; NULL: nowhere */
    double since;                     /* PMPI_Wtime of the current stretch */
    double seconds;                   /* inside collx so far */
} cx_stats_call;

/* 0: COLLX_STATS off, 1: on, else not read yet (stats.c). */
extern atomic_int cx_stats_state;
int cx_stats_start(void);

/* Whether calls are measured: one load and one branch when off. */
static inline int cx_stats_on(void)
{
    int s = atomic_load_explicit(&cx_stats_state, memory_order_acquire);
    return s == 0 ? 0 : s == 1 ? 1 : cx_stats_start();
}

/* COLLX_STATS as set (NULL, "0" or "": off; "1": rank 0 prints a table
 * on stderr; else the file rank 0 writes: .json, .csv or a table). The
 * only place that reads it. */
const char *cx_stats_setting(void);

/* A call starts (its arguments a, as the caller passed them), stops and
 * goes on (a CX_I call between CX_Test calls), ends: then it is counted
 * for k->ran, if anything ran. */
void cx_stats_begin(cx_stats_call *k, const cx_args *a, int nonblocking);
void cx_stats_pause(cx_stats_call *k);
void cx_stats_resume(cx_stats_call *k);
void cx_stats_end(cx_stats_call *k);

/* The clock a CX_I call's request runs (request.h): its record, paused,
 * resumed and ended with the request. */
struct cx_request_timer;
extern const struct cx_request_timer cx_stats_timer;

/* Bytes of a call made by rank of a communicator of size p (payload.c;
 * intracommunicators). */
long long cx_call_payload(const cx_args *a, int rank, int p);
/* Bytes of count elements of type, of a v-collective's counts, of a
 * w-collective's counts and types (each 0 where negative or not given):
 * the payload's parts, which the profile's size classes share. */
long long cx_payload_bytes(MPI_Aint count, MPI_Datatype type);
long long cx_payload_v(const int *counts, int n, MPI_Datatype type);
long long cx_payload_w(const int *counts, const MPI_Datatype *types, int n);
/* The profile's message size of a v- or w-collective call (v_size.c):
 * bytes per rank as collbench's -m means them, from the counts this rank
 * holds; the rules never see it. */
long long cx_v_msg_size(const cx_args *a, int rank, int p);

/* The profile (profile.c): the slot of call a (by rank of an
 * intracommunicator of size ranks), NULL on no memory; a call counted
 * there; a call beyond the rules' ranges (the rules' watch). */
cx_profile_slot *cx_profile_slot_of(const cx_args *a, int rank, int size, int nonblocking);
void cx_profile_add(cx_profile_slot *s, long long ns);
void cx_profile_beyond(const cx_args *a, int rule, const struct cx_algorithm *alg);

/* Reading the counters (the report at MPI_Finalize; a tuner). Reasons are
 * requirement bits by index, and CX_STATS_NO_BIT for none of them;
 * fallback slots of an algorithm: [nonblocking][reason]. */
#define CX_STATS_NO_BIT 32
#define CX_STATS_REASONS (CX_STATS_NO_BIT + 1)
#define CX_STATS_FALLBACK_SLOTS (2 * CX_STATS_REASONS)
typedef struct cx_stats_served {
    long long calls, bytes, nanoseconds;
} cx_stats_served;
cx_stats_served cx_stats_served_get(int alg, int nonblocking);
/* Calls (blocking, or nonblocking) that asked for alg and were handed
 * over for reason; *to: the index of the algorithm that ran the first of
 * them (-1 if none), *why: the reason as first said in this process (NULL
 * if none). */
long long cx_stats_fallback_get(int alg, int nonblocking, int reason, int *to,
                                const char **why);
unsigned cx_stats_reason_bit(int reason);

/* With COLLX_STATS on, makes sure the report runs at MPI_Finalize
 * (stats_report.c; the first call hooks it, the others return at once):
 * the dispatcher calls it with every measured call, the interposer at
 * MPI_Init. */
void cx_stats_report_at_finalize(void);
/* The report, now, if hooked (every rank; collective over the world),
 * instead of when MPI_Finalize deletes MPI_COMM_SELF's attributes: for
 * SMPI, which deletes them only once MPI calls fail (api/smpi_finalize.smpi.c). */
void cx_stats_report_now(void);

/* The profile as rank 0 reports it (profile_report.c): the job, and rows
 * merged over the ranks. */
typedef struct cx_stats_job {
    int ranks, nodes, ranks_per_node;   /* MPI_COMM_WORLD's */
    double seconds;                     /* MPI_Init to MPI_Finalize, the slowest rank */
} cx_stats_job;
typedef struct cx_stats_profile_row {
    int coll, nonblocking, comm_size, ranks_per_node, nodes;
    int cls;                            /* cx_size_class */
    long long calls;                    /* the most any rank made */
    long long ranks;                    /* ranks that made such calls */
    long long ns, rank_ns;              /* the slowest rank's time; summed over ranks */
} cx_stats_profile_row;
typedef struct cx_stats_beyond_row {
    int coll, comm_size, ranks_per_node, nodes;
    int rule;                           /* rules[rule] of the file; -1: native */
    int alg;                            /* catalogue index of what ran (asked) */
    long long calls, ranks;
} cx_stats_beyond_row;
typedef struct cx_stats_profile {
    cx_stats_job job;
    cx_stats_profile_row *rows;
    int nrows;
    cx_stats_beyond_row *beyond;
    int nbeyond;
} cx_stats_profile;
/* Collective over world (a duplicate of MPI_COMM_WORLD; every rank, in
 * the report): rank 0 gets the profile (its rows malloc'ed; free with
 * cx_profile_free). world_lowest: room for the world's size, made before
 * MPI_Finalize; seconds: this rank's from MPI_Init to the report. Never
 * fails: what could not be merged is left out (0 rows), job nodes -1. */
void cx_profile_gather(MPI_Comm world, int *world_lowest, double seconds,
                       cx_stats_profile *out);
void cx_profile_free(cx_stats_profile *p);

/* The report as rank 0 writes it (stats_write.c): the counters of every
 * rank reduced over MPI_COMM_WORLD (stats_report.c). */
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
    const cx_stats_profile *profile; /* NULL: none */
} cx_stats_report;

enum { CX_STATS_TABLE, CX_STATS_CSV, CX_STATS_JSON };
void cx_stats_write(FILE *f, const cx_stats_report *r, int format);
/* The profile's parts of the report (profile_write.c): the job (JSON: a
 * member led by a comma; table: a line; CSV: a row), the rows of the
 * profile and of the calls beyond the rules (JSON: members "profile" and
 * "beyond"). The CSV columns the profile adds to every row. */
void cx_profile_write_job(FILE *f, const cx_stats_profile *p, int format);
void cx_profile_write(FILE *f, const cx_stats_profile *p, int format);
#define CX_PROFILE_CSV_COLUMNS "comm_size,ranks_per_node,nodes,msg_lo,msg_hi,rank_seconds,rule"
#define CX_PROFILE_CSV_EMPTY ",,,,,,,"

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
