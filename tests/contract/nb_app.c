/* An ordinary MPI program with nonblocking collectives that knows nothing
 * of collx (plain mpicc): the tests run it under LD_PRELOAD=libcollx_pmpi.so
 * with algorithms selected, so that its requests are collx's generalized
 * requests. It checks its own results:
 *   - waiting on a mixed array without a progress thread: rank 0 waits for
 *     an allreduce and a message that rank 1 sends only once its own wait
 *     for that allreduce returned (so rank 0's wait must move the
 *     allreduce on);
 *   - several calls in flight on one communicator and on another, with
 *     point-to-point requests, completed by MPI_Waitsome;
 *   - MPI_Request_get_status, then MPI_Wait;
 *   - a communicator freed while a call on it is in flight;
 *   - derived datatypes freed while a call that uses them is in flight;
 *   - the count and displacement arrays of v-collectives overwritten and
 *     freed as soon as the call returned (erroneous by MPI's letter, but
 *     the MPIs read them only then, and mpi4py 4.1.2 frees them so in
 *     Iallgatherv and Ireduce_scatter), with zero counts among them;
 *   - with argument "free": a request freed with MPI_Request_free (checked
 *     after MPI_Finalize, which must let it finish; MPI-3.1 calls this
 *     erroneous for the MPIs' own nonblocking collectives, Open MPI
 *     refuses it);
 *   - with argument "thread" (MPI_THREAD_MULTIPLE): threads that each
 *     start and wait for calls on their own communicator at once.
 * usage: nb_app [thread] [free] */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (1 << 17)   /* doubles: 1 MiB, above every eager limit */
#define NTHREADS 3
#define THREAD_ITERS 20

static int rank, p, bad;

static void expect(const char *what, long got, long want)
{
    if (got != want && bad++ < 10)
        printf("rank %d: %s: got %ld, want %ld\n", rank, what, got, want);
}

/* Rank 0 must move the allreduce on inside MPI_Waitall: rank 1 sends its
 * token only after its own MPI_Wait for the allreduce returned. */
