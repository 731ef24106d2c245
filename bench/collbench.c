/* collbench — OSU-style benchmark driver for collx collectives.
 * Every repetition starts after a barrier; each rank records its arrival a_i
 * and finish f_i on a common clock (cb_clock.c); per repetition we compute
 * the run time r = max f - min a and the average elapsed time
 * e = mean(f - a) (PAP paper eq. 1-2) and report min/median/mean/max over
 * repetitions. See bench/README.md. */
#define _POSIX_C_SOURCE 200809L /* isatty, nanosleep */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "collx.h"
#include "cb_clock.h"
#include "cb_colls.h"
#include "cb_opts.h"
#include "cb_output.h"
#include "cb_pap.h"
#include "cb_problem.h"
#include "cb_stats.h"
#include "launcher_rank.h"
/* collx's own node layout (real nodes or COLLX_RANKS_PER_NODE /
 * COLLX_FAKE_NODES), so that --comm-shape and column ppn see the nodes
 * collx's algorithms and rules see */
#include "collx_tools.h"

#define CB_CACHE 128
#define CB_MAX_ALGS 64   /* algorithms of one collective */
#define CB_SELECTED "selected"

/* Everything one run shares (no globals: SMPI may run unprivatized). */
typedef struct {
    cb_opts o;
    MPI_Comm comm;
    MPI_Comm world;   /* with --comm-size: all ranks started (else NULL) */
    FILE *live;       /* --csv while the run goes (rank 0) */
    int rank, p, shared;
    cb_meta meta;
    cb_table table;
    int ncases, done;
    double *a, *f, *c, *A, *F, *C, *rr, *ee, *tt, *xt, *xc, *xo;
    /* Guideline cache: padded gather/scatter timings by (alg, block). */
    struct { char alg[CB_NAME_LEN]; int g2, block; cb_row rows[3]; } cache[CB_CACHE];   /* r, e, t */
    int ncache;
} bench;

static void die(bench *B, int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "collbench: rank %d: %s failed: %s\n", B->rank, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static int root_of(const bench *B, int k)
{
    switch (B->o.root_mode) {
    case CB_ROOT_ROTATE: return k % B->p;
    case CB_ROOT_MID: return B->p / 2;
    default: return B->o.root;
    }
}

static void progress(bench *B, const char *coll, const char *alg, const char *what)
{
    B->done++;
    if (B->rank || B->o.quiet)
        return;
    if (isatty(2))
        fprintf(stderr, "\r[collbench %d/%d] %s %s %s        ", B->done, B->ncases,
                coll, alg, what);
    else
        fprintf(stderr, "[collbench %d/%d] %s %s %s\n", B->done, B->ncases, coll,
                alg, what);
}

/* The metrics of one case, in row order: r and e (PAP paper eq. 1-2) and
 * t = max_j (f_j - a_j) (Träff's "time of the slowest process"); in
 * --mode nonblocking also OSU's overlap rows: total (post, compute,
 * wait: t), compute (the slowest rank's compute) and overlap (percent). */
enum { M_R, M_E, M_T, M_TOTAL, M_COMPUTE, M_OVERLAP, NMETRIC };
static const char *const metric_names[NMETRIC] = {"r", "e", "t", "total", "compute",
                                                  "overlap"};

static int nmetrics(const bench *B)
{
    return B->o.mode == CB_MODE_NONBLOCKING ? NMETRIC : M_TOTAL;
}

/* "Compute" for `seconds`: a busy loop on a real MPI (the core is the
 * program's, as in OSU's overlap benchmarks); simulated time in SMPI. */
static void compute(double seconds)
{
    if (seconds <= 0)
        return;
#ifdef CB_SMPI
    struct timespec t = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&t, NULL);
#else
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < seconds)
        ;
#endif
}

/* One call of the case in the run's mode: blocking; CX_I<coll>, compute
 * for `busy` seconds (*spent: how long it took), CX_Wait; or a start of
 * the persistent request q. */
static int one_call(bench *B, cb_op *op, int root, CX_Request *q, double busy, double *spent)
{
    int rc;
    if (B->o.mode == CB_MODE_BLOCKING)
        return cb_op_run(op, root);
    if (B->o.mode == CB_MODE_PERSISTENT)
        return (rc = CX_Start(q)) ? rc : CX_Wait(q);
    CX_Request r;
    if ((rc = cb_op_start(op, root, &r)))
        return rc;
    double t0 = cb_now();
    compute(busy);
    *spent = cb_now() - t0;
    return CX_Wait(&r);
}

/* Timed repetitions into B->a, B->f (and B->c: compute time), each after
 * a barrier. */
