/* Sequence test: state kept between calls is where silent corruption
 * hides, and a test of single calls cannot see it. For every registered
 * algorithm of every collective named on the command line, runs a
 * sequence of back-to-back calls on one communicator, no barrier between
 * them, whose counts change from call to call (empty calls among them,
 * and one above the eager limits), whose values differ per call, whose
 * roots, datatype cases (MPI_BOTTOM included), in-place use and layouts
 * rotate; interleaved with calls of another collective (the same
 * algorithm where it has one) and with calls on two other communicators
 * that share the nodes (a duplicate, and a split by rank parity or in
 * two blocks). Every result is compared byte for byte with the PMPI_
 * result of the same call after the whole sequence has run.
 *
 * The three communicators are freed and made anew before each sequence
 * (all algorithms of one repetition share them, so state one algorithm
 * left on a communicator meets the next): collx's per-communicator
 * resources (RMA windows, node segments, persistent plans' communicators)
 * are set up on new communicators again and again, the two halves of a
 * split at the same time on disjoint ranks (issue 54: on Open MPI 4.1 the
 * halves share a context id, which osc/rdma named its segments by).
 *
 * A second kind of sequence alternates small and empty calls of the
 * collective on one communicator, one root throughout, the pattern that
 * exposed a slot of the node segment reused before its readers were done.
 *
 * Modes: blocking (every call on the same two buffers, every third one
 * twice in a row: run_shared); each CX_I... waited at once; all started, then waited
 * in order (several in flight on three communicators); blocking and
 * nonblocking alternating, the nonblocking ones waited at the end. Each
 * sequence runs --reps times with other values (a race between the ranks
 * of a node shows up in some runs only).
 *
 * --mpi: the nonblocking calls are the MPI's MPI_I<name> (run it under
 * the interposer: collx's generalized requests), waited for with MPI_Wait
 * (each) and MPI_Waitall (all in flight, on the three communicators);
 * the test checks that collx saw them. --thread: MPI_THREAD_MULTIPLE.
 *
 * --persistent: instead, every call of the sequence is initialised once
 * as a persistent collective (CX_<Name>_init; with --mpi the MPI's
 * MPI_<Name>_init / MPIX_<Name>_init), then the whole sequence is started
 * PASSES times, the receive buffers reset between passes: each start
 * waited at once, or all started and then waited in order. A start
 * replays what was built at init or at the first start (hier renumbers
 * its slots and node barriers in each start's turn, while the other calls
 * move the numbering between its starts).
 *
 * --node-aware: only the algorithms that read the node layout (the tests
 * on fake layouts; the others are the same code on every layout).
 *
 * usage: sequence [--algs a,b] [--reps R] [--mpi] [--thread] [--persistent]
 *                 [--node-aware] coll... | all */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collx.h"
#include "quirks.h"

#define LEN 24           /* calls per sequence */
#define BIG 20000        /* ints: above the eager limits (80 KB blocks) */
#define MAX_PRINTED 40

enum { SEQ_BLOCKING, SEQ_EACH, SEQ_INFLIGHT, SEQ_ALTERNATE, SEQ_NMODES,
       SEQ_PERSIST = SEQ_NMODES };   /* --persistent: that mode alone */
static const char *const seq_mode_names[SEQ_NMODES + 1] = {"blocking", "nb-each", "nb-inflight",
                                                          "alternate", "persistent"};
#define PASSES 3   /* starts of every persistent call */
/* Two kinds of sequences: MIXED, the counts below on three communicators
 * with another collective among them; ALTERNATING, small calls and empty
 * ones in turn on one communicator (the tightest race between a call's
 * readers and the next writers). */
enum { MIXED, ALTERNATING, NKINDS };
static const char *const kind_names[NKINDS] = {"mixed", "alternating"};
static const int pattern[LEN] = {3, 0, 17, 0, 0, 1, 1000, 0, 5, 2, 0, 17,
                                 BIG, 0, 1, 3, 0, 1000, 0, 2, 0, 0, 17, 1};

