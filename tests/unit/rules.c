/* The rules file (src/core/select/rules.c) without MPI. rules.c reads COLLX_RULES
 * once per process, so every case runs in a child of its own (fork) with
 * its own file. Checked: what a file picks for (collective, comm_size,
 * msg_size, ranks_per_node) through the functions select.c uses
 * (cx_rules_prune, then cx_rules_classes: the picks per class of message
 * sizes); params and candidates; a rule that cannot be used is dropped and
 * the others serve; a file that cannot be used is "not used"
 * (cx_rules_broken); the banner text (cx_rules_describe) and the messages
 * (stderr: without MPI_Init every process speaks, as rank 0 would). */
#include <limits.h>
#include "collx_tools.h"
#include "unit.h"
#include "persist/persist.h"
#include "select/rules.h"

static char path[512];   /* the case's rules file */

/* Writes text as the case's rules file, points COLLX_RULES at it and loads
 * it; returns what collx said meanwhile. */
static const char *load(const char *text)
{
    unit_file("rules.json", text, path, sizeof path);
    setenv("COLLX_RULES", path, 1);
    capture_start();
    (void)cx_rules_broken();
    return capture_text();
}

/* The class of the last pick (its rule, whether beyond the rules). */
static cx_rules_class picked;
/* The rules pick() asks: the file's, or a built-in set. */
static const cx_rule_set *under;

/* The algorithm the rules pick for a call (what select.c computes): the
 * name, "-" when no rule picks (the call runs native); the rule's params
 * and candidates into *params, *cands when given, the class into picked.
 * Checks that the classes cover every size, in order, without a gap. */
static const char *pick(cx_coll c, int comm_size, int ppn, long long msg,
                        const cx_knob_params **params, const cx_algorithm *const **cands)
{
    static char name[64];
    cx_rules_class *cl = NULL;
    int beyond = -1;
    const cx_rule_set *set = under ? under : cx_rules_file();
    int *pruned = cx_rules_prune(set, c, comm_size, ppn, &beyond);
    int n = pruned ? cx_rules_classes(set, pruned, beyond, &cl) : -1;
    free(pruned);
    memset(&picked, 0, sizeof picked);
    EXPECT(n >= 1, "%s: classes of sizes (got %d)", cx_coll_name(c), n);
    snprintf(name, sizeof name, "?");
    for (int i = 0; i < n; i++) {
        EXPECT(cl[i].lo <= cl[i].hi, "class %d: lo <= hi", i);
        EXPECT(i ? cl[i].lo == cl[i - 1].hi + 1 : cl[i].lo == 0, "class %d starts where %s",
               i, i ? "the one before ends" : "sizes start (0)");
        EXPECT(i < n - 1 || cl[i].hi == LLONG_MAX, "the last class ends at LLONG_MAX");
        EXPECT(!i || cl[i].alg != cl[i - 1].alg || cl[i].rule != cl[i - 1].rule ||
               cl[i].beyond != cl[i - 1].beyond, "class %d: not the same pick as the one "
               "before (merged)", i);
        EXPECT(!beyond || cl[i].beyond, "class %d: beyond the rules' communicator sizes", i);
        EXPECT((cl[i].rule < 0) == !cl[i].alg, "class %d: a rule, or native", i);
        if (msg >= cl[i].lo && msg <= cl[i].hi) {
            picked = cl[i];
            snprintf(name, sizeof name, "%s", cl[i].alg ? cl[i].alg->name : "-");
            if (params)
                *params = cl[i].params;
            if (cands)
                *cands = cl[i].candidates;
        }
    }
    free(cl);
    return name;
}

#define PICKS(c, size, ppn, msg, want)                                         \
    do {                                                                       \
        const char *got_ = pick(c, size, ppn, msg, NULL, NULL);                \
        EXPECT(!strcmp(got_, want), "%s comm_size %d, ranks_per_node %d, msg_size %lld: " \
               "expected %s, got %s", cx_coll_name(c), size, ppn, (long long)(msg), want, got_); \
    } while (0)

/* The registry's algorithms of coll, space-separated (rules.c's "valid:"). */
static const char *valid(const char *coll)
{
    static char buf[1024];
    int n = 0;
    buf[0] = '\0';
    for (int i = 0; i < CX_Algorithm_count(coll) && (size_t)n < sizeof buf; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " %s", CX_Algorithm_name(coll, i));
    return buf;
}

/* The per-call knobs, as rules.c lists them. */
static const char *per_call_names(void)
{
    static char buf[1024];
    int n = 0;
    buf[0] = '\0';
    for (int k = 0; k < CX_KNOB_COUNT && (size_t)n < sizeof buf; k++)
        if (cx_knob_decls[k].per_call)
            n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%s", n ? ", " : "",
                          cx_knob_decls[k].name);
    return buf;
}

static const char *describe(void)
{
    static char buf[512];
    cx_rules_describe(buf, sizeof buf);
    return buf;
}

/* The message of a file that is not used, for why. */
static void not_used_at(const char *said, const char *why)
{
    char want[2048];
    snprintf(want, sizeof want, "collx: COLLX_RULES=%s: %s; the file is not used: every call "
             "runs as without it (collx rules check %s says what is wrong)\n", path, why, path);
    EXPECT_STR(said, want);
    EXPECT_INT(cx_rules_broken(), 1);
    EXPECT_STR(describe(), "not used: see above");
    EXPECT_INT(cx_rules_mention(CX_COLL_BCAST), 0);
    EXPECT_INT(cx_rules_need_nodes(), 0);
    PICKS(CX_COLL_BCAST, 4, 2, 0, "-");
}
#define not_used(...) UNIT_AT(not_used_at(__VA_ARGS__))

