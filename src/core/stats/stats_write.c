/* The COLLX_STATS report in its three forms: a table for people, CSV and
 * JSON for tools. Rows: every (collective, algorithm that ran, blocking
 * or nonblocking) some rank counted a call for, in the order of the list
 * of collectives and of the catalogue; then every (collective, algorithm
 * asked for, blocking or nonblocking, reason) some rank handed a call
 * over for; then the job and its profile, and the calls beyond the rules
 * (profile_write.c); then, under COLLX_TUNE_ONLINE, its call sites
 * (online_report.c). */
#include <stdlib.h>
#include "stats.h"
#include "../util/util.h"

/* How the figures add up (issue 63): calls and rank seconds add up over
 * rows, the slowest rank's seconds do not (each row's slowest rank is
 * another, and their calls overlap in time). */
static const char *const units[][2] = {
    {"calls", "the most any rank made"},
    {"ranks", "ranks that made such calls"},
    {"bytes", "send + receive payload, summed over ranks"},
    {"seconds", "the slowest rank's total time in these calls (does not add up over rows)"},
    {"rank_seconds", "the time in these calls summed over ranks (adds up over rows)"},
    {"share", "rank_seconds / (job.ranks * job.seconds): the job's rank time these calls "
              "took (adds up over rows)"},
};

/* What a row is about: its collective, algorithm (the one asked for, in
 * a fallback row), mode and reason. */
typedef struct row {
    const char *coll, *alg, *mode, *ran, *requirement, *why;
    int at;   /* index into the report's arrays */
} row;

/* The rows of one kind (served or fallback), in order; n rows into out
 * (NULL: just count them). */
static int rows(const cx_stats_report *r, int fallback, row *out)
{
    int n = 0, per = fallback ? CX_STATS_FALLBACK_SLOTS : 2;
    for (int c = 0; c < CX_COLL_COUNT; c++)
        for (int i = 0; i < r->nalgs; i++) {
            const cx_algorithm *alg = cx_algorithm_at(i);
            if (!alg || alg->coll != (cx_coll)c)
                continue;
            for (int k = 0; k < per; k++) {
                int at = per * i + k;
                if ((fallback ? r->fallbacks[at] : r->calls[at]) <= 0)
                    continue;
                if (out) {
                    const cx_algorithm *to = cx_algorithm_at((int)r->fallback_to[at]);
                    const char *req = cx_req_text(cx_stats_reason_bit(k % CX_STATS_REASONS));
                    int nonblocking = fallback ? k / CX_STATS_REASONS : k;
                    out[n] = (row){.coll = cx_coll_name(alg->coll), .alg = alg->name,
                                   .mode = nonblocking ? "nonblocking" : "blocking",
                                   .ran = fallback && to ? to->name : "?",
                                   .requirement = req ? req : "?", .at = at};
                    out[n].why = fallback && r->why && r->why[at] && *r->why[at] ? r->why[at]
                                                                        : out[n].requirement;
                }
                n++;
            }
        }
    return n;
}

static void table(FILE *f, const cx_stats_report *r, const row *s, int ns, const row *b,
                  int nb)
{
    fprintf(f, "collx: COLLX_STATS, %d ranks; calls: %s; bytes: %s;\n"
            "time: %s\n", r->ranks, units[0][1], units[2][1], units[3][1]);
    fprintf(f, "%-21s %-20s %-11s %8s %6s %16s %12s %10s\n", "collective", "algorithm",
            "mode", "calls", "ranks", "bytes", "time (s)", "us/call");
    for (int i = 0; i < ns; i++) {
        int at = s[i].at;
        fprintf(f, "%-21s %-20s %-11s %8lld %6lld %16lld %12.6f %10.2f\n", s[i].coll,
                s[i].alg, s[i].mode, r->calls[at], r->served_ranks[at], r->bytes[at],
                r->nanoseconds[at] * 1e-9, r->nanoseconds[at] * 1e-3 / (double)r->calls[at]);
    }
    if (!ns)
        fprintf(f, "(no collective calls)\n");
    fprintf(f, "collx: fallbacks (asked for -> reason -> calls: the most any rank handed "
            "over)\n");
    fprintf(f, "%-21s %-20s %-20s %-11s %8s %6s  %s\n", "collective", "asked for",
            "ran instead", "mode", "calls", "ranks", "reason");
    for (int i = 0; i < nb; i++)
        fprintf(f, "%-21s %-20s %-20s %-11s %8lld %6lld  %s\n", b[i].coll, b[i].alg, b[i].ran,
                b[i].mode, r->fallbacks[b[i].at], r->fallback_ranks[b[i].at], b[i].why);
    if (!nb)
        fprintf(f, "(none)\n");
}

