/* Selection (src/core/select/select.c) and decisions (src/core/select/decide.c) without
 * MPI: the order explicit choice (CX_Algorithm_set) > COLLX_<COLL>_ALGORITHM
 * > COLLX_RULES > native; the rules' pick for a call through cx_select on a
 * communicator whose node layout is given (a cx_comm filled in by hand:
 * nodes_ready set, so nothing is collective), message sizes as the rules see
 * them; what runs when the algorithm asked for cannot serve a call (its
 * requirements, the fallback, the cache of decisions), what is counted and
 * said, per COLLX_FALLBACK and COLLX_VERBOSE. The few MPI calls on datatypes
 * and operations are answered by mpi_seam.c. Every case runs in a child of
 * its own: the environment is read once per process. */
#include <limits.h>
#include "unit.h"
#include "mpi_seam.h"
#include "persist/persist.h"

static char path[512];

/* A communicator of size ranks in nodes of ppn consecutive ranks (the last
 * one maybe short), this process rank r, node layout known. */
static cx_comm comm_of(int size, int ppn, int r)
{
    cx_comm c = {.rank = r, .size = size, .nodes_ready = 1, .node = MPI_COMM_NULL,
                 .leaders = MPI_COMM_NULL, .column = MPI_COMM_NULL, .priv = MPI_COMM_NULL};
    c.nnodes = (size + ppn - 1) / ppn;
    c.max_ranks_per_node = size < ppn ? size : ppn;
    c.min_ranks_per_node = size % ppn ? size % ppn : c.max_ranks_per_node;
    c.uniform = size % ppn == 0;
    c.consecutive = 1;
    return c;
}

/* What the selection cached on c (its room's state: select.c's classes). */
static void comm_free(cx_comm *c)
{
    cx_comm_release_rooms(c);
}

/* A call of coll by rank r: count elements of type on both sides, root 0. */
static cx_args call_of(cx_coll coll, int count, MPI_Datatype type, int r, int size)
{
    static char buf[1];
    cx_args a = {.coll = coll, .sbuf = buf, .scount = count, .stype = type, .rbuf = buf,
                 .rcount = count, .rtype = type, .op = MPI_OP_NULL, .root = 0,
                 .comm = MPI_COMM_NULL, .pcomm = MPI_COMM_NULL, .rank = r, .size = size};
    if (cx_coll_shape(coll) & CX_REDUCTION)
        a.op = MPI_SUM;
    return a;
}

/* The name of what cx_select picks for a ("-": NULL), its params in *params. */
static const char *selected(const cx_args *a, cx_comm *c, const cx_knob_params **params,
                            int *err)
{
    const cx_knob_params *p = NULL;
    const cx_algorithm *alg = cx_select(a, c, &p, err);
    if (params)
        *params = p;
    return alg ? alg->name : "-";
}

#define SELECTS(a, c, want)                                                    \
    do {                                                                       \
        int err_;                                                              \
        const char *got_ = selected(&(a), (c), NULL, &err_);                   \
        EXPECT(!strcmp(got_, want) && !err_, "%s of %lld bytes on %d ranks (rank %d): expected " \
               "%s, got %s (error %d)", cx_coll_name((a).coll), cx_rules_msg_size(&(a)), \
               (c)->size, (a).rank, want, got_, err_);                      \
    } while (0)

static const char *rules_file(const char *text)
{
    unit_file("rules.json", text, path, sizeof path);
    setenv("COLLX_RULES", path, 1);
    return path;
}

/* "native, <every algorithm of coll>" (CX_Algorithm_set's message). */
static const char *algorithm_list(const char *coll)
{
    static char buf[1024];
    int n = 0;
    buf[0] = '\0';
    for (int i = 0; i < CX_Algorithm_count(coll) && (size_t)n < sizeof buf; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%s", i ? ", " : "",
                      CX_Algorithm_name(coll, i));
    return buf;
}

static const char *const good_rules =
    "{\"rules\": [\n"
    "  {\"collective\": \"gather\", \"algorithm\": \"binomial\", \"msg_size\": {\"max\": 1024}},\n"
    "  {\"collective\": \"gather\", \"algorithm\": \"linear\", \"msg_size\": {\"min\": 1025}},\n"
    "  {\"collective\": \"gatherv\", \"algorithm\": \"tuw\", \"comm_size\": {\"min\": 3}},\n"
    "  {\"collective\": \"bcast\", \"algorithm\": \"linear\", \"ranks_per_node\": {\"max\": 2}},\n"
    "  {\"collective\": \"bcast\", \"algorithm\": \"binomial\"}\n"
    "]}\n";

