/* Block-size problems of Träff's irregular gather/scatter paper, section 5
 * (see cb_problem.c for the formulas). Pure C: no MPI, unit-testable. */
#ifndef CB_PROBLEM_H
#define CB_PROBLEM_H

#include <stdint.h>

typedef enum {
    CB_PROBLEM_SAME,
    CB_PROBLEM_RANDOM,
    CB_PROBLEM_SPIKES,
    CB_PROBLEM_DECREASING,
    CB_PROBLEM_ALTERNATING,
    CB_PROBLEM_TWOBLOCKS,
    CB_PROBLEM_COUNT
} cb_problem;

#define CB_SPIKES_RHO 5 /* "For the spikes problems, we have taken rho = 5" */

const char *cb_problem_name(cb_problem pr);
int cb_problem_from_name(const char *name); /* -1 if unknown */

/* Fills m[0..p-1] (block sizes in elements) for problem pr with block
 * scale b; random problems draw from seed, identically on every rank.
 * Returns the total m = sum m_i. */
long long cb_problem_fill(cb_problem pr, int p, long b, uint64_t seed, int *m);

/* max_i m_i (the padded block of Guideline (2); m' = p * max). */
int cb_problem_max(const int *m, int p);

#endif