/* ------------------------------------------------------------ good files */
static void no_file(void)
{
    capture_start();
    EXPECT_INT(cx_rules_broken(), 0);
    EXPECT_STR(capture_text(), "");
    EXPECT_STR(describe(), "0 rules; the nearest rule beyond their ranges");
    EXPECT_INT(cx_rules_mention(CX_COLL_BCAST), 0);
    EXPECT_INT(cx_rules_need_nodes(), 0);
    PICKS(CX_COLL_BCAST, 4, 0, 100, "-");
}

/* tests/contract/rules/good.json */
static void good(void)
{
    const char *said = load(
        "{\n"
        "  \"rules\": [\n"
        "    {\"collective\": \"gather\", \"algorithm\": \"binomial\", \"msg_size\": {\"max\": "
        "1024},\n"
        "     \"comment\": \"small blocks: a tree\"},\n"
        "    {\"collective\": \"gather\", \"algorithm\": \"linear\", \"msg_size\": {\"min\": "
        "1025}},\n"
        "    {\"collective\": \"gatherv\", \"algorithm\": \"tuw\", \"comm_size\": {\"min\": 3}},\n"
        "    {\"collective\": \"bcast\", \"algorithm\": \"linear\", \"ranks_per_node\": {\"max\": "
        "2}},\n"
        "    {\"collective\": \"bcast\", \"algorithm\": \"binomial\"}\n"
        "  ]\n"
        "}\n");
    EXPECT_STR(said, "");
    EXPECT_INT(cx_rules_broken(), 0);
    EXPECT_STR(describe(), "5 rules for bcast, gather, gatherv; the nearest rule beyond their "
               "ranges");
    EXPECT_INT(cx_rules_need_nodes(), 1);
    EXPECT_INT(cx_rules_mention(CX_COLL_GATHER), 1);
    EXPECT_INT(cx_rules_mention(CX_COLL_ALLREDUCE), 0);
    /* msg_size: inclusive bounds */
    PICKS(CX_COLL_GATHER, 4, 2, 0, "binomial");
    PICKS(CX_COLL_GATHER, 4, 2, 1024, "binomial");
    PICKS(CX_COLL_GATHER, 4, 2, 1025, "linear");
    PICKS(CX_COLL_GATHER, 4, 2, LLONG_MAX, "linear");
    /* comm_size; below every range: the nearest rule */
    PICKS(CX_COLL_GATHERV, 2, 1, 0, "tuw");
    EXPECT(picked.beyond && picked.rule == 2, "gatherv on 2 ranks: beyond, rules[2] picks");
    PICKS(CX_COLL_GATHERV, 3, 1, 0, "tuw");
    EXPECT(!picked.beyond && picked.rule == 2, "gatherv on 3 ranks: rules[2] holds");
    PICKS(CX_COLL_GATHERV, 1000, 1, 0, "tuw");
    /* ranks_per_node */
    PICKS(CX_COLL_BCAST, 4, 1, 8, "linear");
    PICKS(CX_COLL_BCAST, 4, 2, 8, "linear");
    PICKS(CX_COLL_BCAST, 5, 4, 8, "binomial");
    PICKS(CX_COLL_ALLREDUCE, 4, 2, 8, "-");
}

/* tests/contract/rules/overlap.json: the first rule that holds, at every
 * edge of every range. */
static void overlap(void)
{
    const char *said = load(
        "{\"rules\": [\n"
        "  {\"collective\": \"gather\", \"algorithm\": \"binomial\", \"msg_size\": {\"min\": 100, "
        "\"max\": 200}},\n"
        "  {\"collective\": \"gather\", \"algorithm\": \"linear\", \"msg_size\": {\"min\": 150, "
        "\"max\": 400}},\n"
        "  {\"collective\": \"gather\", \"algorithm\": \"linear_sync\", \"msg_size\": {\"max\": "
        "50}},\n"
        "  {\"collective\": \"gather\", \"algorithm\": \"binomial\", \"msg_size\": {\"min\": 300, "
        "\"max\": 1000}},\n"
        "  {\"collective\": \"gather\", \"algorithm\": \"native\"}\n"
        "]}\n");
    static const struct { long long msg; const char *alg; } want[] = {
        {0, "linear_sync"}, {50, "linear_sync"}, {51, "native"}, {99, "native"},
        {100, "binomial"}, {200, "binomial"}, {201, "linear"}, {400, "linear"},
        {401, "binomial"}, {1000, "binomial"}, {1001, "native"}, {LLONG_MAX, "native"}};
    EXPECT_STR(said, "");
    EXPECT_INT(cx_rules_need_nodes(), 0);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        PICKS(CX_COLL_GATHER, 3, 0, want[i].msg, want[i].alg);
    /* six classes: 0-50, 51-99, 100-200, 201-400, 401-1000, 1001- */
    int beyond = -1;
    int *pruned = cx_rules_prune(cx_rules_file(), CX_COLL_GATHER, 3, 0, &beyond);
    cx_rules_class *cl = NULL;
    EXPECT_INT(pruned ? cx_rules_classes(cx_rules_file(), pruned, beyond, &cl) : -1, 6);
    EXPECT_INT(beyond, 0);
    free(pruned);
    free(cl);
}

