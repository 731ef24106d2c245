/* Run time r and average elapsed time e per repetition (PAP paper eq. 1-2),
 * summary statistics over repetitions, and the guideline verdict. Pure C. */
#ifndef CB_STATS_H
#define CB_STATS_H

typedef struct {
    double min, median, mean, max;
} cb_summary;

/* a, f: arrival and finish times of p ranks in one repetition, on a common
 * clock. r = max_j f_j - min_j a_j, e = (1/p) sum_j (f_j - a_j). */
double cb_run_time(const double *a, const double *f, int p);
double cb_elapsed_time(const double *a, const double *f, int p);
/* t = max_j (f_j - a_j): the slowest process's own time, the metric of
 * Träff's tables (insensitive to barrier exit skew). */
double cb_slowest_time(const double *a, const double *f, int p);

/* Summary of x[0..n-1]; x is reordered (sorted). n = 0 gives all zeros. */
cb_summary cb_summarize(double *x, int n);

/* A performance guideline lhs <= rhs (Träff section 4) is violated when
 * the left side is slower beyond the tolerance: lhs > (1 + tol) * rhs. */
int cb_guideline_violated(double lhs, double rhs, double tol);

#endif