/* ------------------------------------------------------------ selection */
static void defaults(void)
{
    int err = -1;
    capture_start();
    const cx_algorithm *g = cx_select_global(CX_COLL_BCAST, &err);
    EXPECT(g == cx_native(CX_COLL_BCAST) && err == MPI_SUCCESS, "bcast: native, no error");
    EXPECT_STR(CX_Algorithm_get("bcast"), "native");
    EXPECT_INT(cx_select_forced(CX_COLL_BCAST), 0);
    EXPECT_INT(cx_select_generation(), 1);   /* from 1: 0 is a decision never kept */
    cx_comm c = comm_of(4, 2, 0);
    cx_args a = call_of(CX_COLL_ALLREDUCE, 100, MPI_INT, 0, 4);
    SELECTS(a, &c, "native");
    EXPECT_STR(capture_text(), "");
    EXPECT(CX_Algorithm_get("broadcast") == NULL, "no collective \"broadcast\"");
}

static void environment(void)
{
    int err = -1;
    setenv("COLLX_BCAST_ALGORITHM", "binomial", 1);
    const cx_algorithm *g = cx_select_global(CX_COLL_BCAST, &err);
    EXPECT(g && !strcmp(g->name, "binomial") && !err, "bcast: binomial from the environment");
    EXPECT_STR(CX_Algorithm_get("bcast"), "binomial");
    EXPECT_INT(cx_select_forced(CX_COLL_BCAST), 1);
    EXPECT_INT(cx_select_forced(CX_COLL_GATHER), 0);
    EXPECT_STR(CX_Algorithm_get("gather"), "native");
}

static void environment_bad(void)
{
    int err = 0;
    char want[2048];
    setenv("COLLX_BCAST_ALGORITHM", "fastest", 1);
    capture_start();
    const cx_algorithm *g = cx_select_global(CX_COLL_BCAST, &err);
    EXPECT(!g && err == MPI_ERR_ARG, "bcast: no algorithm, MPI_ERR_ARG (got %s, %d)",
           g ? g->name : "NULL", err);
    EXPECT(CX_Algorithm_get("bcast") == NULL, "CX_Algorithm_get: NULL");
    EXPECT_INT(cx_select_forced(CX_COLL_BCAST), 1);
    snprintf(want, sizeof want, "collx: COLLX_BCAST_ALGORITHM=fastest is not a bcast algorithm; "
             "valid: %s; the calls that need it fail with MPI_ERR_ARG\n", algorithm_list("bcast"));
    EXPECT_STR(capture_text(), want);
    /* the other collectives are not concerned */
    EXPECT(cx_select_global(CX_COLL_GATHER, &err) == cx_native(CX_COLL_GATHER) && !err,
           "gather: native");
    /* an explicit choice comes first */
    EXPECT_INT(CX_Algorithm_set("bcast", "linear"), MPI_SUCCESS);
    g = cx_select_global(CX_COLL_BCAST, &err);
    EXPECT(g && !strcmp(g->name, "linear") && !err, "CX_Algorithm_set: linear, no error");
}

static void explicit_choice(void)
{
    int err = -1;
    char want[2048];
    setenv("COLLX_BCAST_ALGORITHM", "binomial", 1);
    capture_start();
    EXPECT_INT(CX_Algorithm_set("bcast", "linear"), MPI_SUCCESS);
    EXPECT_INT(cx_select_generation(), 2);
    EXPECT_STR(CX_Algorithm_get("bcast"), "linear");
    EXPECT_INT(cx_select_forced(CX_COLL_BCAST), 1);
    EXPECT_INT(CX_Algorithm_set("bcast", "native"), MPI_SUCCESS);
    EXPECT_STR(CX_Algorithm_get("bcast"), "native");
    EXPECT_INT(CX_Algorithm_set("bcast", NULL), MPI_SUCCESS);     /* back to the environment */
    EXPECT_STR(CX_Algorithm_get("bcast"), "binomial");
    EXPECT_INT(CX_Algorithm_set("bcast", "linear"), MPI_SUCCESS);
    EXPECT_INT(CX_Algorithm_set("bcast", ""), MPI_SUCCESS);
    EXPECT_STR(CX_Algorithm_get("bcast"), "binomial");
    EXPECT_INT(cx_select_generation(), 6);
    EXPECT_STR(capture_text(), "");
    /* what cannot be set: said, nothing changes */
    EXPECT_INT(CX_Algorithm_set("bcastt", "linear"), MPI_ERR_ARG);
    int n = snprintf(want, sizeof want, "collx: unknown collective 'bcastt'; valid: ");
    for (int i = 0; i < CX_COLL_COUNT; i++)
        n += snprintf(want + n, sizeof want - (size_t)n, "%s%s", i ? ", " : "",
                      CX_Collective_name(i));
    snprintf(want + n, sizeof want - (size_t)n, "\n");
    EXPECT_STR(capture_text(), want);
    capture_clear();
    EXPECT_INT(CX_Algorithm_set("bcast", "tuw"), MPI_ERR_ARG);
    snprintf(want, sizeof want, "collx: 'tuw' is not a bcast algorithm; valid: %s\n",
             algorithm_list("bcast"));
    EXPECT_STR(capture_text(), want);
    capture_clear();   /* "an" before a vowel (issue 62) */
    EXPECT_INT(CX_Algorithm_set("allreduce", "nosuch"), MPI_ERR_ARG);
    snprintf(want, sizeof want, "collx: 'nosuch' is not an allreduce algorithm; valid: %s\n",
             algorithm_list("allreduce"));
    EXPECT_STR(capture_text(), want);
    EXPECT_INT(cx_select_generation(), 6);
    EXPECT_STR(CX_Algorithm_get("bcast"), "binomial");
    (void)err;
}