static void comm_size_and_nodes(void)
{
    const char *said = load(
        "{\"version\": 1, \"rules\": [\n"
        "  {\"collective\": \"allreduce\", \"algorithm\": \"recursive_doubling\",\n"
        "   \"comm_size\": {\"min\": 2, \"max\": 8}},\n"
        "  {\"collective\": \"allreduce\", \"algorithm\": \"hier\", \"comm_size\": {\"min\": 9},\n"
        "   \"ranks_per_node\": {\"min\": 2}, \"msg_size\": {\"min\": 4096}},\n"
        "  {\"collective\": \"allreduce\", \"algorithm\": \"rabenseifner\", \"comm_size\": "
        "{\"min\": 9}}\n"
        "]}\n");
    EXPECT_STR(said, "");
    EXPECT_INT(cx_rules_need_nodes(), 1);
    PICKS(CX_COLL_ALLREDUCE, 1, 1, 64, "recursive_doubling");   /* the nearest */
    EXPECT(picked.beyond && picked.rule == 0, "p=1: beyond, rules[0]");
    PICKS(CX_COLL_ALLREDUCE, 2, 1, 64, "recursive_doubling");
    PICKS(CX_COLL_ALLREDUCE, 8, 4, 1 << 20, "recursive_doubling");
    PICKS(CX_COLL_ALLREDUCE, 9, 1, 1 << 20, "rabenseifner");    /* one rank per node */
    PICKS(CX_COLL_ALLREDUCE, 9, 2, 4095, "rabenseifner");       /* too small */
    PICKS(CX_COLL_ALLREDUCE, 9, 2, 4096, "hier");               /* every range holds */
    PICKS(CX_COLL_ALLREDUCE, 4096, 64, LLONG_MAX, "hier");
}

/* tests/contract/rules/params.json: every rule's own values. */
static void params(void)
{
    const char *said = load(
        "{\n"
        "  \"rules\": [\n"
        "    {\"collective\": \"allgather\", \"algorithm\": \"hier\", \"msg_size\": {\"max\": "
        "64},\n"
        "     \"params\": {\"COLLX_HIER_INTER\": \"bruck\"}},\n"
        "    {\"collective\": \"allgather\", \"algorithm\": \"hier\", \"msg_size\": {\"max\": "
        "4096},\n"
        "     \"params\": {\"COLLX_HIER_INTER\": \"ring\", \"COLLX_HIER_NATIVE\": "
        "\"nonblocking\"}},\n"
        "    {\"collective\": \"allgather\", \"algorithm\": \"hier_ms\",\n"
        "     \"params\": {\"COLLX_HIER_INTER\": \"ring\", \"COLLX_HIER_SENDERS\": 2,\n"
        "                \"COLLX_BCAST_SEGMENTS\": 1e3}},\n"
        "    {\"collective\": \"bcast\", \"algorithm\": \"hier\"}\n"
        "  ]\n"
        "}\n");
    const cx_knob_params *p = NULL;
    char text[512];
    EXPECT_STR(said, "");
    EXPECT_STR(pick(CX_COLL_ALLGATHER, 4, 2, 64, &p, NULL), "hier");
    cx_knob_params_text(p, text, sizeof text);
    EXPECT_STR(text, "COLLX_HIER_INTER=bruck");
    EXPECT(p && p->rule == 0 && p->n == 1, "rules[0]'s params: 1 value");
    EXPECT_STR(pick(CX_COLL_ALLGATHER, 4, 2, 65, &p, NULL), "hier");
    cx_knob_params_text(p, text, sizeof text);
    EXPECT_STR(text, "COLLX_HIER_INTER=ring COLLX_HIER_NATIVE=nonblocking");
    EXPECT(p && p->rule == 1, "rules[1]'s params");
    EXPECT_INT(cx_knob_call_int(p, CX_KNOB_HIER_NATIVE), 1);
    EXPECT_STR(pick(CX_COLL_ALLGATHER, 4, 2, 4097, &p, NULL), "hier_ms");
    cx_knob_params_text(p, text, sizeof text);
    EXPECT_STR(text, "COLLX_HIER_INTER=ring COLLX_HIER_SENDERS=2 COLLX_BCAST_SEGMENTS=1000");
    EXPECT_INT(cx_knob_call_int(p, CX_KNOB_HIER_SENDERS), 2);
    EXPECT_INT(cx_knob_call_int(p, CX_KNOB_BCAST_SEGMENTS), 1000);
    EXPECT_INT(cx_knob_call_int(p, CX_KNOB_HIER_FOLD_COPY), 0);   /* not the rule's */
    EXPECT_STR(pick(CX_COLL_BCAST, 4, 2, 4097, &p, NULL), "hier");
    EXPECT(p == NULL, "a rule without params has none");
}

/* The families' built-in sets (src/<family>/<name>.rules.json) read
 * whole: no rule dropped, nothing said, "beyond": "native". */
static void builtin_read(void)
{
    capture_start();
    for (int i = 0; i < CX_BUILTIN_RULES_COUNT; i++) {
        const char *path, *text, *name = CX_Rules_builtin(i, &path, &text);
        const cx_rule_set *set = cx_rules_builtin(i);
        int listed = 0;
        for (const char *t = text; (t = strstr(t, "\"collective\"")); t++)
            listed++;
        EXPECT(!set->broken && set->n == listed && set->beyond_native, "%s (%s): %d rules "
               "read of %d, broken %d, beyond native %d", name, path, set->n, listed,
               set->broken, set->beyond_native);
    }
    EXPECT(CX_Rules_builtin(CX_BUILTIN_RULES_COUNT, NULL, NULL) == NULL, "past the last");
    EXPECT_STR(capture_text(), "");
}

/* hier's leaders' algorithms as its built-in rules pick them (comm_size:
 * nodes), the choices leaders.c made in code before they were rules. */
