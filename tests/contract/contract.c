/* Contract test: for each collective named on the command line, runs every
 * registered algorithm (CX_Algorithm_count/name/set) over every root (five
 * of them from p = 7: some_root), the counts {0, 1, 17, 1000, 80000}, the
 * datatype cases (reductions: datatype
 * and operation cases, user-defined and non-commutative included),
 * MPI_IN_PLACE where allowed, v-layouts with zero blocks, gaps and reversed
 * displacements, and the nonblocking CX_I* calls; compares every buffer
 * byte for byte with the PMPI_ result (guards and gaps included, so writes
 * outside the blocks are caught too). Which dimensions a collective has
 * follows from its parameters in collx_colls.h.
 *
 * usage: contract [--algs a,b,...] [--no-large] [--no-nb | --nb-both | --mpi]
 *                 [--persistent] [--thread] [--trace] [--nodes] [--quick]
 *                 coll... | all
 * (--nb-both: CX_Wait and CX_Test on every case, not alternately;
 * --mpi: instead of CX_ calls, only the MPI's MPI_I<name> (run it under
 * the interposer), completed in turn by each completion call of
 * mpi_complete.h, the array ones beside point-to-point requests;
 * --persistent: only CX_<Name>_init, started twice (the receive buffer
 * reset between) and freed; with --mpi the MPI's persistent collectives
 * (MPI_<Name>_init, Open MPI's MPIX_<Name>_init), MPI_Start and each
 * completion call in turn;
 * --thread: MPI_Init_thread with MPI_THREAD_MULTIPLE) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collx.h"
#include "mpi_complete.h"
#include "quirks.h"
#include "served.h"

#define LARGE 80000          /* ints: 320 KB, see large_count() */
#define MAX_PRINTED 40

static const int counts[] = {0, 1, 17, 1000, LARGE};
static const char *const mode_names[] = {"blocking", "CX_Wait", "CX_Test", "MPI_I",
                                         "CX_init", "MPI_init+"};

static struct {
    const char *algs;     /* comma-separated filter, NULL = all */
    int large, nb, trace, nodes;   /* nb: 0 none, 1 Wait/Test alternately, 2 both */
    int quick, mpi, thread, persist;
} opt = {NULL, 1, 1, 0, 0, 0, 0, 0, 0};

/* --quick (the fake-layout runs): counts 1, 17, 1000 and the cases that
 * matter most when blocks travel through node leaders (holes, per-rank
 * types, a user operation with holes, the operation order across nodes). */
static const char *const quick_cases[] = {"int", "vector", "mixed-rank", "bottom",
                                          "int+sum", "vector+user", "mat+noncomm",
                                          "bottom+noncomm"};

static int quick_case(const char *name)
{
    for (size_t i = 0; i < sizeof quick_cases / sizeof *quick_cases; i++)
        if (strcmp(name, quick_cases[i]) == 0)
            return 1;
    return 0;
}

static long failures, checks;
static MPI_Comm comm;
static int rank, size;
static int one_host;   /* CLOCK_MONOTONIC is comparable between the ranks */

static int wanted(const char *alg) { return in_list(opt.algs, alg); }

static void fail(const call *c, const char *alg, int mode, int n, const char *what)
{
    char root[32] = "";
    if (coll_has(c->coll, F_root))
        snprintf(root, sizeof root, " root=%d", c->root);
    else if (c->late >= 0)
        snprintf(root, sizeof root, " late=%d", c->late);
    if (++failures <= MAX_PRINTED)
        printf("FAIL %s alg=%s mode=%s%s p=%d rank=%d%s count=%d type=%s "
               "in-place=%d layout=%s: %s\n",
               coll_names[c->coll], alg, mode_names[mode],
               mode == MODE_MPI || mode == MODE_MPI_PERSIST ? by_names[c->by] : "", size,
               rank, root, n,
               c->rc ? c->rc->name : c->tc->name, c->in_place,
               c->layout == LAYOUT_REV_GAPS ? "reversed+gaps" : "ascending", what);
    else if (failures == MAX_PRINTED + 1)
        printf("rank %d: further failures not printed\n", rank);
    fflush(stdout);
}

