/* Knobs (src/core/util/knobs.c, knob_table.c) without MPI: the table itself,
 * parsing per type (int, size with K/M/G, real, enum, string, path,
 * algorithm names) with the table's real knobs, what a value that cannot
 * be used becomes (clamped, the default, as if unset, or an error, as the
 * knob's on_bad says) and the messages; the environment read through the
 * accessors (cx_knobs_reread), and a rule's per-call values. */
#include <limits.h>
#include <math.h>
#include "unit.h"
#include "persist/persist.h"

/* text must parse as k: 0, set, i (and r) as given, s a copy of text. */
static void parses_at(cx_knob k, const char *text, long long i, double r)
{
    cx_knob_value v;
    char why[700] = "";
    const char *name = cx_knob_decls[k].name;
    int rc = cx_knob_parse(k, text, &v, why, sizeof why);
    EXPECT(rc == 0 && v.set, "%s=\"%s\" refused: %s", name, text, why);
    EXPECT(v.i == i, "%s=\"%s\": i = %lld, expected %lld", name, text, v.i, i);
    EXPECT(v.r == r, "%s=\"%s\": r = %g, expected %g", name, text, v.r, r);
    EXPECT(v.s && !strcmp(v.s, text) && v.s != text, "%s=\"%s\": the text is kept (a copy)",
           name, text);
    cx_knob_value_free(&v);
    EXPECT(!v.set && !v.s, "cx_knob_value_free empties the value");
}
#define parses(...) UNIT_AT(parses_at(__VA_ARGS__))

/* text must be refused with why == "WHY" (want); clamped: *out holds the
 * nearest bound (i), else *out is unset. */
static void refused_at(cx_knob k, const char *text, const char *want, int clamped, long long i)
{
    cx_knob_value v;
    char why[700] = "";
    const char *name = cx_knob_decls[k].name;
    int rc = cx_knob_parse(k, text, &v, why, sizeof why);
    EXPECT(rc == -1, "%s=\"%s\" accepted, expected \"%s\"", name, text, want);
    EXPECT(!strcmp(why, want), "%s=\"%s\": expected \"%s\", got \"%s\"", name, text, want, why);
    if (clamped)
        EXPECT(v.set && v.i == i, "%s=\"%s\": clamped to %lld, got set=%d i=%lld", name, text,
               i, v.set, v.i);
    else
        EXPECT(!v.set, "%s=\"%s\": no value, got %lld", name, text, v.i);
    cx_knob_value_free(&v);
}
#define refused(...) UNIT_AT(refused_at(__VA_ARGS__))

static void range_is_at(cx_knob k, const char *want)
{
    char buf[700];
    cx_knob_range(k, buf, sizeof buf);
    EXPECT(!strcmp(buf, want), "range of %s: expected \"%s\", got \"%s\"", cx_knob_decls[k].name,
           want, buf);
}
#define range_is(...) UNIT_AT(range_is_at(__VA_ARGS__))

/* "native, <every algorithm of coll>": what collx_info lists. */
static void algorithm_list(const char *coll, char *buf, size_t len)
{
    int n = 0;
    buf[0] = '\0';
    for (int i = 0; i < CX_Algorithm_count(coll) && n >= 0 && (size_t)n < len; i++)
        n += snprintf(buf + n, len - (size_t)n, "%s%s", i ? ", " : "", CX_Algorithm_name(coll, i));
}

