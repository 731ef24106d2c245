/* An ordinary MPI program with persistent collectives (MPI-4's
 * MPI_<Name>_init, Open MPI 4.1's MPIX_<Name>_init) that knows nothing of
 * collx (plain mpicc): the tests run it under LD_PRELOAD=libcollx_pmpi.so
 * with algorithms selected. It checks its own results:
 *   - an allreduce, a gatherv and an alltoall on one communicator and an
 *     allgather on another, initialised once and started ITERS times with
 *     the send buffers changed between starts, by MPI_Startall and
 *     completed by MPI_Waitall beside a ring of point-to-point requests,
 *     then by MPI_Start + MPI_Test / MPI_Wait / MPI_Waitany / MPI_Testall;
 *   - the requests stay (inactive) after completion; MPI_Wait on an
 *     inactive one returns at once; MPI_Request_get_status;
 *   - MPI_Request_free;
 *   - with argument "thread" (MPI_THREAD_MULTIPLE): two threads, each
 *     starting and waiting for its own persistent allreduce;
 *   - starts in a different order on every rank (MPI-4 orders only the
 *     inits): a bcast, an allreduce, a gather and a barrier, each rank
 *     starting them rotated by its rank (and by the round), one at a
 *     time with MPI_Start, then MPI_Waitall.
 * usage: persist_app [thread] */
#include <mpi.h>
#if defined(OPEN_MPI) && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if MPI_VERSION >= 4   /* MPICH 4-5, Intel MPI, the MPI 5 ABI (mpi_abi.h) */
#define INIT(name) MPI_##name##_init
#elif defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5  /* MPI_VERSION 3 */
#define INIT(name) MPI_##name##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define INIT(name) MPIX_##name##_init
#endif

#define ITERS 6
#define N 5000

static int rank, p, bad;

static void expect(const char *what, long it, long got, long want)
{
    if (got != want && bad++ < 10)
        printf("rank %d: %s (start %ld): got %ld, want %ld\n", rank, what, it, got, want);
}

#ifdef INIT
typedef struct calls {
    MPI_Request r[4];
    int *x, *sum, *gs, *g, *counts, *displs, *a, *b, mine, *all;
} calls;

static void fill(calls *k, int it)
{
    for (int i = 0; i < N; i++)
        k->x[i] = rank + it + i;
    for (int i = 0; i < rank + 1; i++)
        k->gs[i] = 1000 * rank + 10 * it + i;
    for (int i = 0; i < N * p; i++)
        k->a[i] = 100000 * rank + i + it;
    k->mine = rank * 7 + it;
}

static void check(calls *k, int it)
{
    for (int i = 0; i < N; i += 97)
        expect("allreduce", it, k->sum[i], (long)p * (p - 1) / 2 + (long)p * (it + i));
    if (rank == p - 1)
        for (int j = 0; j < p; j++)
            for (int i = 0; i <= j; i++)
                expect("gatherv", it, k->g[k->displs[j] + i], 1000L * j + 10 * it + i);
    for (int j = 0; j < p; j++)
        for (int i = 0; i < N; i += 101)
            expect("alltoall", it, k->b[j * N + i], 100000L * j + rank * N + i + it);
    for (int j = 0; j < p; j++)
        expect("allgather", it, k->all[j], j * 7L + it);
}

/* A ring of point-to-point requests on comm into r[0..1]. */
static void ring(MPI_Comm comm, int *tok, int *got, MPI_Request *r)
{
    MPI_Irecv(got, 1, MPI_INT, (rank + p - 1) % p, 3, comm, &r[0]);
    MPI_Isend(tok, 1, MPI_INT, (rank + 1) % p, 3, comm, &r[1]);
}

