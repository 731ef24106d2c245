/* Several threads calling collx collectives at the same time, each on its
 * own duplicate of MPI_COMM_WORLD (MPI_THREAD_MULTIPLE), results checked.
 *
 * Round r forces, before the threads start, the r-th registered algorithm
 * (modulo their number, native included) of every collective with
 * CX_Algorithm_set; the threads then run every collective twice: once all
 * on different collectives at the same time, once all on the same one.
 * Each call alternates blocking, CX_I + CX_Wait and CX_I + CX_Test, small
 * and rendezvous-sized counts, first and last root. The communicators are
 * new in every round, so collx sets up its per-communicator state in
 * several threads at once too.
 *   robust_threads [nthreads]     (default 4)
 * No MPI_THREAD_MULTIPLE: a failure that says so. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "collx.h"
#include "robust.h"
#include "robust_calls.h"

#define MAXT 16
#define WATCHDOG 120   /* s per round; ROBUST_WATCHDOG=<s> changes it (debugging) */

static int rank, size, nthreads = 4, ncolls;
static const char *colls[32];

typedef struct {
    int id, round, failures, calls;
    MPI_Comm comm;
} worker;

static void one(worker *w, const char *coll, int step)
{
    static const MPI_Aint counts[3] = {7, 9000, 1};   /* 9000 longs: 72 KB */
    for (int v = 0; v < 3; v++) {
        call c = {.coll = coll, .e = &t_long, .count = counts[v],
                  .root = (step + v) % 2 ? size - 1 : 0,
                  .salt = (w->round * 64 + step) * 4 + v, .comm = w->comm, .nb = v};
        int err = rc_run(&c);
        w->calls++;
        if (err != MPI_SUCCESS || c.bad >= 0) {
            w->failures++;
            fprintf(stderr, "FAIL threads round=%d thread=%d rank=%d %s/%s count=%ld root=%d "
                    "%s: %s%s (first wrong at %lld, %s)\n", w->round, w->id, rank, coll,
                    CX_Algorithm_get(coll), (long)c.count, c.root,
                    v == 0 ? "blocking" : v == 1 ? "CX_Wait" : "CX_Test",
                    err ? "returned " : "wrong data", err ? rb_class_name(rb_class(err)) : "",
                    c.bad, c.where[0] ? c.where : "-");
        }
    }
}

static void *work(void *arg)
{
    worker *w = arg;
    /* Different collectives at once (thread t starts t further), then all
     * threads on the same collective. */
    for (int s = 0; s < ncolls; s++)
        one(w, colls[(s + w->id) % ncolls], s);
    for (int s = 0; s < ncolls; s++)
        one(w, colls[s], ncolls + s);
    return NULL;
}

static char stuck[200];
static size_t stuck_len;

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t n = write(2, stuck, stuck_len);
    (void)n;
    _exit(3);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("threads: FAILED: the MPI provides thread level %d, not "
                   "MPI_THREAD_MULTIPLE (%d): nothing was tested\n", provided,
                   MPI_THREAD_MULTIPLE);
        MPI_Finalize();
        return 1;
    }
    if (argc > 1)
        nthreads = atoi(argv[1]);
    if (nthreads < 2 || nthreads > MAXT)
        nthreads = 4;
    rc_make_types();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    int rounds = 1, watchdog = WATCHDOG;
    if (getenv("ROBUST_WATCHDOG") && atoi(getenv("ROBUST_WATCHDOG")) > 0)
        watchdog = atoi(getenv("ROBUST_WATCHDOG"));
    for (int i = 0; i < CX_Collective_count() && ncolls < 32; i++) {
        colls[ncolls++] = CX_Collective_name(i);
        int n = CX_Algorithm_count(colls[ncolls - 1]);
        rounds = n > rounds ? n : rounds;
    }
    int failures = 0, calls = 0;
    double t0 = MPI_Wtime();
    for (int r = 0; r < rounds; r++) {
        char forced[1024];
        int len = 0;
        for (int i = 0; i < ncolls; i++) {
            const char *alg = CX_Algorithm_name(colls[i], r % CX_Algorithm_count(colls[i]));
            if (CX_Algorithm_set(colls[i], alg) != MPI_SUCCESS)
                failures++;
            if (len < (int)sizeof forced - 40)
                len += snprintf(forced + len, sizeof forced - len, " %s=%s", colls[i], alg);
        }
        if (rank == 0) {
            fprintf(stderr, "threads: round %d:%s\n", r, forced);
            fflush(stderr);
        }
        worker w[MAXT];
        pthread_t th[MAXT];
        for (int t = 0; t < nthreads; t++) {
            w[t] = (worker){.id = t, .round = r};
            MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm);
            MPI_Comm_set_errhandler(w[t].comm, MPI_ERRORS_RETURN);
        }
        int n = snprintf(stuck, sizeof stuck, "FAIL threads rank=%d: HANG in round %d, not "
                         "done after %d s\n", rank, r, watchdog);
        stuck_len = n < (int)sizeof stuck ? (size_t)n : sizeof stuck - 1;
        alarm((unsigned)watchdog);
        for (int t = 0; t < nthreads; t++)
            if (pthread_create(&th[t], NULL, work, &w[t])) {
                fprintf(stderr, "threads: cannot create a thread\n");
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        for (int t = 0; t < nthreads; t++) {
            pthread_join(th[t], NULL);
            failures += w[t].failures;
            calls += w[t].calls;
            MPI_Comm_free(&w[t].comm);
        }
        alarm(0);
    }
    int total = 0;
    MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total)
            printf("threads: FAILED (%d failures, p=%d, %d threads)\n", total, size, nthreads);
        else
            printf("threads: OK (p=%d, %d threads, %d rounds, %d calls per rank, %.0f s)\n",
                   size, nthreads, rounds, calls, MPI_Wtime() - t0);
    }
    rc_free_types();
    MPI_Finalize();
    return total ? 1 : 0;
}