static void repetitions(bench *B, cb_op *op, CX_Request *q, double busy, const char *coll)
{
    const cb_opts *o = &B->o;
    for (int k = 0; k < o->iters; k++) {
        double spent = 0;
        MPI_Barrier(B->comm);
        cb_pap_compute(B->comm, o->pap ? cb_pap_delay(o->seed, k, B->rank,
                                                      o->max_delay) : 0.0);
        B->a[k] = cb_now();
        int rc = one_call(B, op, root_of(B, k), q, busy, &spent);
        B->f[k] = cb_now();
        B->c[k] = spent;
        if (rc != MPI_SUCCESS)
            die(B, rc, coll);
    }
}

/* Rank 0: per repetition k the metric of the gathered a, f (, c). */
static void metrics_of(bench *B, double *x[], int first, double pure_us)
{
    int iters = B->o.iters;
    double *ak = malloc(sizeof(double) * (size_t)B->p);
    double *fk = malloc(sizeof(double) * (size_t)B->p);
    for (int k = 0; k < iters; k++) {
        double cmax = 0;
        for (int j = 0; j < B->p; j++) {
            ak[j] = B->A[(size_t)j * iters + k];
            fk[j] = B->F[(size_t)j * iters + k];
            if (B->C[(size_t)j * iters + k] > cmax)
                cmax = B->C[(size_t)j * iters + k];
        }
        if (first == M_R) {
            x[M_R][k] = 1e6 * cb_run_time(ak, fk, B->p);
            x[M_E][k] = 1e6 * cb_elapsed_time(ak, fk, B->p);
            x[M_T][k] = 1e6 * cb_slowest_time(ak, fk, B->p);
        } else {   /* OSU: overlap = 1 - (total - compute) / pure */
            double total = 1e6 * cb_slowest_time(ak, fk, B->p), comp = 1e6 * cmax;
            double ov = pure_us > 0 ? 100 * (1 - (total - comp) / pure_us) : 0;
            x[M_TOTAL][k] = total;
            x[M_COMPUTE][k] = comp;
            x[M_OVERLAP][k] = ov < 0 ? 0 : ov > 100 ? 100 : ov;
        }
    }
    free(ak);
    free(fk);
}

static void gather_times(bench *B)
{
    int n = B->o.iters;
    MPI_Gather(B->a, n, MPI_DOUBLE, B->A, n, MPI_DOUBLE, 0, B->comm);
    MPI_Gather(B->f, n, MPI_DOUBLE, B->F, n, MPI_DOUBLE, 0, B->comm);
    MPI_Gather(B->c, n, MPI_DOUBLE, B->C, n, MPI_DOUBLE, 0, B->comm);
}

/* Rank 0: r, e, t of one call from every rank's (a, f) pair. */
static void one_call_metrics(const bench *B, const double *af, double *out)
{
    double *a = malloc(sizeof(double) * 2 * (size_t)B->p), *f = a + B->p;
    for (int j = 0; j < B->p; j++) {
        a[j] = af[2 * j];
        f[j] = af[2 * j + 1];
    }
    out[M_R] = 1e6 * cb_run_time(a, f, B->p);
    out[M_E] = 1e6 * cb_elapsed_time(a, f, B->p);
    out[M_T] = 1e6 * cb_slowest_time(a, f, B->p);
    free(a);
}

/* The case's first call on a new communicator: what an application's
 * first call there pays, the algorithm's setup included (the topo family's
 * distance tournament, hier's node-shared segments, rma_*'s windows: work
 * the warm-ups hide from the median). On a duplicate of the benchmark
 * communicator, so that no algorithm finds what another set up there (the
 * topo family's distances are one per communicator, shared by its
 * algorithms), after the warm-ups on the benchmark communicator, so that
 * what a process pays once whatever runs (MPI's lazy connections and
 * buffers: 400 us more for whichever algorithm came first, Open MPI, 4
 * ranks, 64 KiB) is not in it. In persistent mode the init is part of it.
 * Rank 0: out[M_R..M_T], that call's r, e and t in microseconds. */
static void first_call(bench *B, cb_op *op, double *out)
{
    MPI_Comm keep = op->comm, fresh;
    CX_Request q = CX_REQUEST_NULL;
    double af[2], spent, *all = NULL;
    int rc = MPI_Comm_dup(B->comm, &fresh);
    if (rc != MPI_SUCCESS)
        die(B, rc, "MPI_Comm_dup");
    MPI_Comm_set_errhandler(fresh, MPI_ERRORS_RETURN);
    op->comm = fresh;
    MPI_Barrier(B->comm);   /* not on fresh: its own first use is no part of it */
    af[0] = cb_now();
    if (B->o.mode == CB_MODE_PERSISTENT)
        rc = cb_op_init(op, root_of(B, 0), &q);
    if (rc == MPI_SUCCESS)
        rc = one_call(B, op, root_of(B, 0), &q, 0, &spent);
    af[1] = cb_now();
    if (rc != MPI_SUCCESS)
        die(B, rc, "first call");
    if (q != CX_REQUEST_NULL)
        CX_Request_free(&q);
    op->comm = keep;
    MPI_Comm_free(&fresh);   /* and collx's state of it */
    if (B->rank == 0)
        all = malloc(sizeof(double) * 2 * (size_t)B->p);
    MPI_Gather(af, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, B->comm);
    if (B->rank == 0)
        one_call_metrics(B, all, out);
    free(all);
}