static struct {
    const char *algs;
    int reps, mpi, thread, persist, node_aware;
} opt = {NULL, 2, 0, 0, 0, 0};

static MPI_Comm comm_base;   /* probes; never freed */
static MPI_Comm comm_a, comm_dup, comm_half;   /* made anew per sequence */
static int rank, size;
static long failures, calls, mpi_bottom_bugs;

/* One call of a sequence with its reference result and its own. */
typedef struct step {
    call c;
    int n;
    const char *comm_name;
    tbuf ref, got;
    CX_Request q;
    MPI_Request mq;   /* --mpi */
} step;

/* --node-aware: the families that read the node layout (hier*, *_topo);
 * the others run the same code on any layout, and the tests without a
 * fake layout run them all. */
static int node_aware(const char *alg)
{
    size_t n = strlen(alg);
    return strncmp(alg, "hier", 4) == 0 || (n > 5 && strcmp(alg + n - 5, "_topo") == 0);
}

static int wanted(const char *alg)
{
    return in_list(opt.algs, alg) && (!opt.node_aware || node_aware(alg));
}

static int has_alg(int coll, const char *alg)
{
    for (int i = 0; i < CX_Algorithm_count(coll_names[coll]); i++)
        if (strcmp(CX_Algorithm_name(coll_names[coll], i), alg) == 0)
            return 1;
    return 0;
}

/* The collective called between the tested one's calls: the next one
 * that moves data. */
static int companion(int coll)
{
    int y = coll;
    do
        y = (y + 1) % C_NCOLL;
    while (y == coll || !coll_has(y, F_scount | F_scounts | F_rcount | F_rcounts));
    return y;
}

/* The k-th datatype case (from rot on) that coll can check at count n
 * (no MPI_BOTTOM case: plain). */
static void pick_case(call *c, int rot, int n, int plain)
{
    int red = coll_has(c->coll, F_op);
    int nt = red ? rcase_count() : tcase_count();
    for (int j = 0; j < nt; j++) {
        int t = (rot + j) % nt;
        if (!quirk_case_ok(c->coll, t, n))
            continue;
        if (red && (rcase_get(t)->bottom && !c->in_place))
            continue;
        if ((plain || !quirk_bottom_ok()) && (red ? rcase_get(t)->bottom : tcase_get(t)->bottom))
            continue;
        if (!red && strcmp(tcase_get(t)->name, "struct") == 0 && !quirk_struct_ok(n))
            continue;
        c->tci = t;
        if (red)
            c->rc = rcase_get(t);
        else
            c->tc = tcase_get(t);
        c->bottom = red ? c->rc->bottom : c->tc->bottom;
        return;
    }
}