static void mixed_wait(void)
{
    double *x = malloc(sizeof(double) * BIG), *y = malloc(sizeof(double) * BIG);
    int token = -1, mine = 42;
    for (int i = 0; i < BIG; i++)
        x[i] = rank + i % 7;
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Iallreduce(x, y, BIG, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    if (rank == 0 && p > 1)
        MPI_Irecv(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &r[1]);
    if (rank == 1) {
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Send(&mine, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
    MPI_Status st[2];   /* (not MPI_STATUSES_IGNORE: gcc warns with MPICH's mpi.h) */
    MPI_Waitall(2, r, st);
    if (rank == 0 && p > 1)
        expect("mixed wait: token", token, 42);
    for (int i = 0; i < BIG; i += 4099)
        expect("mixed wait: allreduce", (long)y[i], (long)p * (p - 1) / 2 + (long)p * (i % 7));
    free(x);
    free(y);
}

/* Four collectives on two communicators and a ring exchange in flight at
 * once, completed in any order by MPI_Waitsome. */
static void several(MPI_Comm other)
{
    int n = 1000, left = (rank + p - 1) % p;
    int *a = malloc(sizeof(int) * n * p), *b = malloc(sizeof(int) * n * p);
    int *c = malloc(sizeof(int) * n), *g = malloc(sizeof(int) * p);
    int s = rank, sum = -1, tok = 500 + rank, got = -1;
    for (int i = 0; i < n * p; i++)
        a[i] = rank * 100000 + i;
    for (int i = 0; i < n; i++)
        c[i] = rank == p - 1 ? 3 * i : -1;
    MPI_Request r[6];
    MPI_Ialltoall(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD, &r[0]);
    MPI_Iallreduce(&s, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    MPI_Ibcast(c, n, MPI_INT, p - 1, other, &r[2]);
    MPI_Iallgather(&s, 1, MPI_INT, g, 1, MPI_INT, other, &r[3]);
    MPI_Irecv(&got, 1, MPI_INT, left, 8, other, &r[4]);
    MPI_Isend(&tok, 1, MPI_INT, (rank + 1) % p, 8, other, &r[5]);
    int done = 0, out, idx[6];
    MPI_Status st[6];
    while (done < 6) {
        MPI_Waitsome(6, r, &out, idx, st);
        if (out == MPI_UNDEFINED)
            break;
        for (int k = 0; k < out; k++)
            if (idx[k] == 4) {
                expect("several: receive source", st[k].MPI_SOURCE, left);
                expect("several: receive tag", st[k].MPI_TAG, 8);
            }
        done += out;
    }
    expect("several: completed", done, 6);
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i += 97)
            expect("several: alltoall", b[j * n + i], j * 100000L + rank * n + i);
    expect("several: allreduce", sum, (long)p * (p - 1) / 2);
    for (int i = 0; i < n; i += 13)
        expect("several: bcast", c[i], 3L * i);
    for (int j = 0; j < p; j++)
        expect("several: allgather", g[j], j);
    expect("several: ring", got, 500 + left);
    free(a);
    free(b);
    free(c);
    free(g);
}

/* MPI_Request_get_status does not release the request; MPI_Wait then
 * returns at once. */
static void get_status(void)
{
    int s = rank + 1, sum = 0, flag = 0;
    MPI_Request r;
    MPI_Status st;
    MPI_Iallreduce(&s, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    while (!flag) {
        MPI_Request_get_status(r, &flag, &st);
        if (!flag)
            sched_yield();
    }
    expect("get_status: request kept", r != MPI_REQUEST_NULL, 1);
    int cancelled = 1;
    MPI_Test_cancelled(&st, &cancelled);
    expect("get_status: not cancelled", cancelled, 0);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    expect("get_status: released by the wait", r == MPI_REQUEST_NULL, 1);
    expect("get_status: allreduce", sum, (long)p * (p + 1) / 2);
}

/* MPI_Comm_free while an alltoall on the communicator is in flight: the
 * call completes. */
static void comm_freed(void)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int n = BIG / p / 4;
    int *a = malloc(sizeof(int) * n * p), *b = malloc(sizeof(int) * n * p);
    for (int i = 0; i < n * p; i++)
        a[i] = rank + 10 * i;
    MPI_Request r;
    MPI_Ialltoall(a, n, MPI_INT, b, n, MPI_INT, dup, &r);
    MPI_Comm_free(&dup);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i += 101)
            expect("comm freed: alltoall", b[j * n + i], j + 10L * (rank * n + i));
    free(a);
    free(b);
}

/* Derived datatypes freed right after the calls started: an allgather of
 * a strided type and an alltoall of a contiguous one. */
static void types_freed(void)
{
    int n = 5000, m = 1500;
    MPI_Datatype strided, pair;
    MPI_Type_vector(n, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int *s = malloc(sizeof(int) * 2 * n), *g = malloc(sizeof(int) * 2 * n * p);
    int *x = malloc(sizeof(int) * 2 * m * p), *y = malloc(sizeof(int) * 2 * m * p);
    for (int i = 0; i < 2 * n; i++)
        s[i] = i % 2 ? -7 : rank * 1000000 + i / 2;
    for (int i = 0; i < 2 * n * p; i++)
        g[i] = -1;
    for (int i = 0; i < 2 * m * p; i++)
        x[i] = rank * 1000000 + i;
    MPI_Request r[2];
    MPI_Iallgather(s, 1, strided, g, 1, strided, MPI_COMM_WORLD, &r[0]);
    MPI_Ialltoall(x, m, pair, y, m, pair, MPI_COMM_WORLD, &r[1]);
    MPI_Type_free(&strided);
    MPI_Type_free(&pair);
    MPI_Status st[2];
    MPI_Waitall(2, r, st);
    /* block j starts at j's extent: (2n - 1) ints */
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i += 37)
            expect("type freed: allgather", g[j * (2 * n - 1) + 2 * i], j * 1000000L + i);
    for (int j = 0; j < p; j++)
        for (int i = 0; i < 2 * m; i += 53)
            expect("type freed: alltoall", y[j * 2 * m + i], j * 1000000L + rank * 2 * m + i);
    free(s);
    free(g);
    free(x);
    free(y);
}

/* An array of p ints the program gives up as soon as the call returned
 * (scrap: overwritten with nonsense, then freed). */
static int *ints(int n) { return malloc(sizeof(int) * (size_t)(n ? n : 1)); }

static void scrap(int *v)
{
    for (int i = 0; i < p; i++)
        v[i] = -1000;
    free(v);
}

/* Elements of the block from -> to in round k: none in round 0, else
 * some empty blocks among others. */
static int count_of(int from, int to, int k) { return k ? (from + to + k) % 3 : 0; }

/* v-collectives whose count and displacement arrays are gone while the
 * calls run: each waited at once (as mpi4py's tests do: rounds of empty
 * and small blocks), then all of them in flight together. Rank j's block
 * has count_of(j, 0, k) elements in round k, at displacements with
 * gaps. */
static void arrays_freed(void)
{
    enum { GAP = 2, NCALLS = 5 };
    int stride = 3 + GAP, total = p * stride, root = p - 1;
    int *sb = ints(total), *ag = ints(total), *rs = ints(3), *gv = ints(total);
    int *sv = ints(3), *av = ints(total), *rsb = ints(3 * p);
    for (int k = 0; k <= p + 1; k++) {
        int all = k == p + 1, mine = count_of(rank, 0, k);
        for (int i = 0; i < total; i++) {
            sb[i] = rank * 1000 + i;
            ag[i] = gv[i] = av[i] = -1;
        }
        for (int i = 0; i < 3 * p; i++)
            rsb[i] = rank + i;
        rs[0] = rs[1] = rs[2] = sv[0] = sv[1] = sv[2] = -1;
        MPI_Request r[NCALLS];
        int *c[2 * NCALLS + 2];
        for (int i = 0; i < 2 * NCALLS + 2; i++)
            c[i] = ints(p);
        for (int j = 0; j < p; j++) {
            int n = count_of(j, 0, k), m = count_of(rank, j, k);   /* m: rank -> j */
            c[0][j] = c[2][j] = c[4][j] = c[6][j] = n;
            c[1][j] = c[3][j] = c[5][j] = j * stride + GAP;
            c[7][j] = m;                                      /* alltoallv send */
            c[8][j] = j * stride;
            c[9][j] = count_of(j, rank, k);
            c[10][j] = j * stride + 1;
        }
        MPI_Iallgatherv(sb, mine, MPI_INT, ag, c[0], c[1], MPI_INT, MPI_COMM_WORLD, &r[0]);
        MPI_Ireduce_scatter(rsb, rs, c[2], MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
        MPI_Igatherv(sb, mine, MPI_INT, gv, c[4], c[5], MPI_INT, root, MPI_COMM_WORLD, &r[2]);
        MPI_Iscatterv(sb, c[6], c[3], MPI_INT, sv, mine, MPI_INT, root, MPI_COMM_WORLD, &r[3]);
        MPI_Ialltoallv(sb, c[7], c[8], MPI_INT, av, c[9], c[10], MPI_INT, MPI_COMM_WORLD,
                       &r[4]);
        for (int i = 0; i < 2 * NCALLS + 2; i++)
            scrap(c[i]);
        for (int i = 0; i < NCALLS; i++)
            if (!all)   /* each at once, else all together */
                MPI_Wait(&r[i], MPI_STATUS_IGNORE);
        MPI_Status st[NCALLS];
        if (all)
            MPI_Waitall(NCALLS, r, st);
        int rsoff = 0;
        for (int j = 0; j < rank; j++)
            rsoff += count_of(j, 0, k);
        for (int j = 0; j < p; j++) {
            int n = count_of(j, 0, k), m = count_of(j, rank, k);
            for (int i = 0; i < 3; i++) {
                expect("arrays freed: allgatherv", ag[j * stride + GAP + i],
                       i < n ? j * 1000L + i : -1);
                if (rank == root)
                    expect("arrays freed: gatherv", gv[j * stride + GAP + i],
                           i < n ? j * 1000L + i : -1);
                /* j sent its block for rank from its offset rank * stride */
                expect("arrays freed: alltoallv", av[j * stride + 1 + i],
                       i < m ? j * 1000L + rank * stride + i : -1);
            }
        }
        for (int i = 0; i < 3; i++) {
            expect("arrays freed: reduce_scatter", rs[i],
                   i < mine ? (long)p * (p - 1) / 2 + (long)p * (rsoff + i) : -1);
            expect("arrays freed: scatterv", sv[i],
                   i < mine ? root * 1000L + rank * stride + GAP + i : -1);
        }
    }
    free(sb);
    free(ag);
    free(rs);
    free(gv);
    free(sv);
    free(av);
    free(rsb);
}

/* Threads, each on its own communicator, start and wait at once. */
typedef struct worker {
    MPI_Comm comm;
    int id, bad;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    int n = 2000;
    int *a = malloc(sizeof(int) * n), *b = malloc(sizeof(int) * n);
    for (int it = 0; it < THREAD_ITERS; it++) {
        for (int i = 0; i < n; i++)
            a[i] = rank + w->id + it + i;
        MPI_Request r;
        MPI_Iallreduce(a, b, n, MPI_INT, MPI_SUM, w->comm, &r);
        if (it % 2) {
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            int flag = 0;
            while (!flag) {
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
                if (!flag)
                    sched_yield();
            }
        }
        for (int i = 0; i < n; i += 111)
            w->bad += b[i] != p * (p - 1) / 2 + p * (w->id + it + i);
    }
    free(a);
    free(b);
    return NULL;
}

static void threads(void)
{
    worker w[NTHREADS];
    pthread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        w[i].id = i;
        w[i].bad = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &w[i].comm);
    }
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, work, &w[i]);
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(t[i], NULL);
        expect("threads: wrong elements", w[i].bad, 0);
        MPI_Comm_free(&w[i].comm);
    }
}

