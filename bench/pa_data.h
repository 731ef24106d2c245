/* What proxy_app sends and what each collective must return: values from
 * the sending rank, the element and the iteration, whole numbers far below
 * 2^53, so every sum is exact in doubles whatever order an algorithm adds
 * in, and a block from the wrong rank, place or iteration differs. */
#ifndef PA_DATA_H
#define PA_DATA_H

/* The calling rank in a grid of rows x cols, rows = consecutive ranks. */
typedef struct {
    int me, p, cols;   /* world rank, world size, row length */
    int it;            /* iteration */
} pa_where;

/* alltoall in a row, n doubles per pair */
void pa_alltoall_send(double *s, long n, const pa_where *w);
void pa_alltoall_want(double *x, long n, const pa_where *w);
/* allgather in a column, n doubles per rank */
void pa_allgather_send(double *s, long n, const pa_where *w);
void pa_allgather_want(double *x, long n, const pa_where *w);
/* allreduce (sum) on all ranks: dot product `which` (0, 1) of 2 doubles,
 * or a vector of n */
void pa_dot_send(double s[2], int which, const pa_where *w);
void pa_dot_want(double x[2], int which, const pa_where *w);
void pa_vec_send(double *s, long n, const pa_where *w);
void pa_vec_want(double *x, long n, const pa_where *w);
/* bcast from rank 0: the root's data (also what every rank must get) */
void pa_bcast_data(double *b, long n, const pa_where *w);

/* Index of the first element where got differs from want, or -1. */
long pa_mismatch(const double *got, const double *want, long n);

#endif