/* Warm-ups, (first: the first call on a new communicator,) then timed
 * repetitions; fills rows[nmetrics(B)] (rank 0). In --mode nonblocking a
 * second pass posts, computes for the first pass's mean t, then waits
 * (OSU's overlap). */
static void measure(bench *B, cb_op *op, int first, cb_row *rows)
{
    const cb_opts *o = &B->o;
    int rc;
    double spent;
    CX_Request q = CX_REQUEST_NULL;
    if (o->mode == CB_MODE_PERSISTENT &&
        (rc = cb_op_init(op, root_of(B, 0), &q)) != MPI_SUCCESS)
        die(B, rc, rows[0].coll);
    for (int k = 0; k < o->warmup; k++) {
        MPI_Barrier(B->comm);
        if ((rc = one_call(B, op, root_of(B, k), &q, 0, &spent)) != MPI_SUCCESS)
            die(B, rc, rows[0].coll);
    }
    /* Offsets again for every case: clocks drift over a long sweep. */
    cb_clock_init(B->comm);
    double once[M_TOTAL] = {-1, -1, -1};   /* the first call's r, e, t (rank 0) */
    if (first)
        first_call(B, op, once);
    if (o->pap)
        pap_begin(op, o->root_mode == CB_ROOT_ROTATE ? -1 : root_of(B, 0));
    repetitions(B, op, &q, 0, rows[0].coll);
    if (o->pap)
        pap_end(B->comm);
    int valid = o->validate ? cb_op_validate(op, root_of(B, 0)) : -1;
    gather_times(B);
    double *x[NMETRIC] = {B->rr, B->ee, B->tt, B->xt, B->xc, B->xo};
    double pure = 0;
    if (B->rank == 0) {
        metrics_of(B, x, M_R, 0);
        rows[M_T].s = cb_summarize(x[M_T], o->iters);
        pure = rows[M_T].s.mean;
    }
    if (o->mode == CB_MODE_NONBLOCKING) {
        MPI_Bcast(&pure, 1, MPI_DOUBLE, 0, B->comm);
        repetitions(B, op, &q, pure * 1e-6, rows[0].coll);
        gather_times(B);
        if (B->rank == 0)
            metrics_of(B, x, M_TOTAL, pure);
    }
    if (q != CX_REQUEST_NULL)
        CX_Request_free(&q);
    for (int i = 0; B->rank == 0 && i < nmetrics(B); i++) {
        rows[i].s = cb_summarize(x[i], o->iters);
        rows[i].valid = valid;
        strcpy(rows[i].kind, "time");
        strcpy(rows[i].metric, metric_names[i]);
        rows[i].first_us = i < M_TOTAL ? once[i] : -1;
    }
}

/* Every algorithm's call count for coll (CX_Algorithm_calls). */
static void cb_calls(const char *coll, long *calls)
{
    for (int i = 0; i < CX_Algorithm_count(coll) && i < CB_MAX_ALGS; i++)
        calls[i] = CX_Algorithm_calls(coll, CX_Algorithm_name(coll, i));
}

/* The algorithms whose calls grew since before: what served the timed
 * calls (an algorithm that could not serve them hands them over). */
static void cb_what_ran(const char *coll, const long *before, char *ran, size_t len)
{
    long now[CB_MAX_ALGS];
    size_t n = 0;
    cb_calls(coll, now);
    ran[0] = '\0';
    for (int i = 0; i < CX_Algorithm_count(coll) && i < CB_MAX_ALGS; i++)
        if (now[i] > before[i] && n < len)
            n += (size_t)snprintf(ran + n, len - n, "%s%s", n ? "+" : "",
                                  CX_Algorithm_name(coll, i));
}

/* "selected": nothing forced, the selection chain (environment, rules
 * file, default) decides per call; column ran says what it chose. */
static void set_alg(bench *B, const char *coll, const char *alg)
{
    if (alg && !strcmp(alg, CB_SELECTED))
        alg = NULL;
    if (CX_Algorithm_set(coll, alg) != MPI_SUCCESS)
        die(B, MPI_ERR_ARG, "CX_Algorithm_set");
}