/* A CSV field in quotes, quotes doubled. */
static void csv_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv(FILE *f, const cx_stats_report *r, const row *s, int ns, const row *b, int nb)
{
    fprintf(f, "table,collective,algorithm,mode,calls,ranks,bytes,seconds,asked,requirement,"
            "reason," CX_PROFILE_CSV_COLUMNS "\n");
    for (int i = 0; i < ns; i++) {
        int at = s[i].at;
        fprintf(f, "served,%s,%s,%s,%lld,%lld,%lld,%.9f,,," CX_PROFILE_CSV_EMPTY "\n",
                s[i].coll, s[i].alg, s[i].mode, r->calls[at], r->served_ranks[at],
                r->bytes[at], r->nanoseconds[at] * 1e-9);
    }
    for (int i = 0; i < nb; i++) {
        fprintf(f, "fallback,%s,%s,%s,%lld,%lld,,,%s,", b[i].coll, b[i].ran, b[i].mode,
                r->fallbacks[b[i].at], r->fallback_ranks[b[i].at], b[i].alg);
        csv_text(f, b[i].requirement);
        fputc(',', f);
        csv_text(f, b[i].why);
        fputs(CX_PROFILE_CSV_EMPTY "\n", f);
    }
}

static void json(FILE *f, const cx_stats_report *r, const row *s, int ns, const row *b,
                 int nb)
{
    char collx[CX_MAX_LIBRARY_VERSION_STRING];
    CX_Get_library_version(collx, sizeof collx, NULL);
    fprintf(f, "{\n  \"collx\": ");
    cx_json_write_string(f, collx);
    /* the rules file and what it serves, as the verbose banner says it */
    const char *rules = cx_knob_env(CX_KNOB_RULES);
    fprintf(f, ",\n  \"rules\": ");
    if (rules) {
        char described[400];
        cx_rules_describe(described, sizeof described);
        fprintf(f, "{\"file\": ");
        cx_json_write_string(f, rules);
        fprintf(f, ", \"serves\": ");
        cx_json_write_string(f, described);
        fprintf(f, "}");
    } else {
        fprintf(f, "null");
    }
    fprintf(f, ",\n  \"ranks\": %d", r->ranks);
    if (r->profile)
        cx_profile_write_job(f, r->profile, CX_STATS_JSON);
    fprintf(f, ",\n  \"units\": {");
    for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
        fprintf(f, "%s\n    \"%s\": ", u ? "," : "", units[u][0]);
        cx_json_write_string(f, units[u][1]);
    }
    fprintf(f, "\n  },\n  \"served\": [");
    for (int i = 0; i < ns; i++) {
        int at = s[i].at;
        fprintf(f, "%s\n    {\"collective\": \"%s\", \"algorithm\": \"%s\", \"mode\": \"%s\", "
                "\"calls\": %lld, \"ranks\": %lld, \"bytes\": %lld, \"seconds\": %.9f}",
                i ? "," : "", s[i].coll, s[i].alg, s[i].mode, r->calls[at],
                r->served_ranks[at], r->bytes[at], r->nanoseconds[at] * 1e-9);
    }
    fprintf(f, "\n  ],\n  \"fallbacks\": [");
    for (int i = 0; i < nb; i++) {
        fprintf(f, "%s\n    {\"collective\": \"%s\", \"asked\": \"%s\", \"ran\": \"%s\", "
                "\"mode\": \"%s\", \"requirement\": ", i ? "," : "", b[i].coll, b[i].alg,
                b[i].ran, b[i].mode);
        cx_json_write_string(f, b[i].requirement);
        fprintf(f, ", \"reason\": ");
        cx_json_write_string(f, b[i].why);
        fprintf(f, ", \"calls\": %lld, \"ranks\": %lld}", r->fallbacks[b[i].at],
                r->fallback_ranks[b[i].at]);
    }
    fprintf(f, "\n  ]");
    if (r->profile)
        cx_profile_write(f, r->profile, CX_STATS_JSON);
    cx_stats_write_sections(f, CX_STATS_JSON);
    fprintf(f, "\n}\n");
}

void cx_stats_write(FILE *f, const cx_stats_report *r, int format)
{
    int ns = rows(r, 0, NULL), nb = rows(r, 1, NULL);
    row *s = malloc(sizeof *s * (size_t)(ns + nb + 1));
    if (!s) {
        fprintf(stderr, "collx: COLLX_STATS: out of memory for the report\n");
        return;
    }
    row *b = s + ns;
    rows(r, 0, s);
    rows(r, 1, b);
    if (format == CX_STATS_JSON) {
        json(f, r, s, ns, b, nb);
    } else {
        (format == CX_STATS_CSV ? csv : table)(f, r, s, ns, b, nb);
        if (r->profile) {
            cx_profile_write_job(f, r->profile, format);
            cx_profile_write(f, r->profile, format);
        }
        cx_stats_write_sections(f, format);
    }
    free(s);
}

/* ------------------------------------------------- sections of rooms above */
#define MAX_SECTIONS 4
static const cx_stats_section *_Atomic sections[MAX_SECTIONS];

void cx_stats_add_section(const cx_stats_section *sec)
{
    for (int i = 0; i < MAX_SECTIONS; i++) {
        const cx_stats_section *none = NULL;
        if (atomic_load(&sections[i]) == sec ||
            atomic_compare_exchange_strong(&sections[i], &none, sec))
            return;
    }
}

void cx_stats_prepare_sections(void)
{
    for (int i = 0; i < MAX_SECTIONS; i++) {
        const cx_stats_section *sec = atomic_load(&sections[i]);
        if (sec && sec->prepare)
            sec->prepare();
    }
}

void cx_stats_write_sections(FILE *f, int format)
{
    for (int i = 0; i < MAX_SECTIONS; i++) {
        const cx_stats_section *sec = atomic_load(&sections[i]);
        if (sec && sec->write)
            sec->write(f, format);
    }
}