/* Step k of repetition rep of a sequence of coll (companion y). */
static void build_step(step *st, int kind, int coll, int y, int k, int rep, int plain)
{
    int mixed = kind == MIXED;
    int which = !mixed ? 0 : k % 5 == 3 ? 1 : k % 7 == 6 ? 2 : 0;
    MPI_Comm cm = which == 1 ? comm_dup : which == 2 ? comm_half : comm_a;
    int cs, cr, n = mixed ? pattern[k] : k % 2 ? 0 : 1 + k % 5;
    MPI_Comm_size(cm, &cs);
    MPI_Comm_rank(cm, &cr);
    memset(st, 0, sizeof *st);
    st->comm_name = which == 1 ? "dup" : which == 2 ? "half" : "comm";
    call *c = &st->c;
    c->coll = mixed && k % 6 == 4 ? y : coll;
    c->comm = cm;
    c->rank = cr;
    c->size = cs;
    /* the alternating kind keeps one root: a small bcast's root leaves
     * without waiting for its readers, and only its next calls can run
     * ahead of them into the words they read */
    c->root = (mixed ? k + rep : rep) % cs;
    c->salt = 101 * k + 1009 * rep;
    c->late = -1;
    int v = coll_has(c->coll, F_sdispls | F_rdispls);
    /* all-to-all v/w in place: Open MPI's MPI_Ialltoallv/w differ from the
     * blocking calls there, MPICH 4.0's MPI_Ialltoallw crashes (README) */
    int a2avw = c->coll == C_ALLTOALLV || c->coll == C_ALLTOALLW;
    c->in_place = coll_has(c->coll, F_sbuf) && !a2avw && (k + rep) % 3 == 1;
    /* (the quirks were probed on comm: on one rank, Open MPI's alltoallw
     * and MPICH's allgatherv get gapped displacements wrong) */
    c->layout = v && cs > 1 && quirk_gapped_ok(c->coll) ? (k / 2 + rep) % 2 : LAYOUT_ASC;
    c->struct_ok = quirk_struct_ok(n);
    if (coll_has(c->coll, F_scount | F_scounts | F_rcount | F_rcounts)) {
        pick_case(c, 3 * k + rep, n, plain);
        if (!c->tc && !c->rc)
            n = 0, c->coll = C_BARRIER;   /* nothing this MPI can check */
    }
    if (c->coll == C_BARRIER)
        c->tc = tcase_get(0);
    st->n = n;
    call blank = *c;
    call_setup(c, n);
    /* in place where the MPI's own call (the reference) crashes: not */
    if (c->in_place && (quirk_native_crashes(c, MODE_BLOCKING) ||
                        quirk_native_crashes(c, MODE_WAIT))) {
        call_free(c);
        *c = blank;
        c->in_place = 0;
        pick_case(c, 3 * k + rep, n, plain);
        call_setup(c, n);
    }
    c->late = -1;   /* sequences have no late rank */
    tbuf_alloc(&st->ref, c->rinit.bytes, 0);
    tbuf_alloc(&st->got, c->rinit.bytes, 0);
    tbuf_copy(&st->ref, &c->rinit);
    tbuf_copy(&st->got, &c->rinit);
}

static void free_step(step *st)
{
    tbuf_free(&st->ref);
    tbuf_free(&st->got);
    call_free(&st->c);
}

static int kind;   /* of the sequences being run */

static void fail(const step *st, int k, const char *alg, int mode, int rep, const char *what)
{
    const call *c = &st->c;
    if (++failures <= MAX_PRINTED)
        printf("FAIL sequence %s alg=%s mode=%s rep=%d p=%d rank=%d: call %d of %d: %s on %s "
               "root=%d count=%d type=%s in-place=%d layout=%s: %s\n", kind_names[kind],
               alg, seq_mode_names[mode], rep, size, rank, k, LEN, coll_names[c->coll],
               st->comm_name, c->root, st->n, c->rc ? c->rc->name : c->tc->name,
               c->in_place, c->layout == LAYOUT_REV_GAPS ? "reversed+gaps" : "ascending",
               what);
    else if (failures == MAX_PRINTED + 1)
        printf("rank %d: further failures not printed\n", rank);
    fflush(stdout);
}

static void error_msg(int err, char *msg, size_t len)
{
    char s[MPI_MAX_ERROR_STRING];
    int slen;
    MPI_Error_string(err, s, &slen);
    snprintf(msg, len, "returned error %d (%s)", err, s);
}

/* The result of step st compared with its reference (undefined bytes set
 * alike first). */
static void check(step *st, int k, const char *alg, int mode, int rep)
{
    call *c = &st->c;
    char msg[200];
    size_t nd;
    if (c->rkeep < st->got.bytes) {
        memset(st->got.data + c->rkeep, 0, st->got.bytes - c->rkeep);
        memset(st->ref.data + c->rkeep, 0, st->ref.bytes - c->rkeep);
    }
    ptrdiff_t at = tbuf_diff(&st->got, &st->ref, &nd);
    if (at != PTRDIFF_MIN) {
        snprintf(msg, sizeof msg, "recvbuf byte %td of %zu differs (got 0x%02x want 0x%02x), "
                 "%zu bytes differ", at, st->got.bytes, (unsigned char)st->got.data[at],
                 (unsigned char)st->ref.data[at], nd);
        fail(st, k, alg, mode, rep, msg);
    }
    if (tbuf_diff(&c->sdata, &c->ssave, &nd) != PTRDIFF_MIN)
        fail(st, k, alg, mode, rep, "sendbuf (input!) changed");
}