static void record(bench *B, cb_row *rows)
{
    if (B->rank)
        return;
    for (int i = 0; i < nmetrics(B); i++)
        cb_table_add(&B->table, &rows[i]);
    cb_print_case(stdout, &rows[M_R], &rows[M_E], &rows[M_T],
                  rows[0].problem[0] != 0, B->o.full);
    if (B->o.mode == CB_MODE_NONBLOCKING)
        printf("    overlap: pure %.2f us, post+compute+wait %.2f us, compute %.2f us: "
               "%.1f %%\n", rows[M_T].s.mean, rows[M_TOTAL].s.mean, rows[M_COMPUTE].s.mean,
               rows[M_OVERLAP].s.mean);
    if (rows[M_R].first_us >= 0)
        printf("    first call on a new communicator: %.2f us (r); minus the median %.2f: "
               "setup %.2f us\n", rows[M_R].first_us, rows[M_R].s.median,
               rows[M_R].first_us - rows[M_R].s.median);
    fflush(stdout);
    /* --csv grows case by case: a run killed midway (time or memory limit)
     * leaves the cases it finished; the whole table is written at the end */
    if (B->o.csv[0] && !B->live && (B->live = fopen(B->o.csv, "w")))
        cb_csv_header(B->live);
    if (B->live) {
        for (int i = 0; i < nmetrics(B); i++)
            cb_csv_row(B->live, &B->meta, &rows[i]);
        fflush(B->live);
    }
}

/* Measures coll/alg on block sizes m and records rows[nmetrics(B)];
 * first: time the first call on a new communicator too (first_call). */
static void run_case(bench *B, const cb_row *proto, cb_coll coll,
                     const char *alg, const int *m, int local, int g2,
                     int first, cb_row *rows)
{
    cb_op op;
    set_alg(B, cb_coll_name(coll), alg);
    int rc = cb_op_setup(&op, coll, m, local, g2, B->comm, root_of(B, 0),
                         B->o.root_mode == CB_ROOT_ROTATE, B->shared);
    if (rc != MPI_SUCCESS)
        die(B, rc, "buffer setup (message too large?)");
    static const char *const form[] = {"%s%s", "%si%s", "%s%s_init"};
    for (int i = 0; i < nmetrics(B); i++) {
        rows[i] = *proto;
        snprintf(rows[i].coll, sizeof rows[i].coll, form[B->o.mode], g2 ? "allreduce+" : "",
                 cb_coll_name(coll));
        snprintf(rows[i].alg, sizeof rows[i].alg, "%s", alg);
    }
    long before[CB_MAX_ALGS];
    cb_calls(cb_coll_name(coll), before);
    clock_t c0 = clock();   /* not simulated in SMPI: the host's CPU time */
    measure(B, &op, first, rows);   /* host_s: with the first call, which every
                                       run pays at its first point */
    double host_s = B->o.host_time ? (double)(clock() - c0) / CLOCKS_PER_SEC : -1;
    for (int i = 0; i < nmetrics(B); i++)
        rows[i].host_s = host_s;
    cb_what_ran(cb_coll_name(coll), before, rows[0].ran, sizeof rows[0].ran);
    for (int i = 1; i < nmetrics(B); i++)
        strcpy(rows[i].ran, rows[0].ran);
    cb_op_free(&op);
    set_alg(B, cb_coll_name(coll), NULL);
    char what[64];
    if (proto->problem[0])
        snprintf(what, sizeof what, "%s b=%ld", proto->problem, proto->b);
    else
        snprintf(what, sizeof what, "%ld B", proto->size_bytes);
    progress(B, rows[0].coll, alg, what);
    record(B, rows);
}

/* Padded regular gather/scatter (optionally with the allreduce of
 * Guideline (2)); timings depend only on the padded block, so measure each
 * (algorithm, block) once per run and reuse it for other problems. */
static void padded_case(bench *B, const cb_row *proto, cb_coll reg,
                        const char *alg, int g2, const int *mp, int local,
                        cb_row *rows)
{
    for (int i = 0; i < B->ncache; i++)
        if (B->cache[i].g2 == g2 && B->cache[i].block == mp[0] &&
            !strcmp(B->cache[i].alg, alg)) {
            for (int k = 0; k < M_TOTAL; k++) {
                rows[k] = B->cache[i].rows[k];
                rows[k].m = proto->m;
                rows[k].b = proto->b;
                strcpy(rows[k].problem, proto->problem);
            }
            B->done++;
            record(B, rows);
            return;
        }
    run_case(B, proto, reg, alg, mp, local, g2, 0, rows);
    if (B->ncache < CB_CACHE) {
        int i = B->ncache++;
        snprintf(B->cache[i].alg, CB_NAME_LEN, "%s", alg);
        B->cache[i].g2 = g2;
        B->cache[i].block = mp[0];
        memcpy(B->cache[i].rows, rows, sizeof B->cache[i].rows);
    }
}