/* The rules pick per call; explicit choices and the environment come
 * first. */
static void rules(void)
{
    int err = -1;
    rules_file(good_rules);
    capture_start();
    EXPECT(cx_select_global(CX_COLL_GATHER, &err) == NULL && !err,
           "gather: no global choice (the rules pick per call)");
    EXPECT(cx_select_global(CX_COLL_ALLREDUCE, &err) == cx_native(CX_COLL_ALLREDUCE) && !err,
           "allreduce: native (no rule)");
    EXPECT_STR(CX_Algorithm_get("gather"), "native");
    EXPECT_INT(cx_select_forced(CX_COLL_GATHER), 0);
    cx_comm c = comm_of(4, 2, 1), big = comm_of(8, 4, 1), two = comm_of(2, 1, 1);
    /* msg_size: a rank's block (not the root's: all of them) */
    cx_args a = call_of(CX_COLL_GATHER, 256, MPI_INT, 1, 4);
    SELECTS(a, &c, "binomial");
    a.scount = 257;
    SELECTS(a, &c, "linear");
    a.scount = 0;
    SELECTS(a, &c, "binomial");
    a = call_of(CX_COLL_GATHER, 1025, MPI_BYTE, 0, 4);   /* the root */
    SELECTS(a, &c, "linear");
    a.sbuf = MPI_IN_PLACE;
    a.rcount = 1024;
    SELECTS(a, &c, "binomial");
    /* comm_size; below every range, the nearest rule */
    a = call_of(CX_COLL_GATHERV, 10, MPI_INT, 1, 2);
    SELECTS(a, &two, "tuw");
    a.size = 4;
    SELECTS(a, &c, "tuw");
    /* ranks_per_node: the largest node of the communicator */
    a = call_of(CX_COLL_BCAST, 3, MPI_INT, 1, 4);
    SELECTS(a, &c, "linear");
    a.size = 8;
    SELECTS(a, &big, "binomial");
    EXPECT_STR(capture_text(), "");
    comm_free(&c);
    comm_free(&big);
    comm_free(&two);
}

static void rules_after_environment(void)
{
    int err = -1;
    rules_file(good_rules);
    setenv("COLLX_GATHER_ALGORITHM", "linear_sync", 1);
    cx_comm c = comm_of(4, 2, 1);
    cx_args a = call_of(CX_COLL_GATHER, 256, MPI_INT, 1, 4);
    SELECTS(a, &c, "linear_sync");
    a.scount = 2000;
    SELECTS(a, &c, "linear_sync");
    EXPECT_INT(CX_Algorithm_set("gather", "tuw"), MPI_SUCCESS);
    SELECTS(a, &c, "tuw");
    EXPECT_INT(CX_Algorithm_set("gather", NULL), MPI_SUCCESS);
    SELECTS(a, &c, "linear_sync");
    a = call_of(CX_COLL_BCAST, 3, MPI_INT, 1, 4);   /* bcast: still the rules' */
    SELECTS(a, &c, "linear");
    EXPECT(cx_select_global(CX_COLL_BCAST, &err) == NULL && !err, "bcast: the rules decide");
    comm_free(&c);
}

/* Classes of sizes looked up in any order (from the last call's class or by
 * bisection): tests/contract/rules/overlap.json at every edge. */