/* Runs the sequence in mode (steps already hold their references). */
/* How many calls of the tested collective collx's dispatcher saw with
 * alg named (served or handed over). */
static int tested;   /* the collective of the sequences being run */

static long seen(const char *alg)
{
    const char *cname = coll_names[tested];
    return CX_Algorithm_calls(cname, alg) + CX_Algorithm_fallbacks(cname, alg);
}

/* --mpi: the steps started with MPI_I<name>, waited for all at once. */
static void wait_all_mpi(step *seq, int *err)
{
    MPI_Request r[LEN];
    MPI_Status st[LEN];
    for (int k = 0; k < LEN; k++)
        r[k] = seq[k].mq;
    int e = MPI_Waitall(LEN, r, st);
    for (int k = 0; k < LEN; k++) {
        if (seq[k].mq != MPI_REQUEST_NULL && !err[k])
            err[k] = e == MPI_ERR_IN_STATUS ? st[k].MPI_ERROR : e;
        if (r[k] != MPI_REQUEST_NULL && !err[k])
            err[k] = MPI_ERR_REQUEST;   /* a completed request must be released */
        seq[k].mq = MPI_REQUEST_NULL;
    }
}

/* Blocking mode: every call on the same two buffers (its input copied
 * in, its result out), every third one twice in a row: calls whose
 * buffers are the same and whose counts, types, roots or in-place use
 * change, and calls that repeat exactly (collx runs again the schedule it
 * kept for the last one: src/core/call/replay.c). */
static tbuf shared_s, shared_r;

static void shared_buffers(const step *seq)
{
    size_t sb = 1, rb = 1;
    for (int k = 0; k < LEN; k++) {
        sb = seq[k].c.sdata.bytes > sb ? seq[k].c.sdata.bytes : sb;
        rb = seq[k].c.rinit.bytes > rb ? seq[k].c.rinit.bytes : rb;
    }
    tbuf_alloc(&shared_s, sb, 0);
    tbuf_alloc(&shared_r, rb, 0);
}

static int run_shared(step *st, int k, const char *alg, int rep)
{
    call *c = &st->c;
    char *own = c->sdata.data;
    memcpy(shared_s.data, own, c->sdata.bytes);
    memcpy(shared_r.data, c->rinit.data, c->rinit.bytes);
    c->sdata.data = shared_s.data;
    int err = call_run(c, RUN_CX, MODE_BLOCKING, shared_r.data);
    memcpy(st->got.data, shared_r.data, st->got.bytes);
    if (!err && k % 3 == 0) {   /* a third of them (sizes 3, 0, 1000, 2, BIG...) */
        memcpy(shared_r.data, c->rinit.data, c->rinit.bytes);
        err = call_run(c, RUN_CX, MODE_BLOCKING, shared_r.data);
        size_t n = c->rkeep < st->got.bytes ? c->rkeep : st->got.bytes;
        if (!err && memcmp(shared_r.data, st->got.data, n))
            fail(st, k, alg, SEQ_BLOCKING, rep, "the same call made again gave another result");
        calls++;
    }
    if (memcmp(shared_s.data, c->ssave.data, c->ssave.bytes))
        fail(st, k, alg, SEQ_BLOCKING, rep, "sendbuf (input!) changed");
    c->sdata.data = own;
    return err;
}

