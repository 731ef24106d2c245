/* An error on one rank never strands the others (issue 14).
 *
 * For every collx algorithm of gather, gatherv, scatter, scatterv, bcast,
 * reduce and allgather, on a communicator with MPI_ERRORS_RETURN:
 *   - one rank t posts a receive that is too small for what it is sent
 *     (t = the root of gather/gatherv/reduce, which posts count 1 per
 *     block while the others send 10; a non-root of scatter/scatterv/
 *     bcast/allgather, posting 1 instead of 10);
 *   - every rank must return (a watchdog names the case that hangs); t
 *     must get the class MPI_ERR_TRUNCATE; the others may get success or
 *     any error (--verbose prints them);
 *   - then a correct call with the same algorithm on the same communicator
 *     must deliver the right data (no stale message, no broken state).
 * Both roots 0 and p-1, two truncating ranks where t is not the root,
 * blocking calls and CX_I<coll> + CX_Wait.
 *
 * The MPIs' own calls are no reference here: in such calls Debian's
 * Open MPI 4.1 hangs (bcast, allgather, nonblocking reduce, gather of
 * rendezvous-sized messages) and so does MPICH 4.0 (scatter, allgather);
 * --with-native adds them, to see that.
 *
 * Usage: robust_errors [--rndv] [--zero] [--with-native] [--all] [--verbose]
 *                      [--alg NAME]... [coll...]
 *   --alg: only these algorithms (e.g. hier under fake node layouts);
 *   --all: also the known gaps (printed as NOT RUN otherwise, see known_gap);
 *   --rndv: elements of 64 KiB (rendezvous-sized messages) instead of int;
 *   --zero: the truncating rank posts count 0 instead of 1.
 * ROBUST_WATCHDOG=s: a call that has not returned after s seconds (60)
 * is reported as a hang and the rank exits. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "collx.h"
#include "robust.h"

#define N 10         /* elements every rank sends / expects per block */
#define BIG_INTS 16384

static int rank, size, verbose, rndv, with_native, small = 1, failures, cases;
static MPI_Comm comm = MPI_COMM_NULL;  /* the tested one (MPI_ERRORS_RETURN) */
static MPI_Datatype big;  /* 64 KiB element: rendezvous-sized messages */

typedef struct {
    const char *coll, *alg, *type;
    MPI_Datatype t;
    int root, trunc, nb;
} kase;

static void say_fail(const kase *k, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL errors %s/%s p=%d rank=%d root=%d trunc=%d type=%s%s%s: %s\n",
            k->coll, k->alg, size, rank, k->root, k->trunc, k->type,
            k->nb ? " nonblocking" : "", small ? "" : " recvcount=0", what);
    failures++;
}

/* Watchdog: a call that has not returned after `watchdog` s is a hang. The
 * rank says where it is stuck and exits, so the failure names the case
 * instead of waiting for the ctest TIMEOUT. */
static int watchdog = 60;   /* s; ROBUST_WATCHDOG overrides */
static char stuck[300];
static size_t stuck_len;

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t w = write(2, stuck, stuck_len);   /* async-signal-safe */
    (void)w;
    _exit(3);
}

static void arm(const kase *k, const char *which)
{
    int n = snprintf(stuck, sizeof stuck, "FAIL errors %s/%s p=%d rank=%d root=%d trunc=%d "
                     "type=%s%s%s: HANG, the %s call has not returned after %d s\n",
                     k->coll, k->alg, size, rank, k->root, k->trunc, k->type,
                     k->nb ? " nonblocking" : "", small ? "" : " recvcount=0", which,
                     watchdog);
    stuck_len = n < (int)sizeof stuck ? (size_t)n : sizeof stuck - 1;
    alarm((unsigned)watchdog);
}

/* Earlier communicators are kept until the end: an erroneous
 * v-collective leaves the messages of blocks the root posted as empty
 * unreceived (as the MPI's own calls do), and MPICH gives a new
 * communicator the freed one's context id, so they would match the next
 * algorithm's messages of the same tag. */
static MPI_Comm old_comms[256];
static int nold;

static void new_comm(void)
{
    if (comm != MPI_COMM_NULL && nold < (int)(sizeof old_comms / sizeof *old_comms))
        old_comms[nold++] = comm;
    else if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
}

static void free_comms(void)
{
    while (nold > 0)
        MPI_Comm_free(&old_comms[--nold]);
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
}

static size_t tsize(MPI_Datatype t)
{
    int s;
    MPI_Type_size(t, &s);
    return (size_t)s;
}

/* Seed of the block that rank r contributes in call `salt`. */
static uint64_t seed(int salt, int r) { return (uint64_t)salt * 1000 + (uint64_t)r; }