static void rules_any_order(void)
{
    rules_file("{\"rules\": [\n"
               "  {\"collective\": \"gather\", \"algorithm\": \"binomial\", \"msg_size\": "
               "{\"min\": 100, \"max\": 200}},\n"
               "  {\"collective\": \"gather\", \"algorithm\": \"linear\", \"msg_size\": {\"min\": "
               "150, \"max\": 400}},\n"
               "  {\"collective\": \"gather\", \"algorithm\": \"linear_sync\", \"msg_size\": "
               "{\"max\": 50}},\n"
               "  {\"collective\": \"gather\", \"algorithm\": \"binomial\", \"msg_size\": "
               "{\"min\": 300, \"max\": 1000}},\n"
               "  {\"collective\": \"gather\", \"algorithm\": \"native\"}\n"
               "]}\n");
    static const struct { int ints; const char *alg; } want[] = {
        {0, "linear_sync"}, {12, "linear_sync"}, {13, "native"}, {24, "native"},
        {25, "binomial"}, {50, "binomial"}, {51, "linear"}, {100, "linear"},
        {101, "binomial"}, {250, "binomial"}, {251, "native"}, {100000, "native"}};
    int n = (int)(sizeof want / sizeof *want);
    cx_comm c = comm_of(3, 3, 1);
    for (int pass = 0; pass < 3; pass++)
        for (int j = 0; j < n; j++) {
            int i = pass == 0 ? j : pass == 1 ? n - 1 - j : (j * 5) % n;
            cx_args a = call_of(CX_COLL_GATHER, want[i].ints, MPI_INT, 1, 3);
            SELECTS(a, &c, want[i].alg);
            a = call_of(CX_COLL_GATHER, want[i].ints, MPI_INT, 1, 3);   /* the same again */
            SELECTS(a, &c, want[i].alg);
        }
    EXPECT_INT(cx_select_of(&c)->sel[CX_COLL_GATHER].n, 6);
    comm_free(&c);
}

static void rules_params_candidates(void)
{
    int err;
    const cx_knob_params *p = NULL;
    char text[256];
    rules_file("{\"rules\": [\n"
               "  {\"collective\": \"allgather\", \"algorithm\": \"hier\", \"msg_size\": {\"max\": "
               "64},\n"
               "   \"params\": {\"COLLX_HIER_INTER\": \"bruck\"}},\n"
               "  {\"collective\": \"allgather\", \"algorithm\": \"hier_ms\",\n"
               "   \"params\": {\"COLLX_HIER_SENDERS\": 2}},\n"
               "  {\"collective\": \"allreduce\", \"algorithm\": \"rabenseifner\",\n"
               "   \"candidates\": [\"recursive_doubling\"]}\n"
               "]}\n");
    cx_comm c = comm_of(4, 2, 1);
    cx_args a = call_of(CX_COLL_ALLGATHER, 16, MPI_INT, 1, 4);
    EXPECT_STR(selected(&a, &c, &p, &err), "hier");
    cx_knob_params_text(p, text, sizeof text);
    EXPECT_STR(text, "COLLX_HIER_INTER=bruck");
    EXPECT(p && p->rule == 0, "rules[0]'s params");
    EXPECT(cx_select_candidates(&a, &c) == NULL, "allgather: no candidates");
    a.scount = 17;
    EXPECT_STR(selected(&a, &c, &p, &err), "hier_ms");
    EXPECT_INT(cx_knob_call_int(p, CX_KNOB_HIER_SENDERS), 2);
    a = call_of(CX_COLL_ALLREDUCE, 16, MPI_INT, 1, 4);
    const cx_algorithm *const *cands = cx_select_candidates(&a, &c);
    EXPECT(cands && cands[0] && !strcmp(cands[0]->name, "recursive_doubling") && !cands[1],
           "allreduce: candidates recursive_doubling");
    EXPECT_STR(selected(&a, &c, &p, &err), "rabenseifner");
    EXPECT(p == NULL, "no params");
    /* an explicit choice: no candidates (online tuning leaves it alone) */
    EXPECT_INT(CX_Algorithm_set("allreduce", "reduce_bcast"), MPI_SUCCESS);
    EXPECT(cx_select_candidates(&a, &c) == NULL, "an explicit choice: no candidates");
    comm_free(&c);
}

/* Calls beyond the rules' ranges: the nearest rule (or native) picks,
 * worked out once per communicator and collective; each is shown to the
 * watcher (COLLX_STATS), and COLLX_VERBOSE=1 says the first once per
 * (collective, communicator size), from rank 0. */
static const char *const beyond_rules =
    "{\"rules\": [\n"
    "  {\"collective\": \"allreduce\", \"algorithm\": \"recursive_doubling\",\n"
    "   \"comm_size\": {\"min\": 2, \"max\": 16}, \"ranks_per_node\": {\"max\": 8}},\n"
    "  {\"collective\": \"allreduce\", \"algorithm\": \"rabenseifner\",\n"
    "   \"comm_size\": {\"min\": 17, \"max\": 48}, \"ranks_per_node\": {\"max\": 8},\n"
    "   \"msg_size\": {\"max\": 65536}},\n"
    "  {\"collective\": \"bcast\", \"algorithm\": \"binomial\", \"comm_size\": {\"max\": 8},\n"
    "   \"msg_size\": {\"max\": 1024}},\n"
    "  {\"collective\": \"bcast\", \"algorithm\": \"linear\", \"comm_size\": {\"max\": 8},\n"
    "   \"msg_size\": {\"min\": 1048576}}\n"
    "]}\n";