static void run_mode(step *seq, const char *alg, int mode, int rep)
{
    char msg[MPI_MAX_ERROR_STRING + 64];
    int err[LEN], mark = absolute_mark();
    long seen_before = seen(alg);
    int nbs = 0;
    for (int k = 0; k < LEN; k++) {
        step *st = &seq[k];
        tbuf_copy(&st->got, &st->c.rinit);
        st->q = CX_REQUEST_NULL;
        st->mq = MPI_REQUEST_NULL;
        int nb = mode == SEQ_EACH || mode == SEQ_INFLIGHT || (mode == SEQ_ALTERNATE && k % 2);
        nbs += nb && st->c.coll == tested;
        if (mode == SEQ_BLOCKING && !st->c.bottom)
            err[k] = run_shared(st, k, alg, rep);
        else if (!nb)
            err[k] = call_run(&st->c, RUN_CX, MODE_BLOCKING, st->got.data);
        else if (opt.mpi && (err[k] = call_start_mpi(&st->c, st->got.data, &st->mq)) == 0 &&
                 mode == SEQ_EACH)
            err[k] = MPI_Wait(&st->mq, MPI_STATUS_IGNORE);
        else if (opt.mpi)
            ;
        else if (mode == SEQ_EACH)
            err[k] = call_run(&st->c, RUN_CX, MODE_WAIT, st->got.data);
        else
            err[k] = call_start(&st->c, st->got.data, &st->q);
        calls++;
    }
    if (opt.mpi)
        wait_all_mpi(seq, err);
    for (int k = 0; k < LEN; k++)
        if (seq[k].q != CX_REQUEST_NULL && !err[k])
            err[k] = CX_Wait(&seq[k].q);
    if (opt.mpi && nbs && seen(alg) == seen_before)
        fail(&seq[0], 0, alg, mode, rep, "collx never saw the MPI_I calls (run under the "
             "interposer)");
    for (int k = 0; k < LEN; k++) {
        if (err[k]) {
            error_msg(err[k], msg, sizeof msg);
            fail(&seq[k], k, alg, mode, rep, msg);
        } else {
            check(&seq[k], k, alg, mode, rep);
        }
    }
    if (user_op_misuse())
        fail(&seq[0], 0, alg, mode, rep, "a user-defined operation got another datatype");
    for (int k = 0; k < LEN; k++)
        call_forget_view(&seq[k].c);
    absolute_release(mark);
}

/* --persistent: step k's persistent request; start it; wait for it. */
static int persist_init(step *st)
{
    st->q = CX_REQUEST_NULL;
    st->mq = MPI_REQUEST_NULL;
    return opt.mpi ? call_init_mpi(&st->c, st->got.data, &st->mq)
                   : call_init(&st->c, st->got.data, &st->q);
}

static int persist_start(step *st)
{
    return opt.mpi ? MPI_Start(&st->mq) : CX_Start(&st->q);
}

static int persist_wait(step *st)
{
    int err = opt.mpi ? MPI_Wait(&st->mq, MPI_STATUS_IGNORE) : CX_Wait(&st->q);
    if (!err && (opt.mpi ? st->mq == MPI_REQUEST_NULL : st->q == CX_REQUEST_NULL))
        err = MPI_ERR_REQUEST;   /* a persistent request stays */
    return err;
}

static int persist_free(step *st)
{
    if (opt.mpi)
        return st->mq != MPI_REQUEST_NULL ? MPI_Request_free(&st->mq) : MPI_SUCCESS;
    return st->q != CX_REQUEST_NULL ? CX_Request_free(&st->q) : MPI_SUCCESS;
}

static void run_persist(step *seq, const char *alg, int rep)
{
    char msg[MPI_MAX_ERROR_STRING + 64];
    int err[LEN], mark = absolute_mark();
    long seen_before = seen(alg);
    for (int k = 0; k < LEN; k++) {
        tbuf_copy(&seq[k].got, &seq[k].c.rinit);
        err[k] = persist_init(&seq[k]);
        calls++;
    }
    for (int pass = 0; pass < PASSES; pass++) {
        int each = pass % 2 == 0;   /* else all in flight, then waited */
        for (int k = 0; pass && k < LEN; k++)
            tbuf_copy(&seq[k].got, &seq[k].c.rinit);
        for (int k = 0; k < LEN; k++)
            if (!err[k] && !(err[k] = persist_start(&seq[k])) && each)
                err[k] = persist_wait(&seq[k]);
        for (int k = 0; k < LEN && !each; k++)
            if (!err[k])
                err[k] = persist_wait(&seq[k]);
        for (int k = 0; k < LEN; k++) {
            if (err[k] == -1)
                continue;   /* failed in an earlier pass, said then */
            if (err[k]) {
                error_msg(err[k], msg, sizeof msg);
                fail(&seq[k], k, alg, SEQ_PERSIST, rep, msg);
                err[k] = -1;
            } else {
                check(&seq[k], k, alg, SEQ_PERSIST, rep);
            }
        }
    }
    for (int k = 0; k < LEN; k++) {
        int e = persist_free(&seq[k]);
        if (e) {
            error_msg(e, msg, sizeof msg);
            fail(&seq[k], k, alg, SEQ_PERSIST, rep, msg);
        }
    }
    if (seen(alg) == seen_before)
        fail(&seq[0], 0, alg, SEQ_PERSIST, rep, "collx never saw the persistent calls");
    if (user_op_misuse())
        fail(&seq[0], 0, alg, SEQ_PERSIST, rep, "a user-defined operation got another datatype");
    for (int k = 0; k < LEN; k++)
        call_forget_view(&seq[k].c);
    absolute_release(mark);
}