static void builtin_hier_leaders(void)
{
    const cx_knob_params *p = NULL;
    under = cx_rules_builtin(CX_BUILTIN_RULES_HIER_LEADERS_BLOCKING);
    PICKS(CX_COLL_ALLGATHERV, 63, 0, 1 << 20, "-");
    PICKS(CX_COLL_ALLGATHERV, 64, 0, 8, "bruck");
    PICKS(CX_COLL_ALLREDUCE, 63, 0, 63, "recursive_doubling");
    PICKS(CX_COLL_ALLREDUCE, 2, 0, 8, "recursive_doubling");
    PICKS(CX_COLL_ALLREDUCE, 63, 0, 64, "-");
    PICKS(CX_COLL_ALLREDUCE, 64, 0, 8, "-");
    PICKS(CX_COLL_BCAST, 16, 0, 1 << 20, "-");
    under = cx_rules_builtin(CX_BUILTIN_RULES_HIER_LEADERS_NONBLOCKING);
    PICKS(CX_COLL_ALLREDUCE, 16, 0, 4096, "recursive_doubling");
    PICKS(CX_COLL_ALLREDUCE, 16, 0, 4097, "rabenseifner");
    PICKS(CX_COLL_ALLREDUCE, 300, 0, 8, "recursive_doubling");
    PICKS(CX_COLL_ALLGATHERV, 63, 0, 65535, "bruck");
    PICKS(CX_COLL_ALLGATHERV, 63, 0, 65536, "neighbor_exchange");
    PICKS(CX_COLL_ALLGATHERV, 64, 0, 1 << 20, "bruck");
    PICKS(CX_COLL_BCAST, 16, 0, 16383, "binomial");
    static const long long at[] = {16384, 32767, 32768, 65536, 131072, 262143, 262144, 1LL << 40};
    static const int segments[] = {2, 2, 4, 8, 16, 16, 32, 32};
    for (int i = 0; i < 8; i++) {
        EXPECT_STR(pick(CX_COLL_BCAST, 16, 0, at[i], &p, NULL), "pipeline_binary");
        EXPECT_INT(cx_knob_call_int(p, CX_KNOB_BCAST_SEGMENTS), segments[i]);
    }
    PICKS(CX_COLL_BARRIER, 5, 0, 0, "dissemination");
    PICKS(CX_COLL_EXSCAN, 5, 0, 8, "recursive_doubling");
    PICKS(CX_COLL_REDUCE_SCATTER, 5, 0, 8, "ring");
    PICKS(CX_COLL_GATHERV, 5, 0, 0, "-");
    PICKS(CX_COLL_SCATTERV, 5, 0, 0, "-");
    under = NULL;
}

static void candidates(void)
{
    const char *said = load(
        "{\"rules\": [\n"
        "  {\"collective\": \"allreduce\", \"algorithm\": \"rabenseifner\", \"msg_size\": "
        "{\"min\": 1024},\n"
        "   \"candidates\": [\"recursive_doubling\", \"reduce_bcast\"]},\n"
        "  {\"collective\": \"allreduce\", \"algorithm\": \"recursive_doubling\", \"candidates\": "
        "[]}\n"
        "]}\n");
    const cx_algorithm *const *c = NULL;
    EXPECT_STR(said, "");
    EXPECT_STR(pick(CX_COLL_ALLREDUCE, 4, 0, 1024, NULL, &c), "rabenseifner");
    EXPECT(c && c[0] && !strcmp(c[0]->name, "recursive_doubling") && c[1] &&
           !strcmp(c[1]->name, "reduce_bcast") && !c[2], "candidates recursive_doubling, "
           "reduce_bcast");
    EXPECT_STR(pick(CX_COLL_ALLREDUCE, 4, 0, 1023, NULL, &c), "recursive_doubling");
    EXPECT(c && !c[0], "an empty candidates list: none");
}

static void empty_list(void)
{
    EXPECT_STR(load("{\"version\": 1.0, \"rules\": []}"), "");
    EXPECT_INT(cx_rules_broken(), 0);
    EXPECT_STR(describe(), "0 rules; the nearest rule beyond their ranges");
    PICKS(CX_COLL_BCAST, 4, 0, 0, "-");
}

/* The provenance block names where the rules were tuned; another MPI than
 * the running one is said. */
static void provenance(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "", doc[512], want[1024];
    int len = 0;
    PMPI_Get_library_version(lib, &len);
    int ompi = strstr(lib, "Open MPI") != NULL;
    const char *other = ompi ? "MPICH 4.0.2" : "Open MPI 4.1.4";
    snprintf(doc, sizeof doc, "{\"provenance\": {\"target\": \"cluster-a\", \"mpi\": \"%s\", "
             "\"date\": \"2026-01-02\"},\n \"rules\": [{\"collective\": \"bcast\", "
             "\"algorithm\": \"binomial\"}]}", other);
    const char *said = load(doc);
    lib[strcspn(lib, "\n,")] = 0;
    snprintf(want, sizeof want, "collx: rules file %s was measured with %s (cluster-a), this "
             "program runs %s: its choices may not be the fastest here (collx tune on this "
             "machine writes rules for it)\n", path, other, lib);
    EXPECT_STR(said, want);
    snprintf(want, sizeof want, "1 rule for bcast, tuned on cluster-a, %s, 2026-01-02; the "
             "nearest rule beyond their ranges", other);
    EXPECT_STR(describe(), want);
    PICKS(CX_COLL_BCAST, 4, 0, 0, "binomial");
}

static void provenance_same_mpi(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "", doc[512];
    int len = 0;
    PMPI_Get_library_version(lib, &len);
    const char *mine = strstr(lib, "Intel(R) MPI") ? "Intel MPI 2021.19.0"
                       : strstr(lib, "Open MPI")   ? "Open MPI 4.1.4"
                                                   : "MPICH 4.0.2";
    snprintf(doc, sizeof doc, "{\"provenance\": {\"target\": \"here\", \"mpi\": \"%s\"},\n"
             " \"rules\": [{\"collective\": \"bcast\", \"algorithm\": \"binomial\"}]}", mine);
    EXPECT_STR(load(doc), "");
    EXPECT_HAS(describe(), ", tuned on here, ");
}

/* ------------------------------------------------- beyond the rules' ranges */
/* Communicator sizes no rule holds: the nearest range by log2 distance
 * (a ratio), ties to the file's order. */