/* ------------------------------------------------------------ the table */
static void find(void)
{
    EXPECT_INT(cx_knob_find("COLLX_VERBOSE"), CX_KNOB_VERBOSE);
    EXPECT_INT(cx_knob_find("COLLX_HIER_SENDERS"), CX_KNOB_HIER_SENDERS);
    EXPECT_INT(cx_knob_find("COLLX_SHM_MAX"), CX_KNOB_SHM_MAX);
    EXPECT_INT(cx_knob_find("COLLX_BCAST_ALGORITHM"), CX_KNOB_ALGORITHM_OF(CX_COLL_BCAST));
    EXPECT_INT(cx_knob_find("COLLX_EXSCAN_ALGORITHM"), CX_KNOB_ALGORITHM_OF(CX_COLL_EXSCAN));
    EXPECT_INT(cx_knob_find("COLLX_verbose"), -1);
    EXPECT_INT(cx_knob_find("COLLX_HIER_INTRE"), -1);
    EXPECT_INT(cx_knob_find(""), -1);
    EXPECT_INT(cx_knob_find(NULL), -1);
}

/* Every entry is complete and its default is a value it takes. */
static void table(void)
{
    for (int k = 0; k < CX_KNOB_COUNT; k++) {
        const cx_knob_decl *d = &cx_knob_decls[k];
        EXPECT(d->name && !strncmp(d->name, "COLLX_", 6), "knob %d has a COLLX_ name", k);
        if (!d->name)
            continue;
        EXPECT(cx_knob_find(d->name) == k, "%s: its name finds it (once)", d->name);
        EXPECT(d->family && d->meaning && *d->meaning, "%s: family and meaning", d->name);
        EXPECT(d->def || d->unset, "%s: a default, or what happens unset", d->name);
        if (d->type == CX_KNOB_INT || d->type == CX_KNOB_SIZE)
            EXPECT(d->min <= d->max, "%s: min <= max", d->name);
        if (d->type == CX_KNOB_REAL)
            EXPECT(d->rmin <= d->rmax, "%s: rmin <= rmax", d->name);
        if (d->type == CX_KNOB_ENUM)
            EXPECT(d->values && d->values[0], "%s: an enum with values", d->name);
        if (d->def) {
            cx_knob_value v;
            char why[700] = "";
            EXPECT(!cx_knob_parse((cx_knob)k, d->def, &v, why, sizeof why),
                   "%s: its default \"%s\" %s", d->name, d->def, why);
            cx_knob_value_free(&v);
        }
        if (d->type == CX_KNOB_ALGORITHM && d->coll >= 0) {
            char want[64];
            snprintf(want, sizeof want, "COLLX_%s_ALGORITHM", cx_coll_mpi_name(d->coll) + 4);
            for (char *p = want; *p; p++)
                *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
            EXPECT(!strcmp(want, d->name), "%s: the algorithm knob of %s", d->name,
                   cx_coll_name(d->coll));
            EXPECT(d->on_bad == CX_KNOB_BAD_ERROR, "%s: a bad name fails the calls", d->name);
        }
    }
    EXPECT_INT(CX_KNOB_ALGORITHM_OF(CX_COLL_COUNT - 1), CX_KNOB_COUNT - 1);
}

