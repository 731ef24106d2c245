/* The machine fingerprint under which online tuning keeps its choices
 * (online.h): the MPI library's version string, collx's version and
 * catalogue, the job's ranks, nodes and ranks per node, and the host's CPU
 * model. A choice measured under one fingerprint says nothing about
 * another. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "online.h"
#include "../util/util.h"


/* Runs of white space (MPICH's string has several lines) become one
 * space; none at the ends. */
static void squeeze(char *s)
{
    char *out = s;
    for (const char *p = s; *p; p++) {
        if (isspace((unsigned char)*p)) {
            if (out != s && out[-1] != ' ')
                *out++ = ' ';
        } else {
            *out++ = *p;
        }
    }
    while (out != s && out[-1] == ' ')
        out--;
    *out = '\0';
}

/* The first of /proc/cpuinfo's model lines (x86: "model name"; others
 * name the model differently). */
static void cpu_model(char *out, size_t len)
{
    static const char *const keys[] = {"model name", "Model", "cpu model", "Hardware",
                                       "CPU part", NULL};
    char line[512];
    snprintf(out, len, "unknown");
    for (int k = 0; keys[k]; k++) {
        FILE *f = fopen("/proc/cpuinfo", "r");
        if (!f)
            return;
        size_t n = strlen(keys[k]);
        while (fgets(line, sizeof line, f)) {
            char *colon = strchr(line, ':');
            if (colon && !strncmp(line, keys[k], n) &&
                (isspace((unsigned char)line[n]) || line[n] == ':')) {
                snprintf(out, len, "%s", colon + 1);
                squeeze(out);
                fclose(f);
                return;
            }
        }
        fclose(f);
    }
}

/* FNV-1a, 64 bits, over every field: the cache file's name. */
static unsigned long long fnv(unsigned long long h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (h ^ '\n') * 0x100000001b3ull;
}

void cx_fingerprint_make(cx_fingerprint *f, int ranks, int nodes, int ranks_per_node)
{
    int len = 0;
    char num[64];
    memset(f, 0, sizeof *f);
    PMPI_Get_library_version(f->mpi, &len);
    squeeze(f->mpi);
    snprintf(f->collx, sizeof f->collx, "%d.%d.%d (%d algorithms)", COLLX_VERSION_MAJOR,
             COLLX_VERSION_MINOR, COLLX_VERSION_PATCH, cx_algorithm_total());
    f->ranks = ranks;
    f->nodes = nodes;
    f->ranks_per_node = ranks_per_node;
    cpu_model(f->cpu, sizeof f->cpu);
    unsigned long long h = 0xcbf29ce484222325ull;
    h = fnv(fnv(h, f->mpi), f->collx);
    snprintf(num, sizeof num, "%d %d %d", ranks, nodes, ranks_per_node);
    f->hash = fnv(fnv(h, num), f->cpu);
}

void cx_fingerprint_write(FILE *out, const cx_fingerprint *f)
{
    fprintf(out, "{\"hash\": \"%016llx\", \"mpi\": ", f->hash);
    cx_json_write_string(out, f->mpi);
    fprintf(out, ",\n                  \"collx\": ");
    cx_json_write_string(out, f->collx);
    fprintf(out, ", \"ranks\": %d, \"nodes\": %d, \"ranks_per_node\": %d,\n"
            "                  \"cpu\": ", f->ranks, f->nodes, f->ranks_per_node);
    cx_json_write_string(out, f->cpu);
    fputc('}', out);
}

static int same_text(const cx_json *j, const char *key, const char *want)
{
    const cx_json *v = cx_json_member(j, key);
    return v && v->kind == CX_JSON_STRING && !strcmp(v->string, want);
}

static int same_number(const cx_json *j, const char *key, int want)
{
    const cx_json *v = cx_json_member(j, key);
    return v && v->kind == CX_JSON_NUMBER && v->number == want;
}

const char *cx_fingerprint_differs(const cx_fingerprint *f, const cx_json *j)
{
    if (!j || j->kind != CX_JSON_OBJECT)
        return "fingerprint";
    if (!same_text(j, "mpi", f->mpi))
        return "the MPI library";
    if (!same_text(j, "collx", f->collx))
        return "collx's version";
    if (!same_number(j, "ranks", f->ranks))
        return "the number of ranks";
    if (!same_number(j, "nodes", f->nodes))
        return "the number of nodes";
    if (!same_number(j, "ranks_per_node", f->ranks_per_node))
        return "the ranks per node";
    if (!same_text(j, "cpu", f->cpu))
        return "the CPU";
    return NULL;
}
