/* The profile's parts of the COLLX_STATS report (stats.h), in its three
 * forms: the job (ranks, nodes, ranks per node, wall time), a row per
 * (collective, mode, communicator size, ranks per node, nodes, class of
 * message sizes) with calls and time, and a row per (collective,
 * communicator size, ranks per node, rule) of the calls beyond the rules.
 * The tuner (`collx tune --profile`) reads the JSON: the fields are
 * documented in docs/guide/statistics.md. */
#include "stats.h"

/* A count the report may not know (-1): JSON null. */
static void json_int(FILE *f, const char *key, long long v)
{
    if (v < 0)
        fprintf(f, "\"%s\": null", key);
    else
        fprintf(f, "\"%s\": %lld", key, v);
}

/* A row's rank seconds over the job's: its share of the job's rank time
 * (0 when the job's time is unknown). */
static double share(const cx_stats_profile *p, const cx_stats_profile_row *r)
{
    double job = (double)p->job.ranks * p->job.seconds;
    return job > 0 ? r->rank_ns * 1e-9 / job : 0;
}

static const char *alg_name(int i)
{
    const cx_algorithm *a = cx_algorithm_at(i);
    return a ? a->name : "?";
}

void cx_profile_write_job(FILE *f, const cx_stats_profile *p, int format)
{
    const cx_stats_job *j = &p->job;
    if (format == CX_STATS_JSON) {
        fprintf(f, ",\n  \"job\": {\"ranks\": %d, ", j->ranks);
        json_int(f, "nodes", j->nodes);
        fprintf(f, ", ");
        json_int(f, "ranks_per_node", j->ranks_per_node);
        fprintf(f, ", \"seconds\": %.9f}", j->seconds);
    } else if (format == CX_STATS_CSV) {
        fprintf(f, "job,,,,,%d,,%.9f,,,,%d,%d,%d,,,,\n", j->ranks, j->seconds, j->ranks,
                j->ranks_per_node, j->nodes);
    } else {
        fprintf(f, "collx: the job: %d ranks on %d node%s (at most %d per node), %.6f s from "
                "MPI_Init to MPI_Finalize (the slowest rank)\n", j->ranks, j->nodes,
                j->nodes == 1 ? "" : "s", j->ranks_per_node, j->seconds);
    }
}

static void json(FILE *f, const cx_stats_profile *p)
{
    fprintf(f, ",\n  \"profile\": [");
    for (int i = 0; i < p->nrows; i++) {
        const cx_stats_profile_row *r = &p->rows[i];
        long long lo, hi;
        cx_size_class_range(r->cls, &lo, &hi);
        fprintf(f, "%s\n    {\"collective\": \"%s\", \"mode\": \"%s\", \"comm_size\": %d, ",
                i ? "," : "", cx_coll_name((cx_coll)r->coll),
                r->nonblocking ? "nonblocking" : "blocking", r->comm_size);
        json_int(f, "ranks_per_node", r->ranks_per_node);
        fprintf(f, ", ");
        json_int(f, "nodes", r->nodes);
        fprintf(f, ", \"msg_lo\": %lld, \"msg_hi\": %lld", lo, hi);
        fprintf(f, ", \"calls\": %lld, \"ranks\": %lld, \"seconds\": %.9f, \"rank_seconds\": "
                "%.9f, \"share\": %.6f}", r->calls, r->ranks, r->ns * 1e-9, r->rank_ns * 1e-9,
                share(p, r));
    }
    fprintf(f, "\n  ],\n  \"beyond\": [");
    for (int i = 0; i < p->nbeyond; i++) {
        const cx_stats_beyond_row *b = &p->beyond[i];
        fprintf(f, "%s\n    {\"collective\": \"%s\", \"comm_size\": %d, ", i ? "," : "",
                cx_coll_name((cx_coll)b->coll), b->comm_size);
        json_int(f, "ranks_per_node", b->ranks_per_node);
        fprintf(f, ", ");
        json_int(f, "nodes", b->nodes);
        fprintf(f, ", ");
        json_int(f, "rule", b->rule);
        fprintf(f, ", \"algorithm\": \"%s\", \"calls\": %lld, \"ranks\": %lld}",
                alg_name(b->alg), b->calls, b->ranks);
    }
    fprintf(f, "\n  ]");
}

