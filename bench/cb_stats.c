#include <stdlib.h>
#include "cb_stats.h"

double cb_run_time(const double *a, const double *f, int p)
{
    double amin = a[0], fmax = f[0];
    for (int j = 1; j < p; j++) {
        if (a[j] < amin)
            amin = a[j];
        if (f[j] > fmax)
            fmax = f[j];
    }
    return fmax - amin;
}

double cb_elapsed_time(const double *a, const double *f, int p)
{
    double s = 0;
    for (int j = 0; j < p; j++)
        s += f[j] - a[j];
    return s / p;
}

double cb_slowest_time(const double *a, const double *f, int p)
{
    double t = f[0] - a[0];
    for (int j = 1; j < p; j++)
        if (f[j] - a[j] > t)
            t = f[j] - a[j];
    return t;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

cb_summary cb_summarize(double *x, int n)
{
    cb_summary s = {0, 0, 0, 0};
    if (n <= 0)
        return s;
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += x[i];
    s.min = x[0];
    s.max = x[n - 1];
    s.mean = sum / n;
    s.median = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
    return s;
}

int cb_guideline_violated(double lhs, double rhs, double tol)
{
    return lhs > (1.0 + tol) * rhs;
}