static void describe(char *msg, size_t len, const char *buf, const tbuf *got,
                     const tbuf *want)
{
    size_t ndiff;
    ptrdiff_t at = tbuf_diff(got, want, &ndiff);
    int g = (unsigned char)got->data[at], w = (unsigned char)want->data[at];
    snprintf(msg, len, "%s byte %td of %zu differs (got 0x%02x want 0x%02x), "
             "%zu bytes differ%s", buf, at, got->bytes, g, w, ndiff,
             at < 0 || (size_t)at >= got->bytes ? " [guard overwritten]" : "");
}

/* Bytes the standard leaves undefined after the call are set alike. */
static void normalize(const call *c, tbuf *b)
{
    if (c->rkeep < b->bytes)
        memset(b->data + c->rkeep, 0, b->bytes - c->rkeep);
}

/* Whether got (normalized) differs from want; describes it in msg. */
static int differs(const call *c, tbuf *got, const tbuf *want, char *msg, size_t len)
{
    size_t nd;
    normalize(c, got);
    if (tbuf_diff(got, want, &nd) == PTRDIFF_MIN)
        return 0;
    describe(msg, len, "recvbuf", got, want);
    return 1;
}

static void check_input(call *c, const char *alg, int mode, int n)
{
    char msg[256];
    size_t nd;
    if (tbuf_diff(&c->sdata, &c->ssave, &nd) != PTRDIFF_MIN) {
        describe(msg, sizeof msg, "sendbuf (input!)", &c->sdata, &c->ssave);
        fail(c, alg, mode, n, msg);
        tbuf_copy(&c->sdata, &c->ssave);
    }
}

static void error_msg(int err, char *msg, size_t len)
{
    char s[MPI_MAX_ERROR_STRING];
    int slen;
    MPI_Error_string(err, s, &slen);
    snprintf(msg, len, "returned error %d (%s)", err, s);
}

/* After every call, on every rank (collective when c->late >= 0): no rank
 * left before the late rank entered; user operations got the call's type. */
static void after_call(call *c, const char *alg, int mode, int n)
{
    char msg[160];
    long misuse = user_op_misuse();
    if (misuse) {
        snprintf(msg, sizeof msg, "user-defined operation called %ld times with a "
                 "datatype other than the call's", misuse);
        fail(c, alg, mode, n, msg);
    }
    if (c->late < 0 || !one_host)
        return;
    double last = 0;
    MPI_Allreduce(&c->t_enter, &last, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (c->t_exit < last) {
        snprintf(msg, sizeof msg, "left %.3f ms before the last rank entered",
                 1e3 * (last - c->t_exit));
        fail(c, alg, mode, n, msg);
    }
}

/* collx's "native" nonblocking call is the MPI library's PMPI_I<name>,
 * and its native call at MPI_BOTTOM is the MPI's at MPI_BOTTOM. When it
 * differs from the reference somewhere, the MPI's own call runs the same
 * way (by: RUN_PMPI_NB, RUN_PMPI_BOTTOM): if collx got exactly what the
 * MPI's gets on every rank, the MPI disagrees with itself (a bug of the
 * reference MPI, counted in mpi_bugs[by]) and the case is not a collx
 * failure. Collective over comm. */
static long mpi_bugs[RUN_PMPI_BOTTOM + 1];
static int mpi_own_same(call *c, const tbuf *got, int bad, int by)
{
    int any = 0, same = 1, all = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    if (!any)
        return 0;
    tbuf mpi;
    tbuf_alloc(&mpi, c->rinit.bytes, 0);
    tbuf_copy(&mpi, &c->rinit);
    size_t nd;
    if (call_run(c, by, MODE_WAIT, mpi.data))
        same = 0;
    normalize(c, &mpi);
    if (bad && tbuf_diff(got, &mpi, &nd) != PTRDIFF_MIN)
        same = 0;
    tbuf_free(&mpi);
    MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, comm);
    mpi_bugs[by] += all;
    return all;
}