/* The PMPI_ results of the sequence, in its order. Where the MPI's own
 * call at MPI_BOTTOM differs from it with the buffers' addresses (Open
 * MPI 4.1's MPI_Reduce treats a receive buffer at address 0 as none at
 * some roots and sizes), collx's native algorithm, which is that call,
 * cannot be checked: such steps are built again without MPI_BOTTOM
 * (alike on every rank) and their references taken again. */
static void references(step *seq, int coll, int y, int rep)
{
    unsigned broken = 0, all = 0;
    for (int k = 0; k < LEN; k++)
        if (call_run(&seq[k].c, RUN_PMPI, MODE_BLOCKING, seq[k].ref.data))
            fail(&seq[k], k, "PMPI reference", SEQ_BLOCKING, rep, "returned an error");
    for (int k = 0; k < LEN; k++) {
        if (!seq[k].c.bottom)
            continue;
        size_t nd;
        tbuf own;
        tbuf_alloc(&own, seq[k].c.rinit.bytes, 0);
        tbuf_copy(&own, &seq[k].c.rinit);
        if (call_run(&seq[k].c, RUN_PMPI_BOTTOM, MODE_BLOCKING, own.data) ||
            tbuf_diff(&own, &seq[k].ref, &nd) != PTRDIFF_MIN)
            broken |= 1u << k;
        tbuf_free(&own);
    }
    MPI_Allreduce(&broken, &all, 1, MPI_UNSIGNED, MPI_BOR, comm_a);
    for (int k = 0; k < LEN; k++)
        if (all & 1u << k) {
            free_step(&seq[k]);
            build_step(&seq[k], kind, coll, y, k, rep, 1);
            mpi_bottom_bugs++;
            if (call_run(&seq[k].c, RUN_PMPI, MODE_BLOCKING, seq[k].ref.data))
                fail(&seq[k], k, "PMPI reference", SEQ_BLOCKING, rep, "returned an error");
        }
}

/* Frees the sequence's communicators (if any) and makes them anew; the
 * half is a split by parity (even r) or in two blocks (odd r). */
static void renew_comms(int r)
{
    MPI_Comm *cs[3] = {&comm_half, &comm_dup, &comm_a};
    for (int i = 0; i < 3; i++)
        if (*cs[i] != MPI_COMM_NULL)
            MPI_Comm_free(cs[i]);
    MPI_Comm_dup(comm_base, &comm_a);
    MPI_Comm_dup(comm_a, &comm_dup);
    MPI_Comm_split(comm_a, r % 2 ? rank < size / 2 : rank % 2, rank, &comm_half);
    for (int i = 0; i < 3; i++)
        MPI_Comm_set_errhandler(*cs[i], MPI_ERRORS_RETURN);
}