/* ------------------------------------------------------------ parsing */
static void ints(void)
{
    /* COLLX_VERBOSE: 0..2, clamped */
    parses(CX_KNOB_VERBOSE, "0", 0, 0);
    parses(CX_KNOB_VERBOSE, "2", 2, 2);
    parses(CX_KNOB_VERBOSE, " 1 ", 1, 1);
    refused(CX_KNOB_VERBOSE, "3", "is outside the range (an integer in 0..2)", 1, 2);
    refused(CX_KNOB_VERBOSE, "-1", "is outside the range (an integer in 0..2)", 1, 0);
    refused(CX_KNOB_VERBOSE, "1K", "is not an integer in 0..2", 0, 0);   /* no suffix */
    refused(CX_KNOB_VERBOSE, "1.0", "is not an integer in 0..2", 0, 0);
    refused(CX_KNOB_VERBOSE, "yes", "is not an integer in 0..2", 0, 0);
    refused(CX_KNOB_VERBOSE, "", "is empty", 0, 0);
    refused(CX_KNOB_VERBOSE, NULL, "is empty", 0, 0);
    /* COLLX_HIER_SENDERS: 1..4096, no default: refused, not clamped */
    parses(CX_KNOB_HIER_SENDERS, "8", 8, 8);
    parses(CX_KNOB_HIER_SENDERS, "4096", 4096, 4096);
    refused(CX_KNOB_HIER_SENDERS, "0", "is outside the range (an integer in 1..4096)", 0, 0);
    refused(CX_KNOB_HIER_SENDERS, "4097", "is outside the range (an integer in 1..4096)", 0, 0);
    /* COLLX_TUW_DIRECT_THRESHOLD: -1..LLONG_MAX, clamped */
    parses(CX_KNOB_TUW_DIRECT_THRESHOLD, "-1", -1, -1);
    parses(CX_KNOB_TUW_DIRECT_THRESHOLD, "9223372036854775807", LLONG_MAX, (double)LLONG_MAX);
    refused(CX_KNOB_TUW_DIRECT_THRESHOLD, "-2", "is outside the range (an integer >= -1)", 1, -1);
    refused(CX_KNOB_TUW_DIRECT_THRESHOLD, "9223372036854775808", "is not an integer >= -1", 0, 0);
    /* COLLX_TOPO_FULL_MAX: 0..INT_MAX, not clamped */
    refused(CX_KNOB_TOPO_FULL_MAX, "2147483648", "is outside the range (an integer >= 0)", 0, 0);
}

#define SUFFIXES " (suffix K, M, G: KiB, MiB, GiB)"

static void sizes(void)
{
    /* COLLX_SHM_MAX: 1..LLONG_MAX bytes, a bad value gives the default */
    parses(CX_KNOB_SHM_MAX, "4096", 4096, 4096);
    parses(CX_KNOB_SHM_MAX, "1k", 1024, 1024);
    parses(CX_KNOB_SHM_MAX, "256M", 256LL << 20, (double)(256LL << 20));
    parses(CX_KNOB_SHM_MAX, "2G", 2LL << 30, (double)(2LL << 30));
    parses(CX_KNOB_SHM_MAX, "3g ", 3LL << 30, (double)(3LL << 30));
    refused(CX_KNOB_SHM_MAX, "0", "is outside the range (bytes >= 1" SUFFIXES ")", 0, 0);
    refused(CX_KNOB_SHM_MAX, "-1K", "is outside the range (bytes >= 1" SUFFIXES ")", 0, 0);
    refused(CX_KNOB_SHM_MAX, "1.5M", "is not bytes >= 1" SUFFIXES, 0, 0);
    refused(CX_KNOB_SHM_MAX, "1KB", "is not bytes >= 1" SUFFIXES, 0, 0);
    refused(CX_KNOB_SHM_MAX, "1T", "is not bytes >= 1" SUFFIXES, 0, 0);
    refused(CX_KNOB_SHM_MAX, "M", "is not bytes >= 1" SUFFIXES, 0, 0);
    refused(CX_KNOB_SHM_MAX, "8589934592G", "is not bytes >= 1" SUFFIXES, 0, 0);   /* overflow */
    /* COLLX_RMA_LL_MAX: 0..256 MiB, clamped */
    parses(CX_KNOB_RMA_LL_MAX, "32K", 32768, 32768);
    parses(CX_KNOB_RMA_LL_MAX, "0", 0, 0);
    refused(CX_KNOB_RMA_LL_MAX, "1G", "is outside the range (bytes in 0..268435456" SUFFIXES ")",
            1, 1LL << 28);
}

