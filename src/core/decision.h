/* A call's decision (decide.c): one value, made in one place, cached on
 * the communicator, kept by whatever replays the call. */
#ifndef CX_DECISION_H
#define CX_DECISION_H

#include <mpi.h>

struct cx_algorithm;
struct cx_knob_params;

typedef struct cx_decision {
    const struct cx_algorithm *asked;  /* named by the selection */
    const struct cx_knob_params *params; /* and the knob values for the call
                                          (the rule's params; NULL: none) */
    const struct cx_algorithm *alg;    /* runs: asked, or its first fallback
                                          that can serve the call */
    unsigned unmet;                    /* CX_REQ_* bit asked missed (0 if none) */
    const char *why;                   /* that, in words; NULL: asked runs */
} cx_decision;

/* The last decision for a collective on a communicator, reused while the
 * algorithm asked for, its params, the op and the blocking mode repeat
 * (and no algorithm on the way looks at the call's size). */
typedef struct cx_decision_cache {
    int valid;
    cx_decision d;
    MPI_Op op;
    int nonblocking;
} cx_decision_cache;

/* What the rules file picked for calls on a communicator whose message
 * size is in lo..hi (select.c keeps a few per collective, so a file of
 * many rules is walked once per size class, not per call). */
typedef struct cx_rules_class {
    long long lo, hi;
    const struct cx_algorithm *alg;        /* NULL: no rule holds (native) */
    const struct cx_knob_params *params;   /* the rule's, NULL: none */
} cx_rules_class;
#define CX_RULES_PICKS 4

/* The rules file on a communicator, per collective. */
typedef struct cx_rules_cache {
    int *rules;                           /* candidate rules, -1 terminated */
    int sized;                            /* one of them has a msg_size range */
    cx_rules_class pick[CX_RULES_PICKS];   /* the latest picks, by size class */
    int npick, next;
} cx_rules_cache;

#endif