static int watched[8], watched_native;

static void watch(const cx_args *a, int rule, const cx_algorithm *alg)
{
    (void)a;
    if (rule >= 0 && rule < 8)
        watched[rule]++;
    watched_native += !strcmp(alg->name, "native");
}

static void rules_beyond(void)
{
    setenv("COLLX_VERBOSE", "1", 1);
    rules_file(beyond_rules);
    cx_rules_watch_beyond(watch);
    cx_comm c = comm_of(64, 8, 0), c2 = comm_of(64, 8, 0), fat = comm_of(32, 16, 0);
    cx_comm small = comm_of(4, 2, 0), other = comm_of(100, 8, 1);
    capture_start();
    cx_args a = call_of(CX_COLL_ALLREDUCE, 1000, MPI_DOUBLE, 0, 64);
    SELECTS(a, &c, "rabenseifner");
    const cx_rules_class *classes = cx_select_of(&c)->sel[CX_COLL_ALLREDUCE].classes;
    SELECTS(a, &c, "rabenseifner");
    SELECTS(a, &c2, "rabenseifner");   /* another communicator of 64: not said again */
    a.rcount = a.scount = 100000;      /* 800000 B: beyond rules[1]'s sizes too */
    SELECTS(a, &c, "rabenseifner");
    EXPECT(cx_select_of(&c)->sel[CX_COLL_ALLREDUCE].classes == classes,
           "the classes are worked out once per communicator");
    a = call_of(CX_COLL_ALLREDUCE, 1000, MPI_DOUBLE, 0, 32);
    SELECTS(a, &fat, "native");        /* 16 per node: no rule fits */
    a = call_of(CX_COLL_BCAST, 1000, MPI_INT, 0, 4);
    SELECTS(a, &small, "binomial");    /* 4000 B: nearer 1024 than 1048576 */
    a.rcount = 10000;
    SELECTS(a, &small, "linear");      /* 40000 B: nearer 1048576 (32768^2 = both) */
    a.rcount = 256;
    SELECTS(a, &small, "binomial");    /* held: not beyond */
    a = call_of(CX_COLL_ALLREDUCE, 1, MPI_INT, 1, 100);
    SELECTS(a, &other, "rabenseifner");   /* rank 1: says nothing */
    EXPECT_STR(capture_text(),
               "collx: MPI_Allreduce p=64 (8 per node) is beyond the rules' communicator sizes "
               "(2..48): rules[1] (the nearest, p=48) picks rabenseifner for 8000 B\n"
               "collx: MPI_Allreduce p=32 (16 per node) is beyond the rules' ranks per node "
               "(0..8): native runs (no rule for its ranks per node)\n"
               "collx: MPI_Bcast p=4 (2 per node) with 4000 B is beyond the rules' message "
               "sizes at p=4 (0..1024, 1048576..): rules[2] (the nearest, 1024 B) picks "
               "binomial for 4000 B\n");
    EXPECT(watched[1] == 5 && watched[2] == 1 && watched[3] == 1 && watched[0] == 0 &&
           watched_native == 1, "watched: rules[1] %d, rules[2] %d, rules[3] %d, rules[0] %d, "
           "native %d (want 5, 1, 1, 0, 1)", watched[1], watched[2], watched[3], watched[0],
           watched_native);
    comm_free(&c);
    comm_free(&c2);
    comm_free(&fat);
    comm_free(&small);
    comm_free(&other);
}

/* "beyond": "native": said so. */
static void rules_beyond_native(void)
{
    setenv("COLLX_VERBOSE", "1", 1);
    char text[2048];
    snprintf(text, sizeof text, "{\"beyond\": \"native\", %s", beyond_rules + 1);
    rules_file(text);
    cx_comm c = comm_of(64, 8, 0);
    capture_start();
    cx_args a = call_of(CX_COLL_ALLREDUCE, 1000, MPI_DOUBLE, 0, 64);
    SELECTS(a, &c, "native");
    EXPECT_STR(capture_text(), "collx: MPI_Allreduce p=64 (8 per node) is beyond the rules' "
               "communicator sizes (2..48): native runs (\"beyond\": \"native\")\n");
    comm_free(&c);
}

/* A file that is not used: every call as without it. */
static void rules_not_used(void)
{
    int err = -1;
    rules_file("{\"version\": 2, \"rules\": [{\"collective\": \"bcast\", "
               "\"algorithm\": \"binomial\"}]}");
    capture_start();
    cx_comm c = comm_of(4, 2, 1);
    cx_args a = call_of(CX_COLL_BCAST, 3, MPI_INT, 1, 4);
    SELECTS(a, &c, "native");
    EXPECT(cx_select_global(CX_COLL_BCAST, &err) == cx_native(CX_COLL_BCAST) && !err,
           "bcast: native");
    EXPECT_HAS(capture_text(), "the file is not used");
    comm_free(&c);
}