static void persistent(MPI_Comm other)
{
    calls k = {.mine = 0};
    k.x = malloc(sizeof(int) * N);
    k.sum = malloc(sizeof(int) * N);
    k.gs = malloc(sizeof(int) * (size_t)(rank + 1));
    k.g = malloc(sizeof(int) * (size_t)p * (p + 1));
    k.counts = malloc(sizeof(int) * (size_t)p);
    k.displs = malloc(sizeof(int) * (size_t)p);
    k.a = malloc(sizeof(int) * N * (size_t)p);
    k.b = malloc(sizeof(int) * N * (size_t)p);
    k.all = malloc(sizeof(int) * (size_t)p);
    for (int j = 0, d = 0; j < p; j++) {   /* reversed blocks with gaps */
        k.counts[j] = j + 1;
        k.displs[p - 1 - j] = d;
        d += p - j + 1;
    }
    fill(&k, 0);   /* (the contents may change between starts, not must) */
    INIT(Allreduce)(k.x, k.sum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &k.r[0]);
    INIT(Gatherv)(k.gs, rank + 1, MPI_INT, k.g, k.counts, k.displs, MPI_INT, p - 1,
                  MPI_COMM_WORLD, MPI_INFO_NULL, &k.r[1]);
    INIT(Alltoall)(k.a, N, MPI_INT, k.b, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &k.r[2]);
    INIT(Allgather)(&k.mine, 1, MPI_INT, k.all, 1, MPI_INT, other, MPI_INFO_NULL, &k.r[3]);
    MPI_Request keep[4];
    memcpy(keep, k.r, sizeof keep);
    for (int it = 0; it < ITERS; it++) {
        fill(&k, it);
        int tok = rank + it, got = -1, flag = 0, idx;
        MPI_Request all[6];
        MPI_Status st[6];
        switch (it % 3) {
        case 0:   /* Startall, one Waitall beside the ring */
            MPI_Startall(4, k.r);
            memcpy(all, k.r, sizeof k.r);
            ring(other, &tok, &got, &all[4]);
            MPI_Waitall(6, all, st);
            for (int i = 0; i < 4; i++)
                expect("Waitall kept the persistent request", it, all[i] == keep[i], 1);
            expect("ring", it, got, (rank + p - 1) % p + it);
            break;
        case 1:   /* Start each; Test, Wait, Waitany, Testall */
            for (int i = 0; i < 4; i++)
                MPI_Start(&k.r[i]);
            while (!flag) {
                MPI_Test(&k.r[0], &flag, &st[0]);
                if (!flag)
                    sched_yield();
            }
            MPI_Wait(&k.r[1], &st[1]);
            MPI_Waitany(2, &k.r[2], &idx, &st[2]);
            flag = 0;
            while (!flag) {
                MPI_Testall(2, &k.r[2], &flag, st);
                if (!flag)
                    sched_yield();
            }
            break;
        default:   /* get_status until done, then Wait (at once) */
            MPI_Startall(4, k.r);
            for (int i = 0; i < 4; i++) {
                flag = 0;
                while (!flag) {
                    MPI_Request_get_status(k.r[i], &flag, &st[0]);
                    if (!flag)
                        sched_yield();
                }
                MPI_Wait(&k.r[i], &st[0]);
            }
        }
        for (int i = 0; i < 4; i++)
            expect("request kept", it, k.r[i] == keep[i], 1);
        MPI_Wait(&k.r[0], &st[0]);   /* inactive: at once */
        check(&k, it);
    }
    for (int i = 0; i < 4; i++) {
        MPI_Request_free(&k.r[i]);
        expect("freed", -1, k.r[i] == MPI_REQUEST_NULL, 1);
    }
    free(k.x);
    free(k.sum);
    free(k.gs);
    free(k.g);
    free(k.counts);
    free(k.displs);
    free(k.a);
    free(k.b);
    free(k.all);
}

typedef struct worker {
    MPI_Comm comm;
    int id, bad;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    int x[100] = {0}, sum[100];
    MPI_Request r;
    INIT(Allreduce)(x, sum, 100, MPI_INT, MPI_SUM, w->comm, MPI_INFO_NULL, &r);
    for (int it = 0; it < 20; it++) {
        for (int i = 0; i < 100; i++)
            x[i] = rank + w->id + it + i;
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (int i = 0; i < 100; i += 7)
            w->bad += sum[i] != p * (p - 1) / 2 + p * (w->id + it + i);
    }
    MPI_Request_free(&r);
    return NULL;
}