static void reals(void)
{
    cx_knob_value v;
    char why[700];
    /* COLLX_TUNE_MARGIN: 0..0.9, clamped */
    parses(CX_KNOB_TUNE_MARGIN, "0.1", 0, 0.1);
    parses(CX_KNOB_TUNE_MARGIN, "1e-1", 0, 0.1);
    parses(CX_KNOB_TUNE_MARGIN, "0", 0, 0);
    EXPECT(cx_knob_parse(CX_KNOB_TUNE_MARGIN, "2", &v, why, sizeof why) == -1 && v.set &&
           v.r == 0.9 && !strcmp(why, "is outside the range (a number in 0..0.9)"),
           "COLLX_TUNE_MARGIN=2: clamped to 0.9 (got set=%d r=%g, \"%s\")", v.set, v.r, why);
    cx_knob_value_free(&v);
    EXPECT(cx_knob_parse(CX_KNOB_TUNE_MARGIN, "-0.5", &v, why, sizeof why) == -1 && v.set &&
           v.r == 0, "COLLX_TUNE_MARGIN=-0.5: clamped to 0");
    cx_knob_value_free(&v);
    refused(CX_KNOB_TUNE_MARGIN, "abc", "is not a number in 0..0.9", 0, 0);
    refused(CX_KNOB_TUNE_MARGIN, "nan", "is not a number in 0..0.9", 0, 0);
    refused(CX_KNOB_TUNE_MARGIN, "0.5x", "is not a number in 0..0.9", 0, 0);
    /* COLLX_SMPI_COPY_BW: 1..1e15, not clamped */
    parses(CX_KNOB_SMPI_COPY_BW, "5e9", 5000000000LL, 5e9);
    refused(CX_KNOB_SMPI_COPY_BW, "1e16", "is outside the range (a number in 1..1e+15)", 0, 0);
    refused(CX_KNOB_SMPI_COPY_BW, "inf", "is outside the range (a number in 1..1e+15)", 0, 0);
    refused(CX_KNOB_SMPI_COPY_BW, "0.5", "is outside the range (a number in 1..1e+15)", 0, 0);
}

static void enums(void)
{
    parses(CX_KNOB_FALLBACK, "silent", 0, 0);
    parses(CX_KNOB_FALLBACK, "print", 1, 1);
    parses(CX_KNOB_FALLBACK, "error", 2, 2);
    refused(CX_KNOB_FALLBACK, "PRINT", "is not one of silent, print, error", 0, 0);
    refused(CX_KNOB_FALLBACK, "print ", "is not one of silent, print, error", 0, 0);
    refused(CX_KNOB_FALLBACK, "1", "is not one of silent, print, error", 0, 0);
    parses(CX_KNOB_PROGRESS, "thread", 1, 1);
    refused(CX_KNOB_PROGRESS, "on", "is not one of off, thread", 0, 0);
    parses(CX_KNOB_HIER_NATIVE, "nonblocking", 1, 1);
}

static void texts(void)
{
    parses(CX_KNOB_FAKE_NODES, "0,1,0,2", 0, 0);
    parses(CX_KNOB_FAKE_NODES, "cyclic:3", 0, 0);
    parses(CX_KNOB_STATS, "1", 0, 0);          /* a string: not a number */
    parses(CX_KNOB_RULES, "/some/where/rules.json", 0, 0);
    parses(CX_KNOB_TUNE_CACHE, "off", 0, 0);
    refused(CX_KNOB_RULES, "", "is empty", 0, 0);
    refused(CX_KNOB_FAKE_NODES, "", "is empty", 0, 0);
}

static void algorithms(void)
{
    char list[1024], want[1200];
    const int bcast = CX_KNOB_ALGORITHM_OF(CX_COLL_BCAST);
    const int allreduce = CX_KNOB_ALGORITHM_OF(CX_COLL_ALLREDUCE);
    parses(bcast, "binomial", 0, 0);
    parses(bcast, "native", 0, 0);
    parses(bcast, "rma_binomial", 0, 0);
    algorithm_list("bcast", list, sizeof list);
    snprintf(want, sizeof want, "is not a bcast algorithm; valid: %s", list);
    refused(bcast, "tuw", want, 0, 0);   /* gather's, not bcast's */
    refused(bcast, "Binomial", want, 0, 0);
    algorithm_list("allreduce", list, sizeof list);
    snprintf(want, sizeof want, "is not an allreduce algorithm; valid: %s", list);
    refused(allreduce, "ring", want, 0, 0);
    /* COLLX_HIER_INTER: any collective's */
    parses(CX_KNOB_HIER_INTER, "bruck", 0, 0);
    parses(CX_KNOB_HIER_INTER, "tuw", 0, 0);
    parses(CX_KNOB_HIER_INTER, "native", 0, 0);
    refused(CX_KNOB_HIER_INTER, "fastest", "is not the name of a collx algorithm (collx_info "
            "lists them; native = the MPI's own)", 0, 0);
}