/* The CSV's columns: those of the served rows (calls, ranks, seconds) and
 * CX_PROFILE_CSV_COLUMNS; a beyond row's algorithm is the one the rule
 * picks. */
static void csv(FILE *f, const cx_stats_profile *p)
{
    for (int i = 0; i < p->nrows; i++) {
        const cx_stats_profile_row *r = &p->rows[i];
        long long lo, hi;
        cx_size_class_range(r->cls, &lo, &hi);
        fprintf(f, "profile,%s,,%s,%lld,%lld,,%.9f,,,,%d,%d,%d,%lld,%lld,%.9f,\n",
                cx_coll_name(r->coll), r->nonblocking ? "nonblocking" : "blocking", r->calls,
                r->ranks, r->ns * 1e-9, r->comm_size, r->ranks_per_node, r->nodes, lo, hi,
                r->rank_ns * 1e-9);
    }
    for (int i = 0; i < p->nbeyond; i++) {
        const cx_stats_beyond_row *b = &p->beyond[i];
        fprintf(f, "beyond,%s,%s,,%lld,%lld,,,,,,%d,%d,%d,,,,", cx_coll_name(b->coll),
                alg_name(b->alg), b->calls, b->ranks, b->comm_size, b->ranks_per_node, b->nodes);
        if (b->rule >= 0)
            fprintf(f, "%d", b->rule);
        fputc('\n', f);
    }
}

static void table(FILE *f, const cx_stats_profile *p)
{
    double total = 0;
    fprintf(f, "collx: profile (per collective, communicator size p, ranks per node, message "
            "size; time: the slowest rank's, rank time: summed over ranks, share: of the "
            "job's rank time)\n");
    fprintf(f, "%-21s %-11s %6s %5s %6s %-22s %8s %6s %12s %14s %7s\n", "collective", "mode",
            "p", "ppn", "nodes", "msg size (B)", "calls", "ranks", "time (s)", "rank time (s)",
            "share");
    for (int i = 0; i < p->nrows; i++) {
        const cx_stats_profile_row *r = &p->rows[i];
        long long lo, hi;
        char range[48];
        cx_size_class_range(r->cls, &lo, &hi);
        snprintf(range, sizeof range, "%lld..%lld", lo, hi);
        fprintf(f, "%-21s %-11s %6d %5d %6d %-22s %8lld %6lld %12.6f %14.6f %6.2f%%\n",
                cx_coll_name(r->coll), r->nonblocking ? "nonblocking" : "blocking",
                r->comm_size, r->ranks_per_node, r->nodes, range, r->calls, r->ranks,
                r->ns * 1e-9, r->rank_ns * 1e-9, 100 * share(p, r));
        total += share(p, r);
    }
    if (!p->nrows)
        fprintf(f, "(no collective calls)\n");
    else
        fprintf(f, "collx: calls, rank time and share add up over the rows (each call in one "
                "row): %.2f%% of the job's rank time in these calls; the slowest rank's time "
                "does not (each row's is another rank's)\n", 100 * total);
    if (!p->nbeyond)
        return;
    fprintf(f, "collx: beyond the rules (COLLX_RULES: calls no rule held, by the rule that "
            "picked; -: native)\n");
    fprintf(f, "%-21s %6s %5s %6s %6s %-20s %8s %6s\n", "collective", "p", "ppn", "nodes",
            "rule", "algorithm", "calls", "ranks");
    for (int i = 0; i < p->nbeyond; i++) {
        const cx_stats_beyond_row *b = &p->beyond[i];
        char rule[16] = "-";
        if (b->rule >= 0)
            snprintf(rule, sizeof rule, "%d", b->rule);
        fprintf(f, "%-21s %6d %5d %6d %6s %-20s %8lld %6lld\n", cx_coll_name(b->coll),
                b->comm_size, b->ranks_per_node, b->nodes, rule, alg_name(b->alg), b->calls,
                b->ranks);
    }
}

void cx_profile_write(FILE *f, const cx_stats_profile *p, int format)
{
    if (format == CX_STATS_JSON)
        json(f, p);
    else if (format == CX_STATS_CSV)
        csv(f, p);
    else
        table(f, p);
}