int main(int argc, char **argv)
{
    int want_threads = 0, want_free = 0, provided = 0;
    for (int i = 1; i < argc; i++) {
        want_threads |= strcmp(argv[i], "thread") == 0;
        want_free |= strcmp(argv[i], "free") == 0;
    }
    if (want_threads)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm other;
    MPI_Comm_dup(MPI_COMM_WORLD, &other);
    mixed_wait();
    several(other);
    get_status();
    comm_freed();
    types_freed();
    arrays_freed();
    if (want_threads && provided == MPI_THREAD_MULTIPLE)
        threads();
    else if (want_threads)
        expect("MPI_THREAD_MULTIPLE provided", provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_free(&other);

    /* Freed in flight: MPI_Finalize must let it finish. */
    int n = BIG, *a = malloc(sizeof(int) * n), *b = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) {
        a[i] = rank + i;
        b[i] = -1;
    }
    MPI_Request r;
    if (want_free) {
        MPI_Iallreduce(a, b, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r);
        MPI_Request_free(&r);
        expect("request freed: handle", r == MPI_REQUEST_NULL, 1);
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    for (int i = 0; want_free && i < n; i += 1009)
        expect("request freed: allreduce after MPI_Finalize", b[i], p - 1 + i);
    if (rank == 0)
        printf("nb app: %s\n", any ? "FAILED" : "OK");
    if (bad)
        printf("rank %d: nb app: FAILED after MPI_Finalize\n", rank);
    free(a);
    free(b);
    return any || bad;
}
