/* Whether each algorithm served the calls its requirements say it can
 * (served.c). */
#ifndef CONTRACT_SERVED_H
#define CONTRACT_SERVED_H

#include <stddef.h>
#include "cases.h"

enum { EXPECT_SERVE, EXPECT_LEAVE, EXPECT_MAY };

typedef struct served_probe {
    const char *coll, *alg;
    int i;            /* the algorithm's index */
    int expect;       /* EXPECT_*, from its requirement bits */
    int why;          /* the requirement missed, -1: none */
    long fallbacks;   /* CX_Algorithm_fallbacks before the call */
} served_probe;

/* Reads COLLX_FALLBACK and comm's layout (collective). */
void served_init(MPI_Comm comm);
int served_error_mode(void);
/* Clears the counts (a new collective). */
void served_reset(void);
/* Before algorithm i of coll runs case c in mode. */
void served_before(served_probe *p, const char *coll, int i, const call *c, int mode);
/* After it returned err: *fell = it handed the call over. 1 (and msg)
 * when that contradicts its requirements or COLLX_FALLBACK=error. */
int served_after(served_probe *p, int err, int *fell, char *msg, size_t len);
/* Prints, per algorithm, what it left to its fallback and why; returns the
 * number of algorithms that never served a call their requirements allow. */
long served_report(const char *coll, int rank);

#endif