/* The size a rules file looks at, per shape of call. */
static void msg_size(void)
{
    cx_args a = call_of(CX_COLL_BCAST, 10, MPI_DOUBLE, 1, 4);
    EXPECT_INT(cx_rules_msg_size(&a), 80);                    /* the buffer */
    a = call_of(CX_COLL_GATHER, 10, MPI_INT, 1, 4);
    a.rcount = 999;
    EXPECT_INT(cx_rules_msg_size(&a), 40);                    /* a rank's block */
    a.rank = 0;
    EXPECT_INT(cx_rules_msg_size(&a), 40);                    /* the root's own */
    a.sbuf = MPI_IN_PLACE;
    EXPECT_INT(cx_rules_msg_size(&a), 999 * 4);               /* in place: its block */
    a = call_of(CX_COLL_SCATTER, 10, MPI_INT, 1, 4);
    a.scount = 999;
    EXPECT_INT(cx_rules_msg_size(&a), 40);                    /* a leaf: what it gets */
    a.rank = 0;
    EXPECT_INT(cx_rules_msg_size(&a), 999 * 4);               /* the root: a block sent */
    a = call_of(CX_COLL_ALLREDUCE, 7, MPI_DOUBLE, 1, 4);
    EXPECT_INT(cx_rules_msg_size(&a), 56);                    /* the vector */
    a = call_of(CX_COLL_ALLTOALL, 3, MPI_CHAR, 1, 4);
    EXPECT_INT(cx_rules_msg_size(&a), 3);                     /* one block */
    a = call_of(CX_COLL_REDUCE_SCATTER_BLOCK, 5, MPI_INT, 1, 4);
    EXPECT_INT(cx_rules_msg_size(&a), 20);
    int counts[4] = {1, 2, 3, 7};   /* given to every rank: the mean block */
    a = call_of(CX_COLL_ALLGATHERV, 5, MPI_INT, 1, 4);
    a.rcounts = counts;
    EXPECT_INT(cx_rules_msg_size(&a), 13 * 4 / 4);
    a = call_of(CX_COLL_REDUCE_SCATTER, 5, MPI_DOUBLE, 1, 4);
    a.rcounts = counts;
    EXPECT_INT(cx_rules_msg_size(&a), 13 * 8 / 4);
}

/* ------------------------------------------------------------ decisions */
static const cx_algorithm *alg(cx_coll c, const char *name)
{
    const cx_algorithm *a = cx_algorithm_find(c, name);
    EXPECT(a != NULL, "no %s algorithm \"%s\"", cx_coll_name(c), name);
    return a;
}

/* cx_decide_serves and the decision it caches: what runs and why. */
static void decide_expect_at(const cx_args *a, cx_comm *c, const char *asked, const char *runs,
                          const char *why, unsigned unmet, int cached)
{
    int err = -1;
    const cx_algorithm *want = alg(a->coll, asked);
    if (!want)
        return;
    int serves = cx_decide_serves(a, c, want, NULL, &err);
    const cx_decision_cache *k = &cx_select_of(c)->decided[a->coll];
    EXPECT(!err, "%s %s: no error (got %d)", cx_coll_name(a->coll), asked, err);
    EXPECT(serves == !why, "%s %s: serves %d, expected %d", cx_coll_name(a->coll), asked,
           serves, !why);
    EXPECT(k->d.asked == want && k->d.alg && !strcmp(k->d.alg->name, runs),
           "%s %s: %s runs, expected %s", cx_coll_name(a->coll), asked,
           k->d.alg ? k->d.alg->name : "nothing", runs);
    EXPECT(why ? k->d.why && !strcmp(k->d.why, why) : !k->d.why,
           "%s %s: why \"%s\", expected \"%s\"", cx_coll_name(a->coll), asked,
           k->d.why ? k->d.why : "(none)", why ? why : "(none)");
    EXPECT(k->d.unmet == unmet, "%s %s: requirement missed %#x, expected %#x",
           cx_coll_name(a->coll), asked, k->d.unmet, unmet);
    EXPECT(k->valid == cached, "%s %s: cached %d, expected %d", cx_coll_name(a->coll), asked,
           k->valid, cached);
}
#define decide_expect(...) UNIT_AT(decide_expect_at(__VA_ARGS__))