static void beyond_comm_size(void)
{
    const char *said = load(
        "{\"rules\": [\n"
        "  {\"collective\": \"allreduce\", \"algorithm\": \"recursive_doubling\",\n"
        "   \"comm_size\": {\"min\": 2, \"max\": 8}},\n"
        "  {\"collective\": \"allreduce\", \"algorithm\": \"rabenseifner\",\n"
        "   \"comm_size\": {\"min\": 18, \"max\": 32}},\n"
        "  {\"collective\": \"allreduce\", \"algorithm\": \"reduce_bcast\",\n"
        "   \"comm_size\": {\"min\": 64, \"max\": 64}}\n"
        "]}\n");
    EXPECT_STR(said, "");
    PICKS(CX_COLL_ALLREDUCE, 1, 0, 8, "recursive_doubling");   /* 2/1 */
    EXPECT(picked.beyond && picked.rule == 0, "p=1: beyond, rules[0]");
    PICKS(CX_COLL_ALLREDUCE, 8, 0, 8, "recursive_doubling");
    EXPECT(!picked.beyond, "p=8: held");
    PICKS(CX_COLL_ALLREDUCE, 11, 0, 8, "recursive_doubling");  /* 11/8 < 18/11 */
    PICKS(CX_COLL_ALLREDUCE, 12, 0, 8, "recursive_doubling");  /* 12/8 = 18/12: first */
    EXPECT(picked.beyond && picked.rule == 0, "p=12: a tie, the first rule");
    PICKS(CX_COLL_ALLREDUCE, 13, 0, 8, "rabenseifner");        /* 18/13 < 13/8 */
    EXPECT(picked.beyond && picked.rule == 1, "p=13: beyond, rules[1]");
    PICKS(CX_COLL_ALLREDUCE, 45, 0, 8, "rabenseifner");        /* 45/32 < 64/45 */
    PICKS(CX_COLL_ALLREDUCE, 46, 0, 8, "reduce_bcast");        /* 64/46 < 46/32 */
    PICKS(CX_COLL_ALLREDUCE, 1 << 20, 0, 1 << 30, "reduce_bcast");
    EXPECT(picked.beyond && picked.rule == 2, "p=2^20: beyond, rules[2]");
    PICKS(CX_COLL_BCAST, 64, 0, 8, "-");                       /* no rule for bcast */
}

/* The same tie in the other order: the file's order decides. */
static void beyond_tie_order(void)
{
    EXPECT_STR(load("{\"rules\": [\n"
                    "  {\"collective\": \"allreduce\", \"algorithm\": \"rabenseifner\",\n"
                    "   \"comm_size\": {\"min\": 18, \"max\": 32}},\n"
                    "  {\"collective\": \"allreduce\", \"algorithm\": \"recursive_doubling\",\n"
                    "   \"comm_size\": {\"min\": 2, \"max\": 8}}\n"
                    "]}\n"), "");
    PICKS(CX_COLL_ALLREDUCE, 12, 0, 8, "rabenseifner");
    EXPECT(picked.rule == 0, "p=12: a tie, rules[0]");
}

/* Message sizes between two ranges: the one below up to the geometric
 * mean of its max and the other's min (1024 * 65536 = 8192^2; the tie at
 * 8192 to the first rule), the one above from there; beyond the last, the
 * last. A communicator size beyond the rules: every class is beyond, and
 * the nearest communicator sizes' rules split the message sizes as usual. */
static void beyond_msg_size(void)
{
    EXPECT_STR(load("{\"beyond\": \"nearest\", \"rules\": [\n"
                    "  {\"collective\": \"allreduce\", \"algorithm\": \"recursive_doubling\",\n"
                    "   \"comm_size\": {\"max\": 8}, \"msg_size\": {\"max\": 1024}},\n"
                    "  {\"collective\": \"allreduce\", \"algorithm\": \"rabenseifner\",\n"
                    "   \"comm_size\": {\"max\": 8}, \"msg_size\": {\"min\": 65536, \"max\": "
                    "1048576}},\n"
                    "  {\"collective\": \"bcast\", \"algorithm\": \"binomial\", \"msg_size\": "
                    "{\"min\": 100}}\n"
                    "]}\n"), "");
    static const struct { long long msg; const char *alg; int beyond; } want[] = {
        {0, "recursive_doubling", 0}, {1024, "recursive_doubling", 0},
        {1025, "recursive_doubling", 1}, {8192, "recursive_doubling", 1},
        {8193, "rabenseifner", 1}, {65535, "rabenseifner", 1}, {65536, "rabenseifner", 0},
        {1048576, "rabenseifner", 0}, {1048577, "rabenseifner", 1},
        {LLONG_MAX, "rabenseifner", 1}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        PICKS(CX_COLL_ALLREDUCE, 4, 0, want[i].msg, want[i].alg);
        EXPECT(picked.beyond == want[i].beyond, "%lld B: beyond %d", want[i].msg,
               want[i].beyond);
        PICKS(CX_COLL_ALLREDUCE, 100, 0, want[i].msg, want[i].alg);
        EXPECT(picked.beyond, "p=100, %lld B: beyond", want[i].msg);
    }
    int beyond = -1;
    int *pruned = cx_rules_prune(cx_rules_file(), CX_COLL_ALLREDUCE, 4, 0, &beyond);
    cx_rules_class *cl = NULL;
    EXPECT_INT(pruned ? cx_rules_classes(cx_rules_file(), pruned, beyond, &cl) : -1, 5);
    free(pruned);
    free(cl);
    PICKS(CX_COLL_BCAST, 4, 0, 0, "binomial");   /* below the only range */
    EXPECT(picked.beyond && picked.rule == 2, "bcast of 0 B: beyond, rules[2]");
}

/* ranks_per_node: only the rules whose range holds the call's (or that
 * have none) can be the nearest; none: native. */
