/* A call's decision (decide.c): one value, made in one place, cached on
 * the communicator, kept by whatever replays the call. */
#ifndef CX_DECISION_H
#define CX_DECISION_H

#include <mpi.h>
#include "../util/util.h"
#include "cx_builtin_rules.h"   /* generated: the families' built-in rules */

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
    int shm;              /* valid while the asked algorithm's segment fits */
    cx_decision d;
    int commute;          /* the call's operation commutes (1 without one) */
    int nonblocking;
} cx_decision_cache;

/* What the rules file picks for calls on a communicator whose message
 * size is in lo..hi: a communicator's candidate rules split the sizes into
 * such classes once (select.c), so a call looks its class up instead of
 * walking the rules. */
typedef struct cx_rules_class {
    long long lo, hi;
    const struct cx_algorithm *alg;        /* NULL: native */
    const struct cx_knob_params *params;   /* the rule's, NULL: none */
    const struct cx_algorithm *const *candidates;  /* the rule's, for online
                                                      tuning; NULL: none */
    int rule;     /* rules[rule] in the file picks; -1: none (native) */
    int beyond;   /* no rule holds these calls: the nearest picks, or native
                     (the file's "beyond") */
} cx_rules_class;

/* The rules file on a communicator, per collective. */
typedef struct cx_rules_cache {
    cx_rules_class *classes;   /* by size, NULL until the first call */
    int n;                     /* 1: the same pick for every size */
    int last;                  /* the class of the last call */
    int ranks_per_node;        /* as the rules saw it (0: they do not look) */
    int comm_size;             /* the size the classes were worked out for */
    int said;                  /* a call beyond the rules was seen here */
} cx_rules_cache;

/* A call the rules file served beyond its rules (select.c): its cache
 * and class, for counting each such call (COLLX_STATS) again. */
typedef struct cx_rules_beyond {
    cx_rules_cache *k;
    const cx_rules_class *cl;
} cx_rules_beyond;

/* A call that repeats the last one of its collective on a communicator
 * (decide_call.c): what decided it, kept with the arguments it was made
 * for, so that the same arguments skip selection, validation and the
 * fallback walk while nothing that decides has changed (generation:
 * CX_Algorithm_set's count). */
typedef struct cx_call_memo {
    int valid;
    unsigned generation;
    int scount, rcount, root, nonblocking, in_place;
    MPI_Datatype stype, rtype;
    MPI_Op op;
    const struct cx_algorithm *run;
    const struct cx_knob_params *params;
    cx_rules_beyond beyond;   /* counted again per call; k NULL: none */
} cx_call_memo;

/* The selection's state of a communicator (its room's slot, comm.h): the
 * rules' classes, the file's and the built-in sets' (select.c), and the last decision (decide.c) per
 * collective. */
struct cx_comm;
typedef struct cx_select_comm {
    cx_rules_cache sel[CX_COLL_COUNT];
    cx_rules_cache builtin[CX_BUILTIN_RULES_COUNT][CX_COLL_COUNT];   /* families' */
    cx_decision_cache decided[CX_COLL_COUNT];
    cx_call_memo memo[CX_COLL_COUNT];
} cx_select_comm;
/* c's, made on first use; NULL: out of memory. */
cx_select_comm *cx_select_of(struct cx_comm *c);

#endif