static void decide_requirements(void)
{
    cx_comm c = comm_of(4, 2, 1);
    capture_start();
    /* no requirement */
    cx_args a = call_of(CX_COLL_ALLREDUCE, 100, MPI_INT, 1, 4);
    decide_expect(&a, &c, "recursive_doubling", "recursive_doubling", NULL, 0, 1);
    /* a commutative operation: else its fallback */
    decide_expect(&a, &c, "rabenseifner", "rabenseifner", NULL, 0, 1);
    a.op = UNIT_NONCOMMUTATIVE_OP;
    decide_expect(&a, &c, "rabenseifner", "recursive_doubling", "needs a commutative operation",
                  CX_REQ_COMMUTATIVE, 1);
    a.op = MPI_SUM;   /* the cache is keyed by what the operation does, not its handle */
    decide_expect(&a, &c, "rabenseifner", "rabenseifner", NULL, 0, 1);
    /* blocking calls only; no MPI_THREAD_MULTIPLE (rma_*: a per-call check, never cached) */
    a = call_of(CX_COLL_BCAST, 100, MPI_INT, 1, 4);
    a.nonblocking = 1;
    decide_expect(&a, &c, "rma_linear", "linear", "serves blocking calls only", CX_REQ_BLOCKING,
                  0);
    decide_expect(&a, &c, "rma_binomial", "binomial", "serves blocking calls only",
                  CX_REQ_BLOCKING, 0);
    a.nonblocking = 0;
    c.thread_multiple = 1;
    decide_expect(&a, &c, "rma_linear", "linear", "does not run under MPI_THREAD_MULTIPLE yet",
                  CX_REQ_NO_THREAD_MULTIPLE, 0);
    c.thread_multiple = 0;
    /* consecutive ranks on every node */
    a = call_of(CX_COLL_SCAN, 100, MPI_INT, 1, 4);
    c.consecutive = 0;
    decide_expect(&a, &c, "hier", "native", "needs the ranks of every node to be consecutive",
                  CX_REQ_CONSECUTIVE, 0);
    /* a non-commutative reduction keeps its order only on consecutive ranks */
    a = call_of(CX_COLL_REDUCE, 100, MPI_INT, 1, 4);
    a.op = UNIT_NONCOMMUTATIVE_OP;
    decide_expect(&a, &c, "hier", "native", "keeps the canonical order of a non-commutative "
                  "operation only when every node's ranks are consecutive", CX_REQ_ORDER_KEPT, 0);
    c.consecutive = 1;
    /* native serves everything */
    decide_expect(&a, &c, "native", "native", NULL, 0, 1);
    EXPECT_STR(capture_text(), "");   /* cx_decide_serves says nothing */
    EXPECT_INT(CX_Algorithm_fallbacks("allreduce", "rabenseifner"), 0);   /* nor counts */
    comm_free(&c);
}

/* Node memory within COLLX_SHM_MAX (hier gather: p blocks, in bands of
 * local ranks above half the cap). */
static void decide_shm(void)
{
    setenv("COLLX_SHM_MAX", "1K", 1);
    cx_comm c = comm_of(4, 2, 1);
    cx_args a = call_of(CX_COLL_GATHER, 4, MPI_INT, 1, 4);   /* 4 x 16 B */
    a.cc = &c;
    /* kept, asked again per call whether the segment fits */
    decide_expect(&a, &c, "hier", "hier", NULL, 0, 1);
    EXPECT_INT(cx_select_of(&c)->decided[CX_COLL_GATHER].shm, 1);
    a.scount = 256;   /* 2 nodes x 1 KiB, two halves: 4 KiB: the kept decision does not do */
    decide_expect(&a, &c, "hier", "native", "needs 4096 bytes of node-shared memory, above "
                  "COLLX_SHM_MAX=1024", CX_REQ_SHM, 0);
    a.scount = 4;
    decide_expect(&a, &c, "hier", "hier", NULL, 0, 1);
    comm_free(&c);
}

/* cx_decide: what falls back is counted, and said as COLLX_FALLBACK and
 * COLLX_VERBOSE say (rank 0, once per collective unless verbose 2). */
static int decide_call(cx_args *a, cx_comm *c, const char *asked, const char *runs)
{
    cx_decision d;
    int steady;
    int rc = cx_decide(a, c, alg(a->coll, asked), NULL, &d, &steady);
    EXPECT(d.alg && !strcmp(d.alg->name, runs), "cx_decide %s: %s runs, expected %s", asked,
           d.alg ? d.alg->name : "nothing", runs);
    return rc;
}

static const char *const said_fallback =
    "collx: MPI_Allreduce: rabenseifner needs a commutative operation; running "
    "recursive_doubling\n";

