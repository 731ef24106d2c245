/* Online tuning in the COLLX_STATS report (its section, stats.h): one
 * row per call site that settled or tried, gathered at rank 0
 * (online_sites.c). */
#include <stdio.h>
#include "online.h"
#include "../util/util.h"
#include "../stats/stats.h"

static const char *chosen(const cx_online_site *s)
{
    return s->chosen >= 0 ? cx_algorithm_at(s->chosen)->name : "(trying)";
}

static const char *source(const cx_online_site *s)
{
    return s->from_cache ? "cache" : "trials";
}

/* "native 12.10, rabenseifner 9.80" */
static void tried(const cx_online_site *s, char *buf, size_t len)
{
    int n = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->ncand && n >= 0 && (size_t)n < len; i++)
        n += snprintf(buf + n, len - (size_t)n, "%s%s %.2f", i ? ", " : "",
                      cx_algorithm_at(s->cand[i])->name, s->us[i]);
}

static void table(FILE *f, const cx_online_site *s, int n)
{
    char text[600];
    fprintf(f, "collx: online tuning (COLLX_TUNE_ONLINE): per call site, what it settled "
            "on, from trials or the cache;\ntried: the slowest rank's median us per call of "
            "each candidate\n");
    fprintf(f, "%-21s %6s %5s %-22s %-20s %-6s %6s  %s\n", "collective", "p", "ppn",
            "msg size (B)", "chosen", "from", "trials", "tried");
    for (int i = 0; i < n; i++) {
        long long lo, hi;
        char range[48];
        cx_size_class_range(s[i].cls, &lo, &hi);
        snprintf(range, sizeof range, "%lld..%lld", lo, hi);
        tried(&s[i], text, sizeof text);
        fprintf(f, "%-21s %6d %5d %-22s %-20s %-6s %6d  %s\n", cx_coll_name((cx_coll)s[i].coll),
                s[i].comm_size, s[i].ranks_per_node, range, chosen(&s[i]), source(&s[i]),
                s[i].trials, text);
    }
    if (!n)
        fprintf(f, "(no call site settled)\n");
}

/* The stats CSV's columns: calls = trial calls, ranks = communicator
 * size, bytes = the size class's smallest message, seconds = the chosen
 * algorithm's time per call (0 from the cache), asked = trials or cache,
 * requirement = ranks per node, reason = what was tried. */
static void csv(FILE *f, const cx_online_site *s, int n)
{
    char text[600];
    for (int i = 0; i < n; i++) {
        long long lo, hi;
        double us = 0;
        cx_size_class_range(s[i].cls, &lo, &hi);
        for (int k = 0; k < s[i].ncand; k++)
            if (s[i].cand[k] == s[i].chosen)
                us = s[i].us[k];
        tried(&s[i], text, sizeof text);
        fprintf(f, "online,%s,%s,blocking,%d,%d,%lld,%.9f,%s,%d,\"%s\"" CX_PROFILE_CSV_EMPTY
                "\n",
                cx_coll_name((cx_coll)s[i].coll), chosen(&s[i]), s[i].trials, s[i].comm_size,
                lo, us * 1e-6, source(&s[i]), s[i].ranks_per_node, text);
    }
}

static void json(FILE *f, const cx_online_site *s, int n)
{
    fprintf(f, ",\n  \"online\": [");
    for (int i = 0; i < n; i++) {
        long long lo, hi;
        cx_size_class_range(s[i].cls, &lo, &hi);
        fprintf(f, "%s\n    {\"collective\": \"%s\", \"comm_size\": %d, \"ranks_per_node\": %d, "
                "\"msg_min\": %lld, \"msg_max\": %lld, \"chosen\": \"%s\", \"from\": \"%s\", "
                "\"trial_calls\": %d, \"tried\": [", i ? "," : "",
                cx_coll_name((cx_coll)s[i].coll), s[i].comm_size, s[i].ranks_per_node, lo, hi,
                chosen(&s[i]), source(&s[i]), s[i].trials);
        for (int k = 0; k < s[i].ncand; k++)
            fprintf(f, "%s{\"algorithm\": \"%s\", \"us\": %.3f}", k ? ", " : "",
                    cx_algorithm_at(s[i].cand[k])->name, s[i].us[k]);
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ]");
}

void cx_online_report(FILE *f, int format)
{
    const cx_online_site *s;
    int n = cx_online_sites(&s);
    if (n < 0)
        return;
    if (format == CX_STATS_JSON)
        json(f, s, n);
    else if (format == CX_STATS_CSV)
        csv(f, s, n);
    else
        table(f, s, n);
}