static void beyond_ranks_per_node(void)
{
    EXPECT_STR(load("{\"rules\": [\n"
                    "  {\"collective\": \"allreduce\", \"algorithm\": \"rabenseifner\",\n"
                    "   \"comm_size\": {\"max\": 8}, \"ranks_per_node\": {\"max\": 1}},\n"
                    "  {\"collective\": \"allreduce\", \"algorithm\": \"recursive_doubling\",\n"
                    "   \"comm_size\": {\"max\": 8}, \"ranks_per_node\": {\"min\": 2}},\n"
                    "  {\"collective\": \"bcast\", \"algorithm\": \"binomial\", "
                    "\"ranks_per_node\": {\"max\": 2}},\n"
                    "  {\"collective\": \"reduce\", \"algorithm\": \"binomial\", "
                    "\"comm_size\": {\"min\": 64}}\n"
                    "]}\n"), "");
    PICKS(CX_COLL_ALLREDUCE, 16, 1, 8, "rabenseifner");
    PICKS(CX_COLL_ALLREDUCE, 16, 4, 8, "recursive_doubling");
    EXPECT(picked.beyond && picked.rule == 1, "16 ranks, 4 per node: rules[1], beyond");
    PICKS(CX_COLL_BCAST, 16, 4, 8, "-");
    EXPECT(picked.beyond && picked.rule == -1, "bcast, 4 per node: no rule, beyond");
    PICKS(CX_COLL_REDUCE, 16, 4, 8, "binomial");   /* no ranks_per_node: any */
}

/* "beyond": "native": what no rule holds runs native, still beyond. */
static void beyond_native(void)
{
    EXPECT_STR(load("{\"version\": 1, \"beyond\": \"native\", \"rules\": [\n"
                    "  {\"collective\": \"allreduce\", \"algorithm\": \"recursive_doubling\",\n"
                    "   \"comm_size\": {\"min\": 2, \"max\": 8}, \"msg_size\": {\"max\": 64}}\n"
                    "]}\n"), "");
    EXPECT_STR(describe(), "1 rule for allreduce; native beyond their ranges");
    PICKS(CX_COLL_ALLREDUCE, 4, 0, 64, "recursive_doubling");
    EXPECT(!picked.beyond && picked.rule == 0, "held");
    PICKS(CX_COLL_ALLREDUCE, 4, 0, 65, "-");
    EXPECT(picked.beyond && picked.rule == -1, "65 B: beyond, native");
    PICKS(CX_COLL_ALLREDUCE, 16, 0, 8, "-");
    EXPECT(picked.beyond && picked.rule == -1, "p=16: beyond, native");
}

/* A "beyond" that is neither: said, and the nearest serves (as without
 * the key); the rule indices are the file's, dropped rules counted. */
static void beyond_bad(void)
{
    const char *said = load("{\"beyond\": \"nearst\", \"rules\": [\n"
                            "  {\"collective\": \"allreduce\", \"algorithm\": \"fastest\"},\n"
                            "  {\"collective\": \"allreduce\", \"algorithm\": \"reduce_bcast\",\n"
                            "   \"comm_size\": {\"max\": 8}}\n"
                            "]}\n");
    char want[2048];
    snprintf(want, sizeof want, "collx: COLLX_RULES=%s: line 1: \"beyond\" must be \"nearest\" "
             "or \"native\", not \"nearst\": the nearest rule serves beyond the rules' ranges "
             "(collx rules check %s)\n", path, path);
    EXPECT_HAS(said, want);
    EXPECT_HAS(said, "\"fastest\" is not an allreduce algorithm");
    EXPECT_INT(cx_rules_broken(), 0);
    PICKS(CX_COLL_ALLREDUCE, 16, 0, 8, "reduce_bcast");
    EXPECT(picked.beyond && picked.rule == 1, "p=16: beyond, rules[1] of the file");
}

static void beyond_not_text(void)
{
    const char *said = load("{\"rules\": [], \"beyond\": false}");
    EXPECT_HAS(said, "line 1: \"beyond\" must be \"nearest\" or \"native\", not true/false: ");
}

/* ------------------------------------------------------------ dropped rules */
/* tests/contract/rules/mixed.json: one rule dropped, the other serves. */
static void mixed(void)
{
    const char *said = load(
        "{\"version\": 1, \"rules\": [\n"
        "  {\"collective\": \"bcast\", \"algorithm\": \"binomial\"},\n"
        "  {\"collective\": \"gatherv\", \"algorithm\": \"fastest\"}\n"
        "]}\n");
    char want[2048];
    snprintf(want, sizeof want, "collx: COLLX_RULES=%s: line 3: \"fastest\" is not a gatherv "
             "algorithm; valid:%s: rule dropped, the others serve (collx rules check %s)\n",
             path, valid("gatherv"), path);
    EXPECT_STR(said, want);
    EXPECT_INT(cx_rules_broken(), 0);
    EXPECT_STR(describe(), "1 rule for bcast; the nearest rule beyond their ranges");
    EXPECT_INT(cx_rules_mention(CX_COLL_GATHERV), 0);
    PICKS(CX_COLL_BCAST, 2, 0, 12, "binomial");
    PICKS(CX_COLL_GATHERV, 2, 0, 0, "-");
}

/* Every reason a rule is dropped, one rule per line (rules[i] on line
 * i + 2), and the last rule serves. */