static void ranges(void)
{
    char list[1024], want[1200];
    range_is(CX_KNOB_VERBOSE, "an integer in 0..2");
    range_is(CX_KNOB_RANKS_PER_NODE, "an integer >= 1");
    range_is(CX_KNOB_TUW_DIRECT_THRESHOLD, "an integer >= -1");
    range_is(CX_KNOB_SHM_MAX, "bytes >= 1" SUFFIXES);
    range_is(CX_KNOB_RMA_LL_MAX, "bytes in 0..268435456" SUFFIXES);
    range_is(CX_KNOB_TUNE_MARGIN, "a number in 0..0.9");
    range_is(CX_KNOB_SMPI_COPY_BW, "a number in 1..1e+15");
    range_is(CX_KNOB_FALLBACK, "one of silent, print, error");
    range_is(CX_KNOB_FAKE_NODES, "text, as its meaning says");
    range_is(CX_KNOB_RULES, "a file name");
    range_is(CX_KNOB_HIER_INTER, "native or an algorithm's name (collx_info lists them)");
    algorithm_list("gatherv", list, sizeof list);
    snprintf(want, sizeof want, "a gatherv algorithm: %s", list);
    range_is(CX_KNOB_ALGORITHM_OF(CX_COLL_GATHERV), want);
    algorithm_list("allgather", list, sizeof list);
    snprintf(want, sizeof want, "an allgather algorithm: %s", list);
    range_is(CX_KNOB_ALGORITHM_OF(CX_COLL_ALLGATHER), want);
    /* enum and algorithm lists are cut to the buffer, never overrun */
    char small[12];
    cx_knob_range(CX_KNOB_FALLBACK, small, sizeof small);
    EXPECT(strlen(small) == sizeof small - 1, "a cut enum list fills the buffer: \"%s\"", small);
    cx_knob_range(CX_KNOB_ALGORITHM_OF(CX_COLL_BCAST), small, sizeof small);
    EXPECT(strlen(small) == sizeof small - 1, "a cut algorithm list fills the buffer: \"%s\"",
           small);
}