/* One case: the reference, then every algorithm in every mode. */
static void run_case(call *c, int n, int ncase)
{
    tbuf ref, got;
    char msg[MPI_MAX_ERROR_STRING + 160];
    if (opt.trace && rank == 0)
        fprintf(stderr, "case %s root=%d count=%d type=%s in-place=%d layout=%d\n",
                coll_names[c->coll], c->root, n, c->rc ? c->rc->name : c->tc->name,
                c->in_place, c->layout);
    call_setup(c, n);
    tbuf_alloc(&ref, c->rinit.bytes, 0);
    tbuf_alloc(&got, c->rinit.bytes, 0);
    tbuf_copy(&ref, &c->rinit);
    int err, alt = c->alt.base && quirk_native_crashes(c, MODE_BLOCKING);
    if (alt) {   /* the same input, not in place */
        tbuf keep = c->sdata;
        c->sdata = c->alt;
        c->s_in_place = 0;
        err = call_run(c, RUN_PMPI, MODE_BLOCKING, ref.data);
        c->sdata = keep;
        c->s_in_place = 1;
    } else {
        err = call_run(c, RUN_PMPI, MODE_BLOCKING, ref.data);
    }
    if (err) {
        error_msg(err, msg, sizeof msg);
        fail(c, "PMPI reference", MODE_BLOCKING, n, msg);
    }
    after_call(c, "PMPI reference", MODE_BLOCKING, n);
    normalize(c, &ref);
    const char *cname = coll_names[c->coll];
    int nalg = CX_Algorithm_count(cname);
    /* Nonblocking: CX_Wait and CX_Test polling on alternate cases; both on
     * every case of a collective without data (one case per root). */
    int modes[3] = {MODE_BLOCKING, ncase % 2 ? MODE_TEST : MODE_WAIT, MODE_TEST};
    int nmodes = !opt.nb ? 1 : c->late >= 0 || opt.nb == 2 ? 3 : 2;
    if (nmodes == 3)
        modes[1] = MODE_WAIT;
    if (opt.mpi || opt.persist) {   /* one mode; the completion calls in turn */
        modes[0] = !opt.persist ? MODE_MPI : opt.mpi ? MODE_MPI_PERSIST : MODE_PERSIST;
        nmodes = 1;
    }
    for (int i = 0; i < nalg; i++) {
        const char *alg = CX_Algorithm_name(cname, i);
        if (!wanted(alg))
            continue;
        CX_Algorithm_set(cname, alg);
        int native = strcmp(alg, "native") == 0;
        /* an algorithm for blocking calls hands nonblocking ones to native */
        const char *instead = CX_Algorithm_fallback(cname, i);
        int nb_native = (CX_Algorithm_requires(cname, i) & CX_REQ_BLOCKING) &&
                        instead && strcmp(instead, "native") == 0;
        for (int m = 0; m < nmodes; m++) {
            c->by = (ncase + i) % BY_COUNT;
            int as_native = native || (nb_native && modes[m] != MODE_BLOCKING);
            if (as_native && quirk_native_crashes(c, modes[m]))
                continue;
            tbuf_copy(&got, &c->rinit);
            long natives = CX_Algorithm_calls(cname, "native");
            long seen = CX_Algorithm_calls(cname, alg) + CX_Algorithm_fallbacks(cname, alg);
            served_probe probe;
            served_before(&probe, cname, i, c, modes[m]);
            err = call_run(c, RUN_CX, modes[m], got.data);
            if ((modes[m] == MODE_MPI || modes[m] == MODE_MPI_PERSIST) &&
                CX_Algorithm_calls(cname, alg) + CX_Algorithm_fallbacks(cname, alg) == seen)
                fail(c, alg, modes[m], n, "collx never saw the call (run it under the "
                     "interposer)");
            int fell, bad = 1;
            if (served_after(&probe, err, &fell, msg, sizeof msg)) {
                fail(c, alg, modes[m], n, msg);
            } else if (fell && served_error_mode()) {
                bad = 0;   /* the error was the answer; nothing was received */
                tbuf_copy(&got, &ref);
            }
            /* an algorithm that cannot serve the call hands it to native */
            int ran_native = native || CX_Algorithm_calls(cname, "native") > natives;
            if (bad && err && (modes[m] == MODE_MPI || modes[m] == MODE_MPI_PERSIST) &&
                *call_mpi_why())
                snprintf(msg, sizeof msg, "%s", call_mpi_why());
            else if (bad && err)
                error_msg(err, msg, sizeof msg);
            else if (bad)
                bad = differs(c, &got, &ref, msg, sizeof msg);
            check_input(c, alg, modes[m], n);
            if (ran_native && modes[m] != MODE_BLOCKING && mpi_own_same(c, &got, bad, RUN_PMPI_NB))
                bad = 0;
            if (ran_native && c->bottom && modes[m] == MODE_BLOCKING &&
                mpi_own_same(c, &got, bad, RUN_PMPI_BOTTOM))
                bad = 0;
            if (bad)
                fail(c, alg, modes[m], n, msg);
            checks++;
            after_call(c, alg, modes[m], n);
        }
    }
    CX_Algorithm_set(cname, NULL);
    tbuf_free(&ref);
    tbuf_free(&got);
    call_free(c);
}

