/* proxy_app's data and expected results (pa_data.h). */
#include "pa_data.h"

/* Element k of the block world rank src sends to row position dst:
 * distinct for every (src, dst, k) of an iteration. */
static double a2a(const pa_where *w, long src, long dst, long k, long n)
{
    return ((double)src * w->p + (double)dst) * (double)n + (double)k + w->it;
}

void pa_alltoall_send(double *s, long n, const pa_where *w)
{
    for (long j = 0; j < w->cols; j++)
        for (long k = 0; k < n; k++)
            s[j * n + k] = a2a(w, w->me, j, k, n);
}

void pa_alltoall_want(double *x, long n, const pa_where *w)
{
    long row0 = w->me - w->me % w->cols, pos = w->me % w->cols;
    for (long j = 0; j < w->cols; j++)
        for (long k = 0; k < n; k++)
            x[j * n + k] = a2a(w, row0 + j, pos, k, n);
}

static double gathered(const pa_where *w, long src, long k, long n)
{
    return (double)src * (double)n + (double)k + w->it;
}

void pa_allgather_send(double *s, long n, const pa_where *w)
{
    for (long k = 0; k < n; k++)
        s[k] = gathered(w, w->me, k, n);
}

/* The column of me: world ranks me % cols, + cols, ... in rank order. */
void pa_allgather_want(double *x, long n, const pa_where *w)
{
    long rows = w->p / w->cols, col = w->me % w->cols;
    for (long i = 0; i < rows; i++)
        for (long k = 0; k < n; k++)
            x[i * n + k] = gathered(w, col + i * w->cols, k, n);
}

void pa_dot_send(double s[2], int which, const pa_where *w)
{
    s[0] = which ? (double)w->it - w->me : (double)w->me + w->it;
    s[1] = which ? 1.0 : 2.0 * w->me + 1;
}

void pa_dot_want(double x[2], int which, const pa_where *w)
{
    double p = w->p, tri = p * (p - 1) / 2;   /* sum of the ranks */
    x[0] = which ? p * w->it - tri : p * w->it + tri;
    x[1] = which ? p : p * p;
}

void pa_vec_send(double *s, long n, const pa_where *w)
{
    for (long k = 0; k < n; k++)
        s[k] = (double)w->me + (double)k + w->it;
}

void pa_vec_want(double *x, long n, const pa_where *w)
{
    double p = w->p, tri = p * (p - 1) / 2;
    for (long k = 0; k < n; k++)
        x[k] = p * ((double)k + w->it) + tri;
}

void pa_bcast_data(double *b, long n, const pa_where *w)
{
    for (long k = 0; k < n; k++)
        b[k] = 3.0 * w->it + (double)k + 1;
}

long pa_mismatch(const double *got, const double *want, long n)
{
    for (long k = 0; k < n; k++)
        if (got[k] != want[k])
            return k;
    return -1;
}