static void verdict(bench *B, const cb_row *lhs, const char *ref, double rhs,
                    const char *g)
{
    if (B->rank)
        return;
    cb_row v = *lhs;
    strcpy(v.kind, "guideline");
    strcpy(v.metric, g);
    v.first_us = -1;
    snprintf(v.ref, sizeof v.ref, "%s", ref);
    v.ref_us = rhs;
    v.ratio = rhs > 0 ? lhs->s.min / rhs : 0;
    v.violated = cb_guideline_violated(lhs->s.min, rhs, B->o.tolerance);
    cb_table_add(&B->table, &v);
    cb_print_verdict(stdout, &v, B->o.tolerance);
}

/* Träff section 4, on min t (the paper marks avg and min; in SMPI without
 * delays they agree):
 *  (1) MPI_Gather(m) <= MPI_Gatherv(m) — only where MPI_Gather can be used,
 *      i.e. regular problems (m' = m); per gather algorithm vs the best
 *      gatherv algorithm.
 *  (2) MPI_Gatherv(m) <= MPI_Allreduce(1) + MPI_Gather(m') — per gatherv
 *      algorithm vs the best padded composite. Same for scatter(v). */
static void guidelines(bench *B, int nreg, cb_row *reg, int nv, cb_row *v,
                       int ng2, cb_row *g2, int regular)
{
    if (B->rank || !nv)
        return;
    const cb_row *bv = &v[0], *bg = ng2 ? &g2[0] : NULL;
    for (int i = 1; i < nv; i++)
        if (v[i].s.min < bv->s.min)
            bv = &v[i];
    for (int i = 1; i < ng2; i++)
        if (g2[i].s.min < bg->s.min)
            bg = &g2[i];
    char ref[96];
    if (regular) {
        snprintf(ref, sizeof ref, "%s/%s", bv->coll, bv->alg);
        for (int i = 0; i < nreg; i++)
            verdict(B, &reg[i], ref, bv->s.min, "G1");
    }
    if (bg) {
        snprintf(ref, sizeof ref, "%s/%s", bg->coll, bg->alg);
        for (int i = 0; i < nv; i++)
            verdict(B, &v[i], ref, bg->s.min, "G2");
    }
}

static int bad_usage(bench *B, const char *msg, const char *prog)
{
    if (B->rank == 0) {
        fprintf(stderr, "collbench: error: %s\n", msg);
        cb_opts_usage(stderr, prog);
    }
    MPI_Finalize();
    return 2;
}

/* The benchmark's communicator: the ranks with member set (--comm-size Q:
 * ranks 0..Q-1, with block placement whole nodes first; --comm-shape: its
 * ranks), in world rank order. The other ranks wait for them in a barrier
 * they poll with sleeps, so they do not take the CPU from the measured
 * ranks when cores are oversubscribed. Returns 1 on the waiting ranks
 * (finalized). */
