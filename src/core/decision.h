/* A call's decision (decide.c): one value, made in one place, cached on
 * the communicator, kept by whatever replays the call. */
#ifndef CX_DECISION_H
#define CX_DECISION_H

#include <mpi.h>

struct cx_algorithm;

typedef struct cx_decision {
    const struct cx_algorithm *asked;  /* named by the selection */
    const struct cx_algorithm *alg;    /* runs: asked, or its first fallback
                                          that can serve the call */
    unsigned unmet;                    /* CX_REQ_* bit asked missed (0 if none) */
    const char *why;                   /* that, in words; NULL: asked runs */
} cx_decision;

/* The last decision for a collective on a communicator, reused while the
 * algorithm asked for, the op and the blocking mode repeat (and no
 * algorithm on the way looks at the call's size). */
typedef struct cx_decision_cache {
    int valid;
    cx_decision d;
    MPI_Op op;
    int nonblocking;
} cx_decision_cache;

#endif
