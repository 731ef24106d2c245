/* An unmodified program that overlaps communication with computation: a
 * pipelined conjugate gradient solver (Ghysels & Vanroose 2014, without
 * preconditioner) whose one MPI_Iallreduce per iteration (two dot
 * products) runs while the next matrix-vector product computes, and whose
 * halo exchange (MPI_Isend / MPI_Irecv) is completed together with it by
 * one MPI_Waitall. Plain mpicc: the tests run it under the interposer with
 * allreduce algorithms selected. It solves A x = b for the 1-D operator
 * A = tridiag(-1, 4, -1) (n unknowns per rank), checks the true residual
 * ||b - A x|| and that a classic CG with blocking MPI_Allreduce takes the
 * same number of iterations (+-2).
 * usage: cg_app [n per rank, at least 2 (2000)] [thread] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL 1e-10
#define MAX_IT 500

static int rank, p, n;
static MPI_Comm comm;

/* y = A x; x's neighbours' edge values come by the halo exchange, which
 * the caller has posted into halo[0] (left), halo[1] (right) and
 * completed. */
static void apply_edges(const double *x, double *y, const double *halo)
{
    y[0] = 4 * x[0] - x[1] - halo[0];
    y[n - 1] = 4 * x[n - 1] - x[n - 2] - halo[1];
}

static void apply_inside(const double *x, double *y)
{
    for (int i = 1; i < n - 1; i++)
        y[i] = 4 * x[i] - x[i - 1] - x[i + 1];
}

/* Posts the halo exchange of x (4 requests into r; neighbours beyond the
 * ends are MPI_PROC_NULL, their halo values 0). */
static void post_halo(const double *x, double *halo, MPI_Request *r)
{
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < p - 1 ? rank + 1 : MPI_PROC_NULL;
    halo[0] = halo[1] = 0;
    MPI_Irecv(&halo[0], 1, MPI_DOUBLE, left, 1, comm, &r[0]);
    MPI_Irecv(&halo[1], 1, MPI_DOUBLE, right, 2, comm, &r[1]);
    MPI_Isend((void *)&x[n - 1], 1, MPI_DOUBLE, right, 1, comm, &r[2]);
    MPI_Isend((void *)&x[0], 1, MPI_DOUBLE, left, 2, comm, &r[3]);
}

static void matvec(const double *x, double *y)
{
    MPI_Request r[4];
    MPI_Status st[4];
    double halo[2];
    post_halo(x, halo, r);
    apply_inside(x, y);
    MPI_Waitall(4, r, st);
    apply_edges(x, y, halo);
}

static double dot(const double *a, const double *b)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static void rhs(double *b)
{
    for (int i = 0; i < n; i++)
        b[i] = 1.0 + (double)((rank * n + i) % 5);
}

/* Classic CG, blocking allreduce: the reference iteration count. */
static int cg_classic(double *x)
{
    double *b = malloc(sizeof(double) * n * 4), *r = b + n, *pp = r + n, *q = pp + n;
    rhs(b);
    memset(x, 0, sizeof(double) * n);
    memcpy(r, b, sizeof(double) * n);
    memcpy(pp, r, sizeof(double) * n);
    double bb = dot(b, b), rr = bb, g[2];
    MPI_Allreduce(MPI_IN_PLACE, &bb, 1, MPI_DOUBLE, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, &rr, 1, MPI_DOUBLE, MPI_SUM, comm);
    int it = 0;
    while (it < MAX_IT && sqrt(rr) > TOL * sqrt(bb)) {
        matvec(pp, q);
        g[0] = dot(pp, q);
        MPI_Allreduce(MPI_IN_PLACE, g, 1, MPI_DOUBLE, MPI_SUM, comm);
        double alpha = rr / g[0];
        for (int i = 0; i < n; i++) {
            x[i] += alpha * pp[i];
            r[i] -= alpha * q[i];
        }
        double rr_new = dot(r, r);
        MPI_Allreduce(MPI_IN_PLACE, &rr_new, 1, MPI_DOUBLE, MPI_SUM, comm);
        for (int i = 0; i < n; i++)
            pp[i] = r[i] + rr_new / rr * pp[i];
        rr = rr_new;
        it++;
    }
    free(b);
    return it;
}