static void dropped(void)
{
    static const char *const bad[] = {
        "\"bcast\"",
        "{\"collective\": \"bcast\", \"algorithm\": \"linear\", \"msgsize\": {\"max\": 1}}",
        "{\"collective\": \"bcast\"}",
        "{\"collective\": \"bcast\", \"algorithm\": 3}",
        "{\"collective\": \"broadcast\", \"algorithm\": \"linear\"}",
        "{\"collective\": \"bcast\", \"algorithm\": \"fastest\"}",
        "{\"collective\": \"gatherv\", \"algorithm\": \"tuw\", \"msg_size\": {\"max\": 100}}",
        "{\"collective\": \"bcast\", \"algorithm\": \"linear\", \"comm_size\": 4}",
        "{\"collective\": \"bcast\", \"algorithm\": \"linear\", \"comm_size\": {\"minimum\": 1}}",
        "{\"collective\": \"bcast\", \"algorithm\": \"linear\", \"comm_size\": {\"min\": -1}}",
        "{\"collective\": \"bcast\", \"algorithm\": \"linear\", \"msg_size\": {\"max\": 1.5}}",
        "{\"collective\": \"bcast\", \"algorithm\": \"linear\", \"ranks_per_node\": {\"max\": "
        "\"2\"}}",
        "{\"collective\": \"bcast\", \"algorithm\": \"hier\", \"params\": []}",
        "{\"collective\": \"bcast\", \"algorithm\": \"hier\", \"params\": {\"COLLX_HIER_INTRE\": "
        "\"bruck\"}}",
        "{\"collective\": \"bcast\", \"algorithm\": \"hier\", \"params\": {\"COLLX_SHM_MAX\": "
        "\"1G\"}}",
        "{\"collective\": \"bcast\", \"algorithm\": \"hier_ms\", \"params\": "
        "{\"COLLX_HIER_SENDERS\": true}}",
        "{\"collective\": \"bcast\", \"algorithm\": \"hier_ms\", \"params\": "
        "{\"COLLX_HIER_SENDERS\": 0}}",
        "{\"collective\": \"bcast\", \"algorithm\": \"hier_ms\", \"params\": "
        "{\"COLLX_HIER_SENDERS\": 2.5}}",
        "{\"collective\": \"bcast\", \"algorithm\": \"hier\", \"params\": {\"COLLX_HIER_INTER\": "
        "\"fastest\"}}",
        /* the first value's text was leaked when the rule was dropped */
        "{\"collective\": \"bcast\", \"algorithm\": \"hier_ms\", \"params\": "
        "{\"COLLX_HIER_SENDERS\": 2, \"COLLX_HIER_SENDERS\": 3}}",
        "{\"collective\": \"allreduce\", \"algorithm\": \"rabenseifner\", \"candidates\": "
        "\"ring\"}",
        "{\"collective\": \"gatherv\", \"algorithm\": \"tuw\", \"candidates\": [\"linear\"]}",
        "{\"collective\": \"allreduce\", \"algorithm\": \"rabenseifner\", \"candidates\": "
        "[\"fastest\"]}",
        "{\"collective\": \"allreduce\", \"algorithm\": \"rabenseifner\", \"candidates\": [3]}",
        "{\"collective\": \"bcast\", \"algorithm\": \"linear\", \"algorithm\": \"binomial\"}",
    };
    char why[40][1024];
    int n = 0;
#define WHY(...) snprintf(why[n++], sizeof why[0], __VA_ARGS__)
    WHY("line 2: a rule must be an object");
    WHY("line 3: unknown key \"msgsize\" (known: collective, algorithm, comm_size, msg_size, "
        "ranks_per_node, params, candidates, comment)");
    WHY("line 4: a rule needs \"collective\" and \"algorithm\" strings");
    WHY("line 5: a rule needs \"collective\" and \"algorithm\" strings");
    WHY("line 6: unknown collective \"broadcast\"");
    WHY("line 7: \"fastest\" is not a bcast algorithm; valid:%s", valid("bcast"));
    WHY("line 8: msg_size cannot select a gatherv algorithm (only the root knows the sizes; "
        "use comm_size or ranks_per_node)");
    WHY("line 9: \"comm_size\" must be an object like {\"min\": 1, \"max\": 64}");
    WHY("line 10: \"comm_size\" takes only \"min\" and \"max\", not \"minimum\"");
    WHY("line 11: comm_size.min must be a non-negative integer");
    WHY("line 12: msg_size.max must be a non-negative integer");
    WHY("line 13: ranks_per_node.max must be a non-negative integer");
    WHY("line 14: rules[12].params must be an object like {\"COLLX_HIER_INTER\": \"bruck\"}");
    WHY("line 15: rules[13].params: unknown variable \"COLLX_HIER_INTRE\"; a rule may set %s",
        per_call_names());
    WHY("line 16: rules[14].params: no rule may set \"COLLX_SHM_MAX\"; a rule may set %s",
        per_call_names());
    WHY("line 17: rules[15].params: COLLX_HIER_SENDERS must be a string or a number, not "
        "true/false");
    WHY("line 18: rules[16].params: COLLX_HIER_SENDERS=0 is outside the range (an integer in "
        "1..4096)");
    WHY("line 19: rules[17].params: COLLX_HIER_SENDERS=2.5 is not an integer in 1..4096");
    WHY("line 20: rules[18].params: COLLX_HIER_INTER=fastest is not the name of a collx "
        "algorithm (collx_info lists them; native = the MPI's own)");
    WHY("line 21: rules[19].params: COLLX_HIER_SENDERS given twice");
    WHY("line 22: rules[20].candidates must be an array of algorithm names");
    WHY("line 23: rules[21].candidates: online tuning does not tune gatherv (only the root "
        "knows the sizes)");
    WHY("line 24: rules[22].candidates: \"fastest\" is not an allreduce algorithm; valid:%s",
        valid("allreduce"));
    WHY("line 25: rules[23].candidates: a number is not an allreduce algorithm; valid:%s",
        valid("allreduce"));
    WHY("line 26: \"algorithm\" given twice");
#undef WHY
    int nbad = (int)(sizeof bad / sizeof *bad);
    EXPECT_INT(n, nbad);
    char *doc = malloc(16384);
    if (!doc)
        return;
    int len = snprintf(doc, 16384, "{\"rules\": [\n");
    for (int i = 0; i < nbad; i++)
        len += snprintf(doc + len, 16384 - (size_t)len, "  %s,\n", bad[i]);
    snprintf(doc + len, 16384 - (size_t)len,
             "  {\"collective\": \"bcast\", \"algorithm\": \"binomial\", "
             "\"params\": {\"COLLX_BCAST_SEGMENTS\": 4}}\n]}\n");
    const char *said = load(doc);
    free(doc);
    /* one line per rule dropped, in order */
    const char *at = said;
    for (int i = 0; i < nbad; i++) {
        char want[4096];
        snprintf(want, sizeof want, "collx: COLLX_RULES=%s: %.1500s: rule dropped, the others "
                 "serve (collx rules check %s)\n", path, why[i], path);
        const char *eol = strchr(at, '\n');
        size_t got_len = eol ? (size_t)(eol - at) + 1 : strlen(at);
        EXPECT(strlen(want) == got_len && !strncmp(at, want, got_len),
               "rules[%d]: expected \"%.*s\", got \"%.*s\"", i, (int)strlen(want) - 1, want,
               (int)(got_len ? got_len - 1 : 0), at);
        at += got_len;
    }
    EXPECT_STR(at, "");
    EXPECT_INT(cx_rules_broken(), 0);
    EXPECT_STR(describe(), "1 rule for bcast; the nearest rule beyond their ranges");
    const cx_knob_params *p = NULL;
    EXPECT_STR(pick(CX_COLL_BCAST, 4, 0, 100, &p, NULL), "binomial");
    EXPECT(p && p->rule == nbad && p->n == 1, "the rule's params, rules[%d] in the file", nbad);
    EXPECT_INT(cx_rules_mention(CX_COLL_ALLREDUCE), 0);
    EXPECT_INT(cx_rules_mention(CX_COLL_GATHERV), 0);
}