static void run_coll(int coll)
{
    const char *cname = coll_names[coll];
    int y = companion(coll), nseq = 0;
    tested = coll;
    double t0 = MPI_Wtime();
    step seq[LEN];
    for (int r = 0; r < NKINDS * opt.reps; r++) {
        int rep = r / NKINDS;
        kind = r % NKINDS;
        renew_comms(r);
        for (int k = 0; k < LEN; k++)
            build_step(&seq[k], kind, coll, y, k, rep, 0);
        references(seq, coll, y, rep);
        shared_buffers(seq);
        if (seq[0].c.rc || seq[0].c.tc)   /* normalize the references once */
            for (int k = 0; k < LEN; k++)
                if (seq[k].c.rkeep < seq[k].ref.bytes)
                    memset(seq[k].ref.data + seq[k].c.rkeep, 0,
                           seq[k].ref.bytes - seq[k].c.rkeep);
        for (int i = 0; i < CX_Algorithm_count(cname); i++) {
            const char *alg = CX_Algorithm_name(cname, i);
            if (!wanted(alg))
                continue;
            CX_Algorithm_set(cname, alg);
            CX_Algorithm_set(coll_names[y], has_alg(y, alg) ? alg : NULL);
            if (opt.persist)
                run_persist(seq, alg, rep), nseq++;
            for (int m = 0; m < SEQ_NMODES && !opt.persist; m++, nseq++)
                run_mode(seq, alg, m, rep);
        }
        CX_Algorithm_set(cname, NULL);
        CX_Algorithm_set(coll_names[y], NULL);
        for (int k = 0; k < LEN; k++)
            free_step(&seq[k]);
        tbuf_free(&shared_s);
        tbuf_free(&shared_r);
    }
    if (rank == 0) {
        printf("sequence %s p=%d (with %s):", cname, size, coll_names[y]);
        print_algorithms(coll, opt.algs);
        printf("; %d sequences of %d calls, %.1f s\n", nseq, LEN, MPI_Wtime() - t0);
        if (mpi_bottom_bugs)
            printf("NOTE: %ld calls not at MPI_BOTTOM: this MPI's own call gets them "
                   "wrong there\n", mpi_bottom_bugs);
        mpi_bottom_bugs = 0;
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
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_base);
    MPI_Comm_set_errhandler(comm_base, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_base, &rank);
    MPI_Comm_size(comm_base, &size);
    comm_a = comm_dup = comm_half = MPI_COMM_NULL;
    for (int i = 1; i < argc; i++) {
        int c;
        if (strcmp(argv[i], "--algs") == 0 && i + 1 < argc)
            opt.algs = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            opt.reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--mpi") == 0)
            opt.mpi = 1;
        else if (strcmp(argv[i], "--persistent") == 0)
            opt.persist = 1;
        else if (strcmp(argv[i], "--node-aware") == 0)
            opt.node_aware = 1;
        else if (strcmp(argv[i], "--thread") == 0)
            continue;
        else if (strcmp(argv[i], "all") == 0)
            for (c = 0; c < C_NCOLL; c++)
                todo[c] = any = 1;
        else if ((c = coll_index(argv[i])) >= 0)
            todo[c] = any = 1;
        else {
            if (rank == 0)
                fprintf(stderr, "sequence: unknown argument '%s'\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (!any) {
        if (rank == 0)
            fprintf(stderr, "usage: sequence [--algs a,b] [--reps R] [--mpi] [--thread] "
                    "[--persistent] [--node-aware] coll...|all\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (opt.mpi && opt.persist && !mpi_has_persistent()) {
        if (rank == 0)
            printf("sequence: FAILED (this MPI declares no persistent collectives)\n");
        MPI_Finalize();
        return 1;
    }
    types_init();
    rcases_init();
    quirks_probe(comm_base);
    print_nodes(comm_base);
    for (int c = 0; c < C_NCOLL; c++)
        if (todo[c])
            run_coll(c);
    long total = 0, all_calls = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&calls, &all_calls, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sequence: %s (%ld calls, %ld failures over all ranks)\n",
               total ? "FAILED" : "OK", all_calls, total);
    rcases_free();
    types_free();
    MPI_Comm *cs[4] = {&comm_half, &comm_dup, &comm_a, &comm_base};
    for (int i = 0; i < 4; i++)
        if (*cs[i] != MPI_COMM_NULL)
            MPI_Comm_free(cs[i]);
    MPI_Finalize();
    return total ? 1 : 0;
}