static void threads(void)
{
    worker w[2];
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {   /* inits are collective: not in the threads */
        w[i] = (worker){.id = i};
        MPI_Comm_dup(MPI_COMM_WORLD, &w[i].comm);
    }
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, &w[i]);
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        expect("threads: wrong elements", i, w[i].bad, 0);
        MPI_Comm_free(&w[i].comm);
    }
}
#endif

#ifdef INIT
/* Starts out of matching order: init order is the same everywhere, start
 * order is rotated by rank and round. */
static void out_of_order(void)
{
    enum { CALLS = 4, M = 3000 };
    int *b = malloc(M * sizeof *b), *x = malloc(M * sizeof *x), *sum = malloc(M * sizeof *sum);
    int *g = malloc((size_t)p * 2 * sizeof *g), mine[2];
    MPI_Request r[CALLS];
    int root = p - 1;
    INIT(Bcast)(b, M, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    INIT(Allreduce)(x, sum, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    INIT(Gather)(mine, 2, MPI_INT, g, 2, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
    INIT(Barrier)(MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]);
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < M; i++) {
            b[i] = rank == 0 ? 7 * i + it : -1;
            x[i] = rank * i + it;
        }
        mine[0] = rank + it;
        mine[1] = -rank;
        for (int k = 0; k < CALLS; k++)
            MPI_Start(&r[(k + rank + it) % CALLS]);
        MPI_Status st[CALLS];
        MPI_Waitall(CALLS, r, st);
        for (int i = 0; i < M; i++) {
            expect("out of order: bcast", it, b[i], 7 * i + it);
            expect("out of order: allreduce", it, sum[i], (long)i * p * (p - 1) / 2 + (long)p * it);
        }
        for (int q = 0; rank == root && q < p; q++) {
            expect("out of order: gather", it, g[2 * q], q + it);
            expect("out of order: gather", it, g[2 * q + 1], -q);
        }
    }
    for (int k = 0; k < CALLS; k++)   /* freed in any order too (local) */
        MPI_Request_free(&r[(k + rank) % CALLS]);
    /* made and freed again and again (MPICH's p_gather makes 300): what
     * a freed request held must go, or not pile up */
    for (int it = 0; it < 60; it++) {
        MPI_Request q[2];
        int n = 1 + it % 7, *all = malloc((size_t)p * (size_t)n * sizeof *all);
        int *v = malloc((size_t)n * sizeof *v);
        for (int i = 0; i < n; i++)
            v[i] = rank * 100 + i + it;
        INIT(Gather)(v, n, MPI_INT, all, n, MPI_INT, it % p, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]);
        INIT(Barrier)(MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]);
        MPI_Start(&q[(rank + it) % 2]);
        MPI_Start(&q[(rank + it + 1) % 2]);
        /* statuses kept: MPICH's header marks the array written, and gcc
         * then warns about MPI_STATUSES_IGNORE (a pointer to nothing) */
        MPI_Status st[2];
        MPI_Waitall(2, q, st);
        for (int j = 0; rank == it % p && j < p * n; j++)
            expect("init and free: gather", it, all[j], (j / n) * 100 + j % n + it);
        MPI_Request_free(&q[(rank + it) % 2]);
        MPI_Request_free(&q[(rank + it + 1) % 2]);
        free(all), free(v);
    }
    free(b), free(x), free(sum), free(g);
}
#endif

int main(int argc, char **argv)
{
    int want_threads = argc > 1 && strcmp(argv[1], "thread") == 0, provided = 0;
    if (want_threads)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
#ifdef INIT
    MPI_Comm other;
    MPI_Comm_dup(MPI_COMM_WORLD, &other);
    persistent(other);
    MPI_Comm_free(&other);
    out_of_order();
    if (want_threads && provided == MPI_THREAD_MULTIPLE)
        threads();
    else if (want_threads)
        expect("MPI_THREAD_MULTIPLE provided", 0, provided, MPI_THREAD_MULTIPLE);
#else
    bad = 1;
    if (rank == 0)
        printf("persist app: this MPI declares no persistent collectives\n");
#endif
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("persist app: %s\n", any ? "FAILED" : "OK");
    MPI_Finalize();
    return any != 0;
}
