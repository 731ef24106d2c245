#include <stdlib.h>
#include <string.h>
#include "cb_output.h"

void cb_table_add(cb_table *t, const cb_row *r)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->rows = realloc(t->rows, sizeof *t->rows * (size_t)t->cap);
    }
    t->rows[t->n++] = *r;
}

void cb_print_header(FILE *f, const cb_meta *m, const char *coll,
                     int problem_mode, int full)
{
    fprintf(f, "# collbench %s  p=%d ppn=%d", coll, m->p, m->ppn);
    if (m->nodes >= 0)
        fprintf(f, " nodes=%d", m->nodes);
    if (m->shape[0])
        fprintf(f, " shape=%s", m->shape);
    fprintf(f, " root=%s warmup=%d iters=%d platform=%s", m->root, m->warmup, m->iters,
            m->platform);
    if (m->max_delay_ms > 0)
        fprintf(f, " pap=uniform max_delay=%gms seed=%llu", m->max_delay_ms, m->seed);
    fprintf(f, "\n# times in us: r = max f_i - min a_i (run time), "
            "e = mean (f_i - a_i) (elapsed),\n#   t = max (f_i - a_i) (slowest process, Traff's tables)\n");
    if (problem_mode)
        fprintf(f, "# %-18s %-14s %-11s %6s %10s %10s", "coll", "alg", "problem",
                "b", "m", "m'");
    else
        fprintf(f, "# %-18s %-14s %10s", "coll", "alg", "size(B)");
    fprintf(f, " %11s %11s %11s %11s", "r_mean", "r_min", "r_max", "t_min");
    if (full)
        fprintf(f, " %11s %11s %11s %11s %11s", "r_median", "e_min", "e_median",
                "e_mean", "e_max");
    fprintf(f, " %s\n", "valid");
}

static const char *valid_str(int v) { return v < 0 ? "-" : v ? "ok" : "WRONG"; }

void cb_print_case(FILE *f, const cb_row *r, const cb_row *e, const cb_row *t,
                   int problem_mode, int full)
{
    if (problem_mode)
        fprintf(f, "  %-18s %-14s %-11s %6ld %10lld %10lld", r->coll, r->alg,
                r->problem, r->b, r->m, r->m_pad);
    else
        fprintf(f, "  %-18s %-14s %10ld", r->coll, r->alg, r->size_bytes);
    fprintf(f, " %11.2f %11.2f %11.2f %11.2f", r->s.mean, r->s.min, r->s.max,
            t->s.min);
    if (full)
        fprintf(f, " %11.2f %11.2f %11.2f %11.2f %11.2f", r->s.median, e->s.min,
                e->s.median, e->s.mean, e->s.max);
    fprintf(f, " %s\n", valid_str(r->valid));
}

void cb_print_verdict(FILE *f, const cb_row *g, double tol)
{
    fprintf(f, "  %s %s/%s %.2f us vs %s %.2f us: ratio %.2f (tolerance %.0f%%)%s\n",
            g->metric, g->coll, g->alg, g->s.min, g->ref, g->ref_us, g->ratio,
            100 * tol, g->violated ? "  VIOLATED" : "  ok");
}

/* Empty string for "not applicable" keeps the CSV tidy and typed. */
static void opt_long(FILE *f, long long v)
{
    if (v >= 0)
        fprintf(f, "%lld", v);
}

void cb_csv_header(FILE *f)
{
    fprintf(f, "kind,platform,coll,alg,p,ppn,root,size_bytes,problem,b,m,m_pad,"
            "max_delay_ms,seed,warmup,iters,metric,min_us,median_us,mean_us,"
            "max_us,valid,ref,ref_us,ratio,violated,ran,host_s,nodes,shape,first_us\n");
}