/* Whether case t of coll runs at count n: the options, the large count
 * kept to a few cases, and what the reference MPI can do. */
static int case_runs(int coll, int t, int n)
{
    int large = n == LARGE;
    const char *name = coll_has(coll, F_op) ? rcase_get(t)->name : tcase_get(t)->name;
    if (opt.quick && (n == 0 || large || !quick_case(name)))
        return 0;
    if (!quirk_case_ok(coll, t, n))
        return 0;
    if (!large)
        return 1;
    if (coll_has(coll, F_op))
        return rcase_get(t)->large;
    return tcase_get(t)->mixed || strcmp(name, "int") == 0;   /* plain and mixed */
}

/* The large count: above the eager limits of the MPIs (Open MPI vader
 * 4 KB, MPICH shared memory cells 64 KB) for any p of the suite.
 * Reductions: LARGE basic elements; allgather and all-to-all: LARGE over
 * the p blocks a rank receives, but blocks of at least LARGE / 4 ints
 * (80 KB); rooted: LARGE per block. */
static int large_count(int coll, int t)
{
    if (coll_has(coll, F_op))
        return LARGE / rcase_get(t)->side->nel;
    if (!coll_has(coll, F_root))
        return size < 4 ? LARGE / size : LARGE / 4;
    return LARGE;
}

/* Every root up to p = 6; from p = 7 on, five: the first two, the third
 * (a non-leader on interleaved nodes), one past the middle and the last
 * (the contract tests' p = 8 was a fifth of the suite's time). */
static int some_root(int root)
{
    return size <= 6 || root <= 2 || root == size / 2 + 1 || root == size - 1;
}