static int sub_comm(bench *B, int member)
{
    MPI_Comm sub, world = B->comm;
    MPI_Comm_split(world, member ? 0 : MPI_UNDEFINED, B->rank, &sub);
    if (sub == MPI_COMM_NULL) {
        MPI_Request req;
        int done = 0;
        struct timespec ms = {0, 1000000};
        MPI_Ibarrier(world, &req);
        while (!done) {
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
            if (!done)
                nanosleep(&ms, NULL);
        }
        MPI_Comm_free(&world);
        MPI_Finalize();
        return 1;
    }
    B->world = world;
    B->comm = sub;
    MPI_Comm_set_errhandler(B->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(B->comm, &B->rank);
    MPI_Comm_size(B->comm, &B->p);
    return 0;
}

/* "2,2,1" (the ranks of each node, in node order) into buf. */
static void node_sizes_text(const int *count, int nodes, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < nodes && n + 16 < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%d", i ? "," : "", count[i]);
    if (nodes && n + 16 >= len)
        snprintf(buf + n, len - n, ",...");
}

/* --comm-shape NxK over the world's nodes as collx sees them (lowest[r]:
 * the lowest rank of rank r's node, the same on every rank): in[r] = the
 * node (0..N-1) rank r stands for, or -1; rank r is in when it is one of
 * the K lowest ranks of one of the first N nodes (nodes in the order of
 * their lowest ranks). Returns 0, or -1 with err when the world has no N
 * nodes of at least K ranks there (every rank alike). */
static int shape_members(const int *lowest, int p, int n, int k, int *in, char *err,
                         size_t len)
{
    int *node = malloc(sizeof(int) * 2 * (size_t)p), nodes = 0;
    if (!node) {
        snprintf(err, len, "--comm-shape: out of memory");
        return -1;
    }
    int *count = node + p;   /* ranks per node, by node */
    for (int r = 0; r < p; r++) {
        if (lowest[r] == r) {   /* r leads a new node */
            count[nodes] = 0;
            node[r] = nodes++;
        } else {
            node[r] = node[lowest[r]];
        }
        int local = count[node[r]]++;
        in[r] = node[r] < n && local < k ? node[r] : -1;
    }
    int short_of = nodes < n;
    for (int i = 0; i < n && i < nodes; i++)
        short_of |= count[i] < k;
    if (short_of) {
        char sizes[96];
        node_sizes_text(count, nodes, sizes, sizeof sizes);
        snprintf(err, len, "--comm-shape %dx%d needs %d node%s of at least %d rank%s; the "
                 "%d ranks started are on %d node%s of %s rank%s (nodes as collx sees "
                 "them: the real ones, or COLLX_RANKS_PER_NODE / COLLX_FAKE_NODES)", n, k, n,
                 n == 1 ? "" : "s", k, k == 1 ? "" : "s", p, nodes, nodes == 1 ? "" : "s",
                 sizes, nodes == 1 && count[0] == 1 ? "" : "s");
    }
    free(node);
    return short_of ? -1 : 0;
}

/* --comm-shape: whether this rank is a member (*member), or -1 with err. */
static int shape_comm(bench *B, int *member, char *err, size_t len)
{
    int *lowest = malloc(sizeof(int) * 2 * (size_t)B->p), rc = -1;
    if (!lowest) {
        snprintf(err, len, "--comm-shape: out of memory");
        return -1;
    }
    int *in = lowest + B->p;   /* each world rank's node in the shape, or -1 */
    if (CX_Nodes_lowest(B->comm, lowest) != MPI_SUCCESS)
        snprintf(err, len, "--comm-shape: collx could not tell the nodes");
    else   /* collx's fake layouts go by world rank: the members keep their nodes */
        rc = shape_members(lowest, B->p, B->o.shape_nodes, B->o.shape_per, in, err, len);
    if (!rc)
        *member = in[B->rank] >= 0;
    free(lowest);
    return rc;
}

/* Nodes and ranks on the fullest node of the benchmark communicator, as
 * collx sees them (what its rules match); the largest shared-memory group
 * where collx cannot tell. */
static void comm_nodes(bench *B)
{
    int *lowest = malloc(sizeof(int) * (size_t)B->p);
    if (lowest && CX_Nodes_lowest(B->comm, lowest) == MPI_SUCCESS) {
        CX_Nodes_count(lowest, B->p, &B->meta.nodes, &B->meta.ppn);
    } else {
        MPI_Comm node;
        int nsz;
        MPI_Comm_split_type(B->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &nsz);
        MPI_Comm_free(&node);
        MPI_Allreduce(&nsz, &B->meta.ppn, 1, MPI_INT, MPI_MAX, B->comm);
        B->meta.nodes = -1;
    }
    free(lowest);
}

/* Whether --algs names algs[i] for the first time (a label listed again,
 * as the tuner's interleaved samples are, needs no second first call). */
static int first_listed(const cb_opts *o, int i)
{
    for (int k = 0; k < i; k++)
        if (!strcmp(o->algs[k], o->algs[i]))
            return 0;
    return 1;
}

/* Checks user-given names against the registry; fills in all if none. */
static int resolve_algs(const char *coll, char list[][CB_NAME_LEN], int *n,
                        char *err, size_t len)
{
    int cnt = CX_Algorithm_count(coll);
    if (*n == 0) {
        for (int i = 0; i < cnt && i < CB_MAX_LIST; i++)
            snprintf(list[i], CB_NAME_LEN, "%s", CX_Algorithm_name(coll, i));
        *n = cnt < CB_MAX_LIST ? cnt : CB_MAX_LIST;
        return 0;
    }
    for (int k = 0; k < *n; k++) {
        int found = !strcmp(list[k], CB_SELECTED);
        for (int i = 0; i < cnt && !found; i++)
            found = !strcmp(list[k], CX_Algorithm_name(coll, i));
        if (!found) {
            int off = snprintf(err, len, "unknown %s algorithm '%s'; registered:",
                               coll, list[k]);
            for (int i = 0; i < cnt && off < (int)len; i++)
                off += snprintf(err + off, len - (size_t)off, " %s",
                                CX_Algorithm_name(coll, i));
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--version")) {   /* as collx_info --version: no MPI_Init */
            char v[CX_MAX_LIBRARY_VERSION_STRING];
            CX_Get_library_version(v, sizeof v, NULL);
            if (cb_launcher_rank() == 0)
                printf("%s\n", v);
            return 0;
        }
    bench *B = calloc(1, sizeof *B);
    char err[512];
    /* PAP runs ask for MPI_THREAD_MULTIPLE, so collx can pick its progress
     * thread engine where the MPI provides it (as in the paper). */
    int want = MPI_THREAD_SINGLE, provided;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--pap"))
            want = MPI_THREAD_MULTIPLE;
    /* collx's progress thread for nonblocking calls needs it too */
    char progress[32];
    int given = 0;
    CX_Setting_get("COLLX_PROGRESS", progress, sizeof progress, &given);
    if (given && !strcmp(progress, "thread"))
        want = MPI_THREAD_MULTIPLE;
    MPI_Init_thread(&argc, &argv, want, &provided);
    MPI_Comm_dup(MPI_COMM_WORLD, &B->comm);
    B->world = MPI_COMM_NULL;
    MPI_Comm_set_errhandler(B->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(B->comm, &B->rank);
    MPI_Comm_size(B->comm, &B->p);
    cb_opts *o = &B->o;
    if (cb_opts_parse(argc, argv, o, err, sizeof err))
        return bad_usage(B, err, argv[0]);
    if (o->help) {
        if (B->rank == 0)
            cb_opts_usage(stdout, argv[0]);
        MPI_Finalize();
        return 0;
    }
    cb_coll coll = (cb_coll)cb_coll_from_name(o->coll);
    int gv = coll == CB_GATHERV || coll == CB_SCATTERV;
    cb_coll reg = coll == CB_GATHERV ? CB_GATHER : CB_SCATTER;
    if (resolve_algs(o->coll, o->algs, &o->nalgs, err, sizeof err) ||
        (o->guidelines && resolve_algs(cb_coll_name(reg), o->gather_algs,
                                       &o->ngather_algs, err, sizeof err)) ||
        (o->guidelines && o->ng2_algs &&
         resolve_algs(cb_coll_name(reg), o->g2_algs, &o->ng2_algs, err, sizeof err)))
        return bad_usage(B, err, argv[0]);
    if (o->comm_size > B->p) {
        snprintf(err, sizeof err, "--comm-size %d is more than the %d ranks started",
                 o->comm_size, B->p);
        return bad_usage(B, err, argv[0]);
    }
    int p = o->comm_size ? o->comm_size : B->p;
    if (o->root_mode == CB_ROOT_FIXED && o->root >= p) {
        snprintf(err, sizeof err, "--root %d is not a rank (p = %d)", o->root, p);
        return bad_usage(B, err, argv[0]);
    }
    int member = B->rank < p;
    if (o->shape_nodes && shape_comm(B, &member, err, sizeof err))
        return bad_usage(B, err, argv[0]);
    if ((o->shape_nodes || p < B->p) && sub_comm(B, member))
        return 0;   /* this rank was not in it */
#ifdef CB_SMPI
    B->shared = !o->validate;
#endif
    comm_nodes(B);
    cb_clock_init(B->comm);

    cb_meta *mt = &B->meta;
    if (o->shape_nodes)
        snprintf(mt->shape, sizeof mt->shape, "%dx%d", o->shape_nodes, o->shape_per);
    const char *plat = getenv("COLLX_PLATFORM");
    snprintf(mt->platform, sizeof mt->platform, "%s", plat && *plat ? plat : "real");
    mt->p = B->p;
    mt->warmup = o->warmup;
    mt->iters = o->iters;
    mt->max_delay_ms = o->pap ? o->max_delay * 1e3 : 0;
    mt->seed = o->seed;
    if (o->root_mode == CB_ROOT_ROTATE)
        strcpy(mt->root, "rotate");
    else
        snprintf(mt->root, sizeof mt->root, "%d", root_of(B, 0));

    B->a = malloc(sizeof(double) * (size_t)o->iters);
    B->f = malloc(sizeof(double) * (size_t)o->iters);
    B->c = calloc((size_t)o->iters, sizeof(double));
    if (B->rank == 0) {
        B->A = malloc(sizeof(double) * (size_t)o->iters * (size_t)B->p);
        B->F = malloc(sizeof(double) * (size_t)o->iters * (size_t)B->p);
        B->C = malloc(sizeof(double) * (size_t)o->iters * (size_t)B->p);
        double **x[] = {&B->rr, &B->ee, &B->tt, &B->xt, &B->xc, &B->xo};
        for (size_t i = 0; i < sizeof x / sizeof *x; i++)
            *x[i] = malloc(sizeof(double) * (size_t)o->iters);
    }

    /* the points of the sweep: (problem, b) or sizes (as MPI_INT counts) */
    int pm = o->nproblems > 0;
    long sizes[64];
    int nsizes = 0;
    if (!pm && o->nsize_list) {
        for (int i = 0; i < o->nsize_list; i++)
            sizes[nsizes++] = o->size_list[i];
    } else if (!pm) {
        for (long s = o->min_size; s <= o->max_size && nsizes < 64;
             s = s ? 2 * s : 1) {
            long c = (s + 3) / 4;
            if (!nsizes || c != (sizes[nsizes - 1] + 3) / 4)
                sizes[nsizes++] = s;
        }
    }
    int npoints = pm ? o->nproblems * o->nb : nsizes;
    if (o->guidelines && !o->ng2_algs) {
        memcpy(o->g2_algs, o->gather_algs, sizeof o->g2_algs);
        o->ng2_algs = o->ngather_algs;
    }
    int per = o->nalgs + (o->guidelines ? o->ngather_algs + o->ng2_algs : 0);
    B->ncases = npoints * per;
    if (B->rank == 0)
        cb_print_header(stdout, mt, o->coll, pm, o->full);

    int *m = malloc(sizeof(int) * (size_t)B->p);
    int *mp = malloc(sizeof(int) * (size_t)B->p);
    /* guideline verdicts compare t (Träff's metric) rows */
    cb_row regs[CB_MAX_LIST], vs[CB_MAX_LIST], g2s[CB_MAX_LIST], rows[NMETRIC];
    for (int pt = 0; pt < npoints; pt++) {
        cb_row proto;
        memset(&proto, 0, sizeof proto);
        proto.valid = -1;
        proto.host_s = -1;
        proto.first_us = -1;
        int regular = 1;
        if (pm) {
            cb_problem pr = (cb_problem)o->problems[pt / o->nb];
            proto.b = o->bs[pt % o->nb];
            proto.size_bytes = -1;
            snprintf(proto.problem, sizeof proto.problem, "%s", cb_problem_name(pr));
            proto.m = cb_problem_fill(pr, B->p, proto.b, o->seed, m);
            regular = pr == CB_PROBLEM_SAME;
        } else {
            long c = (sizes[pt] + 3) / 4;
            proto.size_bytes = 4 * c;
            proto.b = -1;
            for (int i = 0; i < B->p; i++)
                m[i] = (int)c;
            proto.m = (long long)c * B->p;
        }
        int mx = cb_problem_max(m, B->p);
        proto.m_pad = (long long)mx * B->p;
        if (o->guidelines) {
            for (int i = 0; i < B->p; i++)
                mp[i] = mx;
            for (int i = 0; i < o->ngather_algs; i++) {
                padded_case(B, &proto, reg, o->gather_algs[i], 0, mp, m[B->rank], rows);
                regs[i] = rows[M_T];
            }
            for (int i = 0; i < o->ng2_algs; i++) {
                padded_case(B, &proto, reg, o->g2_algs[i], 1, mp, m[B->rank], rows);
                g2s[i] = rows[M_T];
            }
        }
        for (int i = 0; i < o->nalgs; i++) {
            run_case(B, &proto, coll, o->algs[i], m, m[B->rank], 0,
                     pt == 0 && first_listed(o, i), rows);
            vs[i] = rows[M_T];
        }
        if (o->guidelines && gv)
            guidelines(B, o->ngather_algs, regs, o->nalgs, vs, o->ng2_algs,
                       g2s, regular);
    }
    if (B->rank == 0 && !o->quiet && isatty(2))
        fputc('\n', stderr);

    int rc = 0;
    if (B->rank == 0) {
        char cmd[2048] = "";
        for (int i = 0, off = 0; i < argc && off < (int)sizeof cmd; i++)
            off += snprintf(cmd + off, sizeof cmd - (size_t)off, "%s%s", i ? " " : "", argv[i]);
        if (B->live)
            fclose(B->live);
        if (o->csv[0] && cb_write_csv(o->csv, mt, &B->table)) {
            fprintf(stderr, "collbench: cannot write %s\n", o->csv);
            rc = 1;
        }
        if (o->json[0] && cb_write_json(o->json, mt, &B->table, cmd)) {
            fprintf(stderr, "collbench: cannot write %s\n", o->json);
            rc = 1;
        }
        for (int i = 0; i < B->table.n; i++)
            if (B->table.rows[i].valid == 0) {
                fprintf(stderr, "collbench: %s/%s gave a wrong result\n",
                        B->table.rows[i].coll, B->table.rows[i].alg);
                rc = 1;
                break;
            }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, B->comm);
    free(m);
    free(mp);
    MPI_Comm_free(&B->comm);
    if (B->world != MPI_COMM_NULL) {   /* release the ranks left out */
        MPI_Request req;
        MPI_Ibarrier(B->world, &req);   /* theirs is nonblocking too */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Comm_free(&B->world);
    }
    MPI_Finalize();
    return rc;
}
