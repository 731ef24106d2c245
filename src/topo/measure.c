/* Node distances: the node leaders ping-pong in a round-robin tournament
 * (circle method: every pair meets once in n-1 rounds for even n, n rounds
 * for odd, pairs of a round run in parallel), a few message sizes, the
 * median one-way time of each size, summed. Leader 0 (rank 0) gathers the
 * rows and symmetrises; the caller broadcasts. O(n) rounds instead of the
 * paper's all-pairs O(p^2) ping-pong; ranks of one node are not measured
 * (the rank maps say they are close). */
#include <stdlib.h>
#include <string.h>
#include "topo.h"

static const int sizes[] = {8, 262144};   /* latency and bandwidth */
#define NSIZES ((int)(sizeof sizes / sizeof *sizes))

static int reps(void)
{
    return (int)cx_knob_int(CX_KNOB_TOPO_REPS);   /* clamped to 1..100 */
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Partner of me in round r of the circle method with m (even) players;
 * players >= n are byes (-1). */
static int partner(int me, int r, int m, int n)
{
    int q;
    if (me == m - 1)
        q = r;
    else if (me == r)
        q = m - 1;
    else
        q = ((2 * r - me) % (m - 1) + (m - 1)) % (m - 1);
    return q < n ? q : -1;
}

/* One ping-pong series with peer; the lower index times it. */
static int ping_pong(MPI_Comm comm, int me, int peer, char *buf, int nrep, double *t)
{
    int err = MPI_SUCCESS;
    double *x = malloc((size_t)nrep * sizeof *x);
    if (!x)
        return MPI_ERR_NO_MEM;
    *t = 0;
    for (int k = 0; k < NSIZES && !err; k++) {
        for (int i = -1; i < nrep && !err; i++) {   /* i = -1: warm-up */
            double t0 = PMPI_Wtime();
            if (me < peer) {
                if (!(err = PMPI_Send(buf, sizes[k], MPI_BYTE, peer, k, comm)))
                    err = PMPI_Recv(buf, sizes[k], MPI_BYTE, peer, k, comm,
                                    MPI_STATUS_IGNORE);
            } else {
                if (!(err = PMPI_Recv(buf, sizes[k], MPI_BYTE, peer, k, comm,
                                      MPI_STATUS_IGNORE)))
                    err = PMPI_Send(buf, sizes[k], MPI_BYTE, peer, k, comm);
            }
            if (i >= 0)
                x[i] = (PMPI_Wtime() - t0) / 2;
        }
        qsort(x, (size_t)nrep, sizeof *x, cmp_double);
        *t += nrep % 2 ? x[nrep / 2] : (x[nrep / 2 - 1] + x[nrep / 2]) / 2;
    }
    free(x);
    return err;
}

int cx_topo_measure(cx_comm *c, double *node_dist, int *pairs)
{
    int n = c->nnodes, m = n + (n % 2), err = MPI_SUCCESS, me;
    *pairs = n * (n - 1) / 2;
    if (n < 2 || c->leaders == MPI_COMM_NULL) {
        if (c->rank == 0)
            memset(node_dist, 0, (size_t)n * n * sizeof *node_dist);
        return MPI_SUCCESS;
    }
    MPI_Comm comm;
    if ((err = PMPI_Comm_dup(c->leaders, &comm)))
        return err;
    PMPI_Comm_rank(comm, &me);
    int nrep = reps();
    char *buf = calloc((size_t)sizes[NSIZES - 1], 1);
    double *row = calloc((size_t)n, sizeof *row);
    err = buf && row ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    /* Same answer on every leader, so no one waits for a partner that
     * gave up: allreduce the error. */
    int bad = err != MPI_SUCCESS, anybad = 0;
    PMPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm);
    for (int r = 0; r < m - 1 && !anybad && !err; r++) {
        int q = partner(me, r, m, n);
        if (q >= 0)
            err = ping_pong(comm, me, q, buf, nrep, &row[q]);
    }
    if (!anybad && !err)
        err = PMPI_Gather(row, n, MPI_DOUBLE, node_dist, n, MPI_DOUBLE, 0, comm);
    if (!anybad && !err && me == 0)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < i; j++) {   /* both ends timed: the mean */
                double x = (node_dist[i * n + j] + node_dist[j * n + i]) / 2;
                node_dist[i * n + j] = node_dist[j * n + i] = x;
            }
    free(buf);
    free(row);
    PMPI_Comm_free(&comm);
    return anybad ? MPI_ERR_NO_MEM : err;
}