static int finish(int err, CX_Request *req, int nb)
{
    if (nb && err == MPI_SUCCESS)
        err = CX_Wait(req);
    return err;
}

/* One call of k->coll. bad: rank k->trunc posts `small` elements per block
 * where it would post N. Returns the MPI error; *data_ok = the received
 * data is right (checked only for correct calls). */
static int run(const kase *k, int bad, int salt, int *data_ok)
{
    int p = size, me = rank, root = k->root, err = MPI_SUCCESS;
    size_t es = tsize(k->t), blk = N * es;
    int mine = bad && me == k->trunc ? small : N;   /* what I post per block */
    char *sbuf = malloc(blk * p + 1), *rbuf = malloc(blk * p + 1);
    int counts[64], displs[64];
    CX_Request req = CX_REQUEST_NULL;
    const char *c = k->coll;
    memset(rbuf, 0, blk * p + 1);
    *data_ok = 1;
    if (!strcmp(c, "gather") || !strcmp(c, "gatherv")) {
        /* The truncating root posts `small` per block; its own block too. */
        int scount = bad && me == root ? small : N;
        rb_fill(sbuf, blk, seed(salt, me));
        for (int i = 0; i < p; i++) {
            counts[i] = mine;
            displs[i] = (p - 1 - i) * N;   /* reversed blocks */
        }
        if (!strcmp(c, "gather")) {
            err = k->nb ? CX_Igather(sbuf, scount, k->t, rbuf, mine, k->t, root, comm, &req)
                        : CX_Gather(sbuf, scount, k->t, rbuf, mine, k->t, root, comm);
            for (int i = 0; i < p; i++)
                displs[i] = i * N;
        } else {
            err = k->nb ? CX_Igatherv(sbuf, scount, k->t, rbuf, counts, displs, k->t, root,
                                      comm, &req)
                        : CX_Gatherv(sbuf, scount, k->t, rbuf, counts, displs, k->t, root, comm);
        }
        err = finish(err, &req, k->nb);
        if (!bad && me == root)
            for (int i = 0; i < p; i++)
                *data_ok &= rb_check(rbuf + (size_t)displs[i] * es, blk, seed(salt, i)) < 0;
    } else if (!strcmp(c, "scatter") || !strcmp(c, "scatterv")) {
        for (int i = 0; i < p; i++) {
            counts[i] = N;
            displs[i] = (p - 1 - i) * N;
            if (!strcmp(c, "scatter"))
                displs[i] = i * N;
            rb_fill(sbuf + (size_t)displs[i] * es, blk, seed(salt, i));
        }
        if (!strcmp(c, "scatter"))
            err = k->nb ? CX_Iscatter(sbuf, N, k->t, rbuf, mine, k->t, root, comm, &req)
                        : CX_Scatter(sbuf, N, k->t, rbuf, mine, k->t, root, comm);
        else
            err = k->nb ? CX_Iscatterv(sbuf, counts, displs, k->t, rbuf, mine, k->t, root,
                                       comm, &req)
                        : CX_Scatterv(sbuf, counts, displs, k->t, rbuf, mine, k->t, root, comm);
        err = finish(err, &req, k->nb);
        if (!bad)
            *data_ok = rb_check(rbuf, blk, seed(salt, me)) < 0;
    } else if (!strcmp(c, "bcast")) {
        if (me == root)
            rb_fill(rbuf, blk, seed(salt, root));
        err = k->nb ? CX_Ibcast(rbuf, mine, k->t, root, comm, &req)
                    : CX_Bcast(rbuf, mine, k->t, root, comm);
        err = finish(err, &req, k->nb);
        if (!bad)
            *data_ok = rb_check(rbuf, blk, seed(salt, root)) < 0;
    } else if (!strcmp(c, "reduce")) {
        /* Sums of ints (as many as the block type holds); the truncating
         * root posts `small` blocks' worth. */
        int *s = (int *)sbuf, *r = (int *)rbuf, per = (int)(es / sizeof(int));
        for (int i = 0; i < N * per; i++)
            s[i] = salt * 100 + me * 10 + i % 100;
        err = k->nb ? CX_Ireduce(s, r, mine * per, MPI_INT, MPI_SUM, root, comm, &req)
                    : CX_Reduce(s, r, mine * per, MPI_INT, MPI_SUM, root, comm);
        err = finish(err, &req, k->nb);
        if (!bad && me == root)
            for (int i = 0; i < N * per; i++)
                *data_ok &= r[i] == p * (salt * 100 + i % 100) + 10 * p * (p - 1) / 2;
    } else if (!strcmp(c, "allgather")) {
        rb_fill(sbuf, blk, seed(salt, me));
        err = k->nb ? CX_Iallgather(sbuf, N, k->t, rbuf, mine, k->t, comm, &req)
                    : CX_Allgather(sbuf, N, k->t, rbuf, mine, k->t, comm);
        err = finish(err, &req, k->nb);
        if (!bad)
            for (int i = 0; i < p; i++)
                *data_ok &= rb_check(rbuf + (size_t)i * blk, blk, seed(salt, i)) < 0;
    } else {
        fprintf(stderr, "robust_errors: unknown collective %s\n", c);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    free(sbuf);
    free(rbuf);
    return err;
}

/* The rank that posts too little: the root where the root receives
 * everything (gather, gatherv, reduce), else a non-root. */
static int trunc_rank(const char *coll, int root, int which)
{
    if (!strcmp(coll, "gather") || !strcmp(coll, "gatherv") || !strcmp(coll, "reduce"))
        return root;
    return which == 0 ? (root + size / 2) % size : (root + size - 1) % size;
}

static int nchoices(const char *coll)
{
    return trunc_rank(coll, 0, 0) == 0 ? 1 : 2;
}

/* Where the error shows, for algorithms that cannot show it at t:
 * tuw's tree is built from every rank's own size, so a size that
 * disagrees is seen where both sizes meet: the root (which then serves
 * the tree the others built, so nobody waits); a v-collective's empty
 * block is not sent at all, as in the MPI libraries, so a count of 0
 * where the peer sends data is no error anywhere (the MPIs' own calls
 * return success too). Returns the rank that must see MPI_ERR_TRUNCATE,
 * or -1 for none. */
static int error_rank(const kase *k)
{
    int v = !strcmp(k->coll, "gatherv") || !strcmp(k->coll, "scatterv");
    if (!small && v)
        return -1;
    if (!strcmp(k->alg, "tuw") && v)
        return k->root;
    return k->trunc;
}

/* Cases not run by default (--all runs them): an algorithm that hands
 * nonblocking calls to the MPI's own behaves as that MPI does. */
static int run_all;
static const char *only[8];   /* --alg: the algorithms to run (none: all) */
static int nonly;

static int selected(const char *alg)
{
    for (int i = 0; i < nonly; i++)
        if (!strcmp(only[i], alg))
            return 1;
    return nonly == 0;
}
/* Whether the algorithm serves blocking calls only and runs the MPI's own
 * call for CX_I<coll> (then an erroneous nonblocking call behaves as the
 * MPI's does, which the header says may hang). */
static int nonblocking_is_native(const kase *k)
{
    for (int i = 0; i < CX_Algorithm_count(k->coll); i++)
        if (!strcmp(CX_Algorithm_name(k->coll, i), k->alg))
            return (CX_Algorithm_requires(k->coll, i) & CX_REQ_BLOCKING) &&
                   !strcmp(CX_Algorithm_fallback(k->coll, i), "native");
    return 0;
}

/* Whether collx's RMA runtime runs here (not where the MPI cannot create
 * windows: the rma_* drop-in runs the MPI's own bcast). Collective. */
static int rma_runs(void)
{
    CX_Rma rma;
    int err = CX_Rma_init(comm, &rma);
    if (err == MPI_SUCCESS)
        CX_Rma_finalize(&rma);
    return err == MPI_SUCCESS;
}

static int rma_available = 1;

static const char *known_gap(const kase *k)
{
    if (run_all)
        return NULL;
    if (k->nb && nonblocking_is_native(k))
        return "the algorithm hands nonblocking calls to the MPI's own (see --with-native)";
    if (!strncmp(k->alg, "rma_", 4) && !rma_available)
        return "no RMA windows on this MPI: the MPI's own bcast runs";
    return NULL;
}

static void one_case(kase *k, int salt)
{
    int ok;
    const char *gap = known_gap(k);
    if (gap) {
        if (rank == 0 && k->root == 0 && !k->nb)
            printf("NOT RUN errors %s/%s%s%s: known gap, %s\n", k->coll, k->alg,
                   rndv ? " rndv" : "", small ? "" : " zero", gap);
        return;
    }
    arm(k, "erroneous");
    int err = run(k, 1, salt, &ok), cls = rb_class(err);
    int classes[64];
    cases++;
    /* Everybody returned; t must see MPI_ERR_TRUNCATE. */
    arm(k, "erroneous (another rank's)");
    MPI_Gather(&cls, 1, MPI_INT, classes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    alarm(0);
    int native = !strcmp(k->alg, "native");
    if (rank == error_rank(k) && cls != MPI_ERR_TRUNCATE) {
        if (native)
            fprintf(stderr, "NOTE errors %s/native p=%d rank=%d trunc%s: the MPI returns %s, "
                    "not ERR_TRUNCATE\n", k->coll, size, rank, k->nb ? " nonblocking" : "",
                    rb_class_name(cls));
        else
            say_fail(k, "the truncating rank got class %d (%s), want MPI_ERR_TRUNCATE", cls,
                     rb_class_name(cls));
    }
    if (verbose && rank == 0) {
        char line[400];
        int n = snprintf(line, sizeof line, "  %s/%s root=%d trunc=%d %s%s:", k->coll, k->alg,
                         k->root, k->trunc, k->type, k->nb ? " nb" : "");
        for (int i = 0; i < size && n < (int)sizeof line - 16; i++)
            n += snprintf(line + n, sizeof line - n, " %s", rb_class_name(classes[i]));
        printf("%s\n", line);
        fflush(stdout);
    }
    /* The communicator still works: a correct call, same algorithm. The
     * MPIs' own calls do not promise that (Open MPI's linear gather leaves
     * the messages after the failed one unreceived, and the next gather
     * takes them; after a failed libnbc schedule the next call can hang):
     * native only shows that the failing call finishes. */
    if (native)
        return;
    arm(k, "correct (after the erroneous one)");
    err = run(k, 0, salt + 1, &ok);
    alarm(0);
    if (err != MPI_SUCCESS)
        say_fail(k, "the correct call after the error returned class %d (%s)",
                 rb_class(err), rb_class_name(rb_class(err)));
    else if (!ok)
        say_fail(k, "the correct call after the error delivered wrong data");
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *colls[16];
    int ncolls = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--zero"))
            small = 0;
        else if (!strcmp(argv[i], "--with-native"))
            with_native = 1;
        else if (!strcmp(argv[i], "--rndv"))
            rndv = 1;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else if (!strcmp(argv[i], "--all"))
            run_all = 1;
        else if (!strcmp(argv[i], "--alg") && i + 1 < argc && nonly < 8)
            only[nonly++] = argv[++i];
        else if (ncolls < 16)
            colls[ncolls++] = argv[i];
    }
    if (!ncolls) {
        static const char *all[] = {"gather", "gatherv", "scatter", "scatterv",
                                    "bcast", "reduce", "allgather"};
        for (ncolls = 0; ncolls < 7; ncolls++)
            colls[ncolls] = all[ncolls];
    }
    if (size > 64)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (getenv("ROBUST_WATCHDOG"))
        watchdog = atoi(getenv("ROBUST_WATCHDOG"));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    /* Open MPI reports errors of its nonblocking collectives on
     * MPI_COMM_WORLD's handler: returned, not fatal. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_contiguous(BIG_INTS, MPI_INT, &big);
    MPI_Type_commit(&big);
    new_comm();
    rma_available = rma_runs();
    int salt = 1;
    for (int c = 0; c < ncolls; c++) {
        int nalg = CX_Algorithm_count(colls[c]);
        if (nalg < 1) {
            if (rank == 0)
                fprintf(stderr, "FAIL errors: %s is not a collective collx knows\n", colls[c]);
            failures++;
        }
        for (int a = 0; a < nalg; a++) {
            kase k = {colls[c], CX_Algorithm_name(colls[c], a), rndv ? "64KiB" : "int",
                      rndv ? big : MPI_INT, 0, 0, 0};
            int native = !strcmp(k.alg, "native");
            if ((native && !with_native) || !selected(k.alg))
                continue;
            if (CX_Algorithm_set(k.coll, k.alg) != MPI_SUCCESS) {
                say_fail(&k, "CX_Algorithm_set failed");
                continue;
            }
            if (rank == 0) {   /* progress, for the log of a crash */
                fprintf(stderr, "errors: %s/%s\n", k.coll, k.alg);
                fflush(stderr);
            }
            /* One communicator for all cases of a collx algorithm: it must
             * stay usable. The MPI's own calls may leave unmatched messages
             * behind an error: native gets a fresh one per case. */
            new_comm();
            for (int ri = 0; ri < 2; ri++)
                for (int w = 0; w < nchoices(k.coll); w++)
                    for (int nb = 0; nb < 2; nb++) {
                        k.root = ri ? size - 1 : 0;
                        k.trunc = trunc_rank(k.coll, k.root, w);
                        k.nb = nb;
                        if (native)
                            new_comm();
                        one_case(&k, salt);
                        salt += 2;
                    }
            CX_Algorithm_set(k.coll, NULL);   /* its communicator: new_comm */
        }
    }
    int total = 0;
    MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total)
            printf("errors: FAILED (%d failures, p=%d)\n", total, size);
        else
            printf("errors: OK (p=%d, %d cases%s)\n", size, cases,
                   small ? "" : ", recvcount 0");
    }
    free_comms();
    MPI_Type_free(&big);
    MPI_Finalize();
    return total ? 1 : 0;
}