static void fallback_silent(void)
{
    cx_comm c = comm_of(4, 2, 0);
    cx_args a = call_of(CX_COLL_ALLREDUCE, 100, MPI_INT, 0, 4);
    a.op = UNIT_NONCOMMUTATIVE_OP;
    capture_start();
    EXPECT_INT(decide_call(&a, &c, "rabenseifner", "recursive_doubling"), MPI_SUCCESS);
    EXPECT_INT(decide_call(&a, &c, "rabenseifner", "recursive_doubling"), MPI_SUCCESS);
    EXPECT_STR(capture_text(), "");
    EXPECT_INT(CX_Algorithm_fallbacks("allreduce", "rabenseifner"), 2);
    a.op = MPI_SUM;
    EXPECT_INT(decide_call(&a, &c, "rabenseifner", "rabenseifner"), MPI_SUCCESS);
    EXPECT_INT(CX_Algorithm_fallbacks("allreduce", "rabenseifner"), 2);
    comm_free(&c);
}

static void fallback_print(void)
{
    setenv("COLLX_FALLBACK", "print", 1);
    cx_comm c = comm_of(4, 2, 0);
    cx_args a = call_of(CX_COLL_ALLREDUCE, 100, MPI_INT, 0, 4);
    a.op = UNIT_NONCOMMUTATIVE_OP;
    capture_start();
    EXPECT_INT(decide_call(&a, &c, "rabenseifner", "recursive_doubling"), MPI_SUCCESS);
    EXPECT_INT(decide_call(&a, &c, "rabenseifner", "recursive_doubling"), MPI_SUCCESS);
    EXPECT_STR(capture_text(), said_fallback);   /* once */
    EXPECT_INT(CX_Algorithm_fallbacks("allreduce", "rabenseifner"), 2);
    /* other ranks say nothing */
    cx_comm c1 = comm_of(4, 2, 1);
    cx_args b = call_of(CX_COLL_BCAST, 100, MPI_INT, 1, 4);
    b.nonblocking = 1;
    capture_clear();
    EXPECT_INT(decide_call(&b, &c1, "rma_linear", "linear"), MPI_SUCCESS);
    EXPECT_STR(capture_text(), "");
    comm_free(&c);
    comm_free(&c1);
}

static void fallback_verbose(void)
{
    setenv("COLLX_VERBOSE", "2", 1);
    cx_comm c = comm_of(4, 2, 0);
    cx_args a = call_of(CX_COLL_ALLREDUCE, 100, MPI_INT, 0, 4);
    a.op = UNIT_NONCOMMUTATIVE_OP;
    capture_start();
    decide_call(&a, &c, "rabenseifner", "recursive_doubling");
    decide_call(&a, &c, "rabenseifner", "recursive_doubling");
    char want[512];
    snprintf(want, sizeof want, "%s%s", said_fallback, said_fallback);   /* every call */
    EXPECT_STR(capture_text(), want);
    comm_free(&c);
}

static void fallback_error(void)
{
    setenv("COLLX_FALLBACK", "error", 1);
    cx_comm c = comm_of(4, 2, 0);
    cx_args a = call_of(CX_COLL_ALLREDUCE, 100, MPI_INT, 0, 4);
    a.op = UNIT_NONCOMMUTATIVE_OP;
    capture_start();
    /* an MPI that cannot add error codes: the class */
    EXPECT_INT(decide_call(&a, &c, "rabenseifner", "recursive_doubling"),
               MPI_ERR_UNSUPPORTED_OPERATION);
    EXPECT_STR(capture_text(), "collx: MPI_Allreduce: rabenseifner needs a commutative "
               "operation; COLLX_FALLBACK=error, else would run recursive_doubling\n");
    a.op = MPI_SUM;
    EXPECT_INT(decide_call(&a, &c, "rabenseifner", "rabenseifner"), MPI_SUCCESS);
    comm_free(&c);
}

int main(void)
{
    unit_begin("unit_select");
    unit_run("select.defaults", defaults, 1);
    unit_run("select.environment", environment, 1);
    unit_run("select.environment_bad", environment_bad, 1);
    unit_run("select.explicit", explicit_choice, 1);
    unit_run("select.rules", rules, 1);
    unit_run("select.rules_after_environment", rules_after_environment, 1);
    unit_run("select.rules_any_order", rules_any_order, 1);
    unit_run("select.rules_params_candidates", rules_params_candidates, 1);
    unit_run("select.rules_beyond", rules_beyond, 1);
    unit_run("select.rules_beyond_native", rules_beyond_native, 1);
    unit_run("select.rules_not_used", rules_not_used, 1);
    unit_run("select.msg_size", msg_size, 1);
    unit_run("decide.requirements", decide_requirements, 1);
    unit_run("decide.shm", decide_shm, 1);
    unit_run("decide.fallback_silent", fallback_silent, 1);
    unit_run("decide.fallback_print", fallback_print, 1);
    unit_run("decide.fallback_verbose", fallback_verbose, 1);
    unit_run("decide.fallback_error", fallback_error, 1);
    return unit_end();
}