/* ------------------------------------------------------------ files not used */
static void version2(void)
{
    const char *said = load("{\"version\": 2, \"rules\": [\n"
                            "  {\"collective\": \"bcast\", \"algorithm\": \"binomial\"}\n]}\n");
    char why[200];
    snprintf(why, sizeof why, "line 1: format version 2; this collx (%d.%d.%d) reads version 1",
             COLLX_VERSION_MAJOR, COLLX_VERSION_MINOR, COLLX_VERSION_PATCH);
    not_used(said, why);
}

static void version_text(void)
{
    not_used(load("{\"rules\": [],\n \"version\": \"1\"}"),
             "line 2: \"version\" must be a number (the format's, 1)");
}

/* tests/contract/rules/syntax.json */
static void syntax(void)
{
    not_used(load("{\n"
                  "  \"rules\": [\n"
                  "    {\"collective\": \"gather\", \"algorithm\": \"binomial\"}\n"
                  "    {\"collective\": \"gather\", \"algorithm\": \"linear\"}\n"
                  "  ]\n"
                  "}\n"),
             "line 4: expected ',' or ']'");
}

static void no_rules_array(void)
{
    not_used(load("{\"rule\": []}"), "the document must be an object with a \"rules\" array");
}

static void rules_not_array(void)
{
    not_used(load("{\"rules\": {\"collective\": \"bcast\", \"algorithm\": \"binomial\"}}"),
             "the document must be an object with a \"rules\" array");
}

static void top_array(void)
{
    not_used(load("[{\"collective\": \"bcast\", \"algorithm\": \"binomial\"}]"),
             "the document must be an object with a \"rules\" array");
}

static void empty_file(void)
{
    not_used(load(""), "line 1: unexpected end of file");
}

static void missing_file(void)
{
    snprintf(path, sizeof path, "%s/does_not_exist.json", unit_dir);
    setenv("COLLX_RULES", path, 1);
    capture_start();
    EXPECT_INT(cx_rules_broken(), 1);
    not_used(capture_text(), "cannot open the file");
}

int main(void)
{
    unit_begin("unit_rules");
    unit_run("rules.no_file", no_file, 1);
    unit_run("rules.good", good, 1);
    unit_run("rules.overlap", overlap, 1);
    unit_run("rules.comm_size_and_nodes", comm_size_and_nodes, 1);
    unit_run("rules.params", params, 1);
    unit_run("rules.candidates", candidates, 1);
    unit_run("rules.builtin_read", builtin_read, 1);
    unit_run("rules.builtin_hier_leaders", builtin_hier_leaders, 1);
    unit_run("rules.empty_list", empty_list, 1);
    unit_run("rules.provenance_other_mpi", provenance, 1);
    unit_run("rules.provenance_same_mpi", provenance_same_mpi, 1);
    unit_run("rules.beyond_comm_size", beyond_comm_size, 1);
    unit_run("rules.beyond_tie_order", beyond_tie_order, 1);
    unit_run("rules.beyond_msg_size", beyond_msg_size, 1);
    unit_run("rules.beyond_ranks_per_node", beyond_ranks_per_node, 1);
    unit_run("rules.beyond_native", beyond_native, 1);
    unit_run("rules.beyond_bad", beyond_bad, 1);
    unit_run("rules.beyond_not_text", beyond_not_text, 1);
    unit_run("rules.mixed", mixed, 1);
    unit_run("rules.dropped", dropped, 1);
    unit_run("rules.version2", version2, 1);
    unit_run("rules.version_text", version_text, 1);
    unit_run("rules.syntax", syntax, 1);
    unit_run("rules.no_rules_array", no_rules_array, 1);
    unit_run("rules.rules_not_array", rules_not_array, 1);
    unit_run("rules.top_array", top_array, 1);
    unit_run("rules.empty_file", empty_file, 1);
    unit_run("rules.missing_file", missing_file, 1);
    return unit_end();
}