/* Pipelined CG: the dot products' allreduce overlaps the next matrix-
 * vector product (its halo exchange completed with it in one Waitall). */
static int cg_pipelined(double *x)
{
    double *v = malloc(sizeof(double) * n * 10);
    double *b = v, *r = v + n, *u = v + 2 * n, *w = v + 3 * n, *m = v + 4 * n,
           *nn = v + 5 * n, *z = v + 6 * n, *q = v + 7 * n, *s = v + 8 * n, *pp = v + 9 * n;
    rhs(b);
    memset(x, 0, sizeof(double) * n);
    memcpy(r, b, sizeof(double) * n);
    memcpy(u, r, sizeof(double) * n);
    matvec(u, w);
    double bb = dot(b, b);
    MPI_Allreduce(MPI_IN_PLACE, &bb, 1, MPI_DOUBLE, MPI_SUM, comm);
    double gamma_old = 0, alpha = 0, g[2];
    int it = 0;
    for (; it < MAX_IT; it++) {
        g[0] = dot(r, u);
        g[1] = dot(w, u);
        MPI_Request req[5];
        MPI_Status st[5];
        double halo[2];
        MPI_Iallreduce(MPI_IN_PLACE, g, 2, MPI_DOUBLE, MPI_SUM, comm, &req[0]);
        memcpy(m, w, sizeof(double) * n);   /* no preconditioner: m = w */
        post_halo(m, halo, &req[1]);
        apply_inside(m, nn);
        MPI_Waitall(5, req, st);
        apply_edges(m, nn, halo);
        double gamma = g[0], delta = g[1];
        if (sqrt(gamma) <= TOL * sqrt(bb))   /* gamma = (r, r) here */
            break;
        double beta = it ? gamma / gamma_old : 0;
        alpha = it ? gamma / (delta - beta * gamma / alpha) : gamma / delta;
        for (int i = 0; i < n; i++) {
            z[i] = nn[i] + beta * z[i];
            q[i] = m[i] + beta * q[i];
            s[i] = w[i] + beta * s[i];
            pp[i] = u[i] + beta * pp[i];
            x[i] += alpha * pp[i];
            r[i] -= alpha * s[i];
            u[i] -= alpha * q[i];
            w[i] -= alpha * z[i];
        }
        gamma_old = gamma;
    }
    free(v);
    return it;
}

/* ||b - A x|| / ||b|| */
static double residual(const double *x)
{
    double *b = malloc(sizeof(double) * n * 2), *ax = b + n, sums[2] = {0, 0};
    rhs(b);
    matvec(x, ax);
    for (int i = 0; i < n; i++) {
        sums[0] += (b[i] - ax[i]) * (b[i] - ax[i]);
        sums[1] += b[i] * b[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
    free(b);
    return sqrt(sums[0] / sums[1]);
}

int main(int argc, char **argv)
{
    int provided, thread = 0;
    n = 2000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "thread") == 0)
            thread = 1;
        else
            n = atoi(argv[i]);
    }
    if (n < 2)
        n = 2;
    if (thread)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    double *x = malloc(sizeof(double) * n);
    int it_classic = cg_classic(x);
    double res_classic = residual(x);
    int it_pipe = 0;
    double res_pipe = 0, t0 = MPI_Wtime();
    for (int rep = 0; rep < 5; rep++) {   /* a loop, as a time-stepping code would */
        it_pipe = cg_pipelined(x);
        res_pipe = residual(x);
    }
    double t = MPI_Wtime() - t0;
    int ok = res_pipe < 1e-8 && res_classic < 1e-8 && abs(it_pipe - it_classic) <= 2 &&
             it_pipe < MAX_IT;
    if (rank == 0)
        printf("cg app: classic %d iterations (residual %.1e), pipelined %d (residual %.1e), "
               "%.3f s for 5 solves: %s\n", it_classic, res_classic, it_pipe, res_pipe, t,
               ok ? "OK" : "FAILED");
    free(x);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return !ok;
}