static void run_coll(int coll)
{
    /* The dimensions follow from the parameters (collx_colls.h). */
    int data = coll_has(coll, F_scount | F_scounts | F_rcount | F_rcounts);
    int red = coll_has(coll, F_op);
    int rooted = coll_has(coll, F_root) || !data;   /* barrier: late rank */
    int v = coll_has(coll, F_sdispls | F_rdispls);
    int in_place_ok = coll_has(coll, F_sbuf);
    int ncounts = data ? (int)(sizeof counts / sizeof *counts) : 1;
    int ntypes = !data ? 1 : red ? rcase_count() : tcase_count();
    int skip_gapped = !quirk_gapped_ok(coll);
    int ncase = 0;
    long before = checks;
    mpi_bugs[RUN_PMPI_NB] = mpi_bugs[RUN_PMPI_BOTTOM] = 0;
    served_reset();
    double t0 = MPI_Wtime();
    for (int k = 0; k < ncounts; k++) {
        int n = counts[k], large = n == LARGE;
        if (large && !opt.large)
            continue;
        for (int t = 0; t < ntypes; t++) {
            if (data && !case_runs(coll, t, n))
                continue;
            int cnt = large ? large_count(coll, t) : n;
            int nroots = rooted ? size : 1;
            for (int root = 0; root < nroots; root++) {
                if (large && root != 0 && root != size - 1)
                    continue;   /* large counts: first and last root */
                if (!some_root(root))
                    continue;
                for (int ip = 0; ip <= in_place_ok; ip++)
                    for (int lay = 0; lay <= v; lay++) {
                        /* a reduction at MPI_BOTTOM moves one buffer */
                        if (red && rcase_get(t)->bottom && !ip)
                            continue;
                        if ((large && v && lay == LAYOUT_ASC) ||
                            (skip_gapped && lay == LAYOUT_REV_GAPS))
                            continue;
                        call c = {.coll = coll, .root = root, .layout = lay,
                                  .in_place = ip, .rank = rank, .size = size,
                                  .comm = comm, .tci = t,
                                  .struct_ok = quirk_struct_ok(cnt)};
                        if (red)
                            c.rc = rcase_get(t);
                        else
                            c.tc = tcase_get(t);
                        c.bottom = red ? c.rc->bottom : c.tc->bottom;
                        run_case(&c, cnt, ncase++);
                    }
            }
        }
    }
    failures += served_report(coll_names[coll], rank);
    if (rank == 0) {
        printf("contract %s p=%d: algorithms", coll_names[coll], size);
        print_algorithms(coll, opt.algs);
        printf("; %d cases, %ld checks on rank 0, %.1f s\n", ncase, checks - before,
               MPI_Wtime() - t0);
        if (mpi_bugs[RUN_PMPI_NB])
            printf("NOTE: in %ld cases this MPI's MPI_I%s differs from its blocking "
                   "call, and collx's native CX_I%s (which calls it) gives the same "
                   "bytes: not counted as collx failures\n", mpi_bugs[RUN_PMPI_NB],
                   coll_names[coll], coll_names[coll]);
        if (mpi_bugs[RUN_PMPI_BOTTOM])
            printf("NOTE: in %ld cases this MPI's MPI_%s at MPI_BOTTOM differs from the "
                   "same call with the buffer's address, and collx's native call (which is "
                   "it) gives the same bytes: not counted as collx failures\n",
                   mpi_bugs[RUN_PMPI_BOTTOM], coll_names[coll]);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    int todo[C_NCOLL] = {0}, any = 0, provided;
    for (int i = 1; i < argc; i++)
        opt.thread |= strcmp(argv[i], "--thread") == 0;
    if (opt.thread)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    /* Errors become FAIL lines, not aborts: MPICH reports errors of
     * MPI_Waitall and MPI_Reduce_local on MPI_COMM_WORLD / MPI_COMM_SELF. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int i = 1; i < argc; i++) {
        int c;
        if (strcmp(argv[i], "--algs") == 0 && i + 1 < argc)
            opt.algs = argv[++i];
        else if (strcmp(argv[i], "--no-large") == 0)
            opt.large = 0;
        else if (strcmp(argv[i], "--no-nb") == 0)
            opt.nb = 0;
        else if (strcmp(argv[i], "--nb-both") == 0)
            opt.nb = 2;
        else if (strcmp(argv[i], "--mpi") == 0)
            opt.mpi = 1;
        else if (strcmp(argv[i], "--persistent") == 0)
            opt.persist = 1;
        else if (strcmp(argv[i], "--thread") == 0)
            continue;
        else if (strcmp(argv[i], "--trace") == 0)
            opt.trace = 1;
        else if (strcmp(argv[i], "--nodes") == 0)
            opt.nodes = 1;
        else if (strcmp(argv[i], "--quick") == 0)
            opt.quick = 1;
        else if (strcmp(argv[i], "all") == 0)
            for (c = 0; c < C_NCOLL; c++)
                todo[c] = any = 1;
        else if ((c = coll_index(argv[i])) >= 0)
            todo[c] = any = 1;
        else {
            if (rank == 0)
                fprintf(stderr, "contract: unknown argument '%s'\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (!any && rank == 0)
        fprintf(stderr, "usage: contract [--algs a,b] [--no-large] [--no-nb | --nb-both | "
                        "--mpi] [--persistent] [--thread] [--trace] [--nodes] [--quick] "
                        "coll...|all\n");
    if (!any)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (opt.mpi && opt.persist && !mpi_has_persistent()) {
        if (rank == 0)
            printf("contract: FAILED (this MPI declares no persistent collectives)\n");
        MPI_Finalize();
        return 1;
    }
    types_init();
    rcases_init();
    quirks_probe(comm);
    MPI_Comm host;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Comm_size(host, &one_host);
    MPI_Comm_free(&host);
    one_host = one_host == size;
    if (!one_host && rank == 0)
        printf("NOTE: ranks on several hosts: barrier only checked to complete\n");
    if (opt.nodes)
        print_nodes(comm);
    served_init(comm);
    for (int c = 0; c < C_NCOLL; c++)
        if (todo[c])
            run_coll(c);
    long total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("contract: %s (%ld failures over all ranks)\n", total ? "FAILED" : "OK",
               total);
    rcases_free();
    types_free();
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return total ? 1 : 0;
}