void cb_csv_row(FILE *f, const cb_meta *m, const cb_row *r)
{
    int g = strcmp(r->kind, "guideline") == 0;
    fprintf(f, "%s,%s,%s,%s,%d,%d,%s,", r->kind, m->platform, r->coll, r->alg,
            m->p, m->ppn, m->root);
    opt_long(f, r->size_bytes);
    fprintf(f, ",%s,", r->problem);
    opt_long(f, r->b);
    fputc(',', f);
    opt_long(f, r->m);
    fputc(',', f);
    opt_long(f, r->m_pad);
    fprintf(f, ",%g,%llu,%d,%d,%s,%.3f,%.3f,%.3f,%.3f,", m->max_delay_ms,
            m->seed, m->warmup, m->iters, r->metric, r->s.min, r->s.median,
            r->s.mean, r->s.max);
    if (r->valid >= 0)
        fprintf(f, "%d", r->valid);
    if (g)
        fprintf(f, ",%s,%.3f,%.4f,%d", r->ref, r->ref_us, r->ratio, r->violated);
    else
        fprintf(f, ",,,,");
    fprintf(f, ",%s,", r->ran);
    if (r->host_s >= 0)
        fprintf(f, "%.4f", r->host_s);
    fputc(',', f);
    opt_long(f, m->nodes);
    fprintf(f, ",%s,", m->shape);
    if (r->first_us >= 0)
        fprintf(f, "%.3f", r->first_us);
    fputc('\n', f);
}

int cb_write_csv(const char *path, const cb_meta *m, const cb_table *t)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    cb_csv_header(f);
    for (int i = 0; i < t->n; i++)
        cb_csv_row(f, m, &t->rows[i]);
    return fclose(f);
}

static void json_str(FILE *f, const char *k, const char *v)
{
    fprintf(f, "\"%s\": \"", k);
    for (; *v; v++) {
        if (*v == '"' || *v == '\\')
            fputc('\\', f);
        if ((unsigned char)*v >= 0x20)
            fputc(*v, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, const char *k, long long v)
{
    if (v >= 0)
        fprintf(f, ", \"%s\": %lld", k, v);
    else
        fprintf(f, ", \"%s\": null", k);
}

int cb_write_json(const char *path, const cb_meta *m, const cb_table *t,
                  const char *cmdline)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\"schema\": \"collbench/1\",\n \"meta\": {");
    json_str(f, "platform", m->platform);
    fprintf(f, ", \"p\": %d, \"ppn\": %d", m->p, m->ppn);
    json_num(f, "nodes", m->nodes);
    fputs(", ", f);
    json_str(f, "shape", m->shape);
    fputs(", ", f);
    json_str(f, "root", m->root);
    fprintf(f, ", \"warmup\": %d, \"iters\": %d, \"max_delay_ms\": %g, \"seed\": %llu, ",
            m->warmup, m->iters, m->max_delay_ms, m->seed);
    json_str(f, "command", cmdline);
    fprintf(f, "},\n \"rows\": [");
    for (int i = 0; i < t->n; i++) {
        const cb_row *r = &t->rows[i];
        fprintf(f, "%s\n  {", i ? "," : "");
        json_str(f, "kind", r->kind);
        fputs(", ", f);
        json_str(f, "coll", r->coll);
        fputs(", ", f);
        json_str(f, "alg", r->alg);
        fputs(", ", f);
        json_str(f, "ran", r->ran);
        json_num(f, "size_bytes", r->size_bytes);
        fputs(", ", f);
        json_str(f, "problem", r->problem);
        json_num(f, "b", r->b);
        json_num(f, "m", r->m);
        json_num(f, "m_pad", r->m_pad);
        fputs(", ", f);
        json_str(f, "metric", r->metric);
        fprintf(f, ", \"min_us\": %.3f, \"median_us\": %.3f, \"mean_us\": %.3f, "
                "\"max_us\": %.3f", r->s.min, r->s.median, r->s.mean, r->s.max);
        if (r->host_s >= 0)
            fprintf(f, ", \"host_s\": %.4f", r->host_s);
        else
            fprintf(f, ", \"host_s\": null");
        if (r->first_us >= 0)
            fprintf(f, ", \"first_us\": %.3f", r->first_us);
        else
            fprintf(f, ", \"first_us\": null");
        if (r->valid >= 0)
            fprintf(f, ", \"valid\": %s", r->valid ? "true" : "false");
        else
            fprintf(f, ", \"valid\": null");
        if (!strcmp(r->kind, "guideline")) {
            fputs(", ", f);
            json_str(f, "ref", r->ref);
            fprintf(f, ", \"ref_us\": %.3f, \"ratio\": %.4f, \"violated\": %s",
                    r->ref_us, r->ratio, r->violated ? "true" : "false");
        }
        fputc('}', f);
    }
    fprintf(f, "\n]}\n");
    return fclose(f);
}