static void format(void)
{
    char buf[128];
    cx_knob_value v;
    char why[700];
    static const struct { cx_knob k; const char *in, *out; } cases[] = {
        {CX_KNOB_VERBOSE, " 2", "2"},
        {CX_KNOB_SHM_MAX, "1K", "1024"},
        {CX_KNOB_TUNE_MARGIN, "0.050", "0.05"},
        {CX_KNOB_SMPI_COPY_BW, "5000000000", "5e+09"},
        {CX_KNOB_FALLBACK, "print", "print"},
        {CX_KNOB_FAKE_NODES, "0,1", "0,1"},
        {CX_KNOB_HIER_INTER, "bruck", "bruck"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        EXPECT(!cx_knob_parse(cases[i].k, cases[i].in, &v, why, sizeof why), "%s", why);
        cx_knob_format(cases[i].k, &v, buf, sizeof buf);
        EXPECT(!strcmp(buf, cases[i].out), "%s=\"%s\" is shown as \"%s\", got \"%s\"",
               cx_knob_decls[cases[i].k].name, cases[i].in, cases[i].out, buf);
        cx_knob_value_free(&v);
    }
    cx_knob_value unset = {0};
    strcpy(buf, "x");
    cx_knob_format(CX_KNOB_VERBOSE, &unset, buf, sizeof buf);
    EXPECT_STR(buf, "");
}

/* ------------------------------------------------------------ the environment */
/* Sets (value NULL: unsets) name, reads the environment again and returns
 * what collx said about it. */
static const char *env_read(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
    capture_clear();
    cx_knobs_reread();
    return capture_text();
}

static void environment_defaults(void)
{
    capture_start();
    const char *said = env_read("COLLX_VERBOSE", NULL);
    EXPECT_STR(said, "");
    EXPECT_INT(cx_knob_int(CX_KNOB_VERBOSE), 0);
    EXPECT_INT(cx_knob_given(CX_KNOB_VERBOSE), 0);
    EXPECT(cx_knob_env(CX_KNOB_VERBOSE) == NULL, "COLLX_VERBOSE: no text of the environment");
    EXPECT_STR(cx_knob_str(CX_KNOB_VERBOSE), "0");
    EXPECT_INT(cx_knob_int(CX_KNOB_SHM_MAX), 256LL << 20);
    EXPECT_INT(cx_knob_int(CX_KNOB_FALLBACK), 0);
    EXPECT_STR(cx_knob_str(CX_KNOB_FALLBACK), "silent");
    EXPECT(cx_knob_real(CX_KNOB_TUNE_MARGIN) == 0.05, "COLLX_TUNE_MARGIN: 0.05");
    EXPECT(cx_knob_str(CX_KNOB_RULES) == NULL, "COLLX_RULES: no value");
    EXPECT(cx_knob_str(CX_KNOB_HIER_SENDERS) == NULL, "COLLX_HIER_SENDERS: no value");
    EXPECT_INT(cx_knob_bad(CX_KNOB_ALGORITHM_OF(CX_COLL_BCAST)), 0);
    EXPECT_STR(cx_verbose() == 0 ? "0" : "not 0", "0");
    /* empty is unset, silently */
    said = env_read("COLLX_VERBOSE", "");
    EXPECT_STR(said, "");
    EXPECT_INT(cx_knob_given(CX_KNOB_VERBOSE), 0);
    EXPECT(cx_knob_env(CX_KNOB_VERBOSE) == NULL, "COLLX_VERBOSE=\"\": no text");
    unsetenv("COLLX_VERBOSE");
}

static void environment_good(void)
{
    capture_start();
    const char *said = env_read("COLLX_SHM_MAX", "1M");
    EXPECT_STR(said, "");
    EXPECT_INT(cx_knob_int(CX_KNOB_SHM_MAX), 1 << 20);
    EXPECT_INT(cx_shm_max(), 1 << 20);
    EXPECT_INT(cx_knob_given(CX_KNOB_SHM_MAX), 1);
    EXPECT_STR(cx_knob_env(CX_KNOB_SHM_MAX), "1M");
    said = env_read("COLLX_VERBOSE", "2");
    EXPECT_INT(cx_verbose(), 2);
    said = env_read("COLLX_BCAST_ALGORITHM", "binomial");
    EXPECT_STR(said, "");
    EXPECT_STR(cx_knob_str(CX_KNOB_ALGORITHM_OF(CX_COLL_BCAST)), "binomial");
    unsetenv("COLLX_SHM_MAX");
    unsetenv("COLLX_VERBOSE");
    unsetenv("COLLX_BCAST_ALGORITHM");
}

/* What each policy does with a value it cannot use, and says (once per
 * reading). */
static void environment_bad(void)
{
    char list[1024], want[1400];
    capture_start();
    /* clamped */
    const char *said = env_read("COLLX_VERBOSE", "7");
    EXPECT_STR(said, "collx: COLLX_VERBOSE=7 is outside the range (an integer in 0..2); "
                     "using 2\n");
    EXPECT_INT(cx_knob_int(CX_KNOB_VERBOSE), 2);
    EXPECT_INT(cx_knob_given(CX_KNOB_VERBOSE), 1);
    EXPECT_STR(cx_knob_str(CX_KNOB_VERBOSE), "2");
    EXPECT_STR(cx_knob_env(CX_KNOB_VERBOSE), "7");
    unsetenv("COLLX_VERBOSE");
    said = env_read("COLLX_TUNE_MARGIN", "2");
    EXPECT_STR(said, "collx: COLLX_TUNE_MARGIN=2 is outside the range (a number in 0..0.9); "
                     "using 0.9\n");
    EXPECT(cx_knob_real(CX_KNOB_TUNE_MARGIN) == 0.9, "COLLX_TUNE_MARGIN=2: 0.9");
    unsetenv("COLLX_TUNE_MARGIN");
    /* the default */
    said = env_read("COLLX_FALLBACK", "loud");
    EXPECT_STR(said, "collx: COLLX_FALLBACK=loud is not one of silent, print, error; using the "
                     "default silent\n");
    EXPECT_INT(cx_knob_int(CX_KNOB_FALLBACK), 0);
    EXPECT_INT(cx_knob_given(CX_KNOB_FALLBACK), 0);
    EXPECT_STR(cx_knob_env(CX_KNOB_FALLBACK), "loud");
    unsetenv("COLLX_FALLBACK");
    said = env_read("COLLX_SHM_MAX", "0");
    EXPECT_STR(said, "collx: COLLX_SHM_MAX=0 is outside the range (bytes >= 1" SUFFIXES
                     "); using the default 256M\n");
    EXPECT_INT(cx_knob_int(CX_KNOB_SHM_MAX), 256LL << 20);
    unsetenv("COLLX_SHM_MAX");
    /* as if unset (no default) */
    said = env_read("COLLX_HIER_SENDERS", "0");
    EXPECT_STR(said, "collx: COLLX_HIER_SENDERS=0 is outside the range (an integer in 1..4096); "
                     "as if unset: one per 64 KiB of data (allreduce: per 2 KiB), up to 8\n");
    EXPECT(cx_knob_str(CX_KNOB_HIER_SENDERS) == NULL, "COLLX_HIER_SENDERS=0: no value");
    EXPECT_INT(cx_knob_given(CX_KNOB_HIER_SENDERS), 0);
    unsetenv("COLLX_HIER_SENDERS");
    /* an error its users return */
    said = env_read("COLLX_BCAST_ALGORITHM", "fastest");
    algorithm_list("bcast", list, sizeof list);
    snprintf(want, sizeof want, "collx: COLLX_BCAST_ALGORITHM=fastest is not a bcast algorithm; "
             "valid: %s; the calls that need it fail with MPI_ERR_ARG\n", list);
    EXPECT_STR(said, want);
    EXPECT_INT(cx_knob_bad(CX_KNOB_ALGORITHM_OF(CX_COLL_BCAST)), 1);
    EXPECT(cx_knob_str(CX_KNOB_ALGORITHM_OF(CX_COLL_BCAST)) == NULL, "no bcast algorithm");
    EXPECT_INT(cx_knob_bad(CX_KNOB_ALGORITHM_OF(CX_COLL_GATHER)), 0);
    /* read again: said again, once */
    said = env_read("COLLX_BCAST_ALGORITHM", "fastest");
    EXPECT(strstr(said, "fastest") && !strstr(strstr(said, "fastest") + 8, "fastest is"),
           "said once per reading: \"%s\"", said);
    unsetenv("COLLX_BCAST_ALGORITHM");
    said = env_read("COLLX_BCAST_ALGORITHM", NULL);
    EXPECT_STR(said, "");
    EXPECT_INT(cx_knob_bad(CX_KNOB_ALGORITHM_OF(CX_COLL_BCAST)), 0);
}

static void system_env(void)
{
    setenv("COLLX_UNIT_SYSTEM", "here", 1);
    EXPECT_STR(cx_env_system("COLLX_UNIT_SYSTEM"), "here");
    setenv("COLLX_UNIT_SYSTEM", "", 1);
    EXPECT(cx_env_system("COLLX_UNIT_SYSTEM") == NULL, "an empty variable is unset");
    unsetenv("COLLX_UNIT_SYSTEM");
    EXPECT(cx_env_system("COLLX_UNIT_SYSTEM") == NULL, "an unset variable");
}

/* ------------------------------------------------------------ per call */
static void per_call(void)
{
    char why[700], text[256];
    cx_knob_param p[2];
    EXPECT(!cx_knob_parse(CX_KNOB_HIER_INTER, "bruck", &p[0].v, why, sizeof why), "%s", why);
    EXPECT(!cx_knob_parse(CX_KNOB_HIER_SENDERS, "2", &p[1].v, why, sizeof why), "%s", why);
    p[0].knob = CX_KNOB_HIER_INTER;
    p[1].knob = CX_KNOB_HIER_SENDERS;
    cx_knob_params params = {.n = 2, .p = p, .rule = 3};
    capture_start();
    env_read("COLLX_HIER_SENDERS", "4");
    env_read("COLLX_BCAST_SEGMENTS", "16");
    EXPECT_INT(cx_knob_call_int(&params, CX_KNOB_HIER_SENDERS), 2);       /* the rule's */
    EXPECT_INT(cx_knob_call_int(NULL, CX_KNOB_HIER_SENDERS), 4);          /* the environment's */
    EXPECT_INT(cx_knob_call_int(&params, CX_KNOB_BCAST_SEGMENTS), 16);
    EXPECT_STR(cx_knob_call_str(&params, CX_KNOB_HIER_INTER), "bruck");
    EXPECT(cx_knob_call_str(NULL, CX_KNOB_HIER_INTER) == NULL, "no COLLX_HIER_INTER");
    EXPECT_INT(cx_knob_call_given(&params, CX_KNOB_HIER_INTER), 1);
    EXPECT_INT(cx_knob_call_given(NULL, CX_KNOB_HIER_INTER), 0);
    EXPECT_INT(cx_knob_call_given(&params, CX_KNOB_HIER_FOLD_COPY), 0);
    cx_knob_params_text(&params, text, sizeof text);
    EXPECT_STR(text, "COLLX_HIER_INTER=bruck COLLX_HIER_SENDERS=2");
    cx_knob_params_text(NULL, text, sizeof text);
    EXPECT_STR(text, "");
    EXPECT_INT(cx_knob_params_first_show(&params), 1);
    EXPECT_INT(cx_knob_params_first_show(&params), 0);
    unsetenv("COLLX_HIER_SENDERS");
    unsetenv("COLLX_BCAST_SEGMENTS");
    env_read("COLLX_HIER_SENDERS", NULL);
    cx_knob_value_free(&p[0].v);
    cx_knob_value_free(&p[1].v);
}

int main(void)
{
    unit_begin("unit_knobs");
    unit_run("knobs.find", find, 0);
    unit_run("knobs.table", table, 0);
    unit_run("knobs.int", ints, 0);
    unit_run("knobs.size", sizes, 0);
    unit_run("knobs.real", reals, 0);
    unit_run("knobs.enum", enums, 0);
    unit_run("knobs.string_path", texts, 0);
    unit_run("knobs.algorithm", algorithms, 0);
    unit_run("knobs.range", ranges, 0);
    unit_run("knobs.format", format, 0);
    unit_run("knobs.env_defaults", environment_defaults, 0);
    unit_run("knobs.env_good", environment_good, 0);
    unit_run("knobs.env_bad", environment_bad, 0);
    unit_run("knobs.env_system", system_env, 0);
    unit_run("knobs.per_call", per_call, 0);
    return unit_end();
}
