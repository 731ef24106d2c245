/* Online tuning's cache file (online.h): rank 0 makes the machine
 * fingerprint, reads the file kept under it and gives its choices to every
 * rank (online_start.c calls these at the start), and at the end writes
 * the file back with the new choices. The file is a rules file (rules.c)
 * of exact sites: it also serves as COLLX_RULES. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "online.h"
#include "../util/util.h"

/* A cached choice; every rank holds the list. */
typedef struct { int coll, comm_size, ranks_per_node, cls, alg; } choice;
#define CHOICE_INTS 5

static choice *cached;
static int ncached;
/* Rank 0: the file ("" for none), the fingerprint and the cached choices'
 * comments, written back with them. */
static char path[4096];
static cx_fingerprint print;
static char **comments;

static int say(void)
{
    return cx_verbose() > 0;
}

/* COLLX_TUNE_CACHE: off, a .json file, or a directory of <hash>.json;
 * unset: the XDG cache directory. */
static void file_path(void)
{
    const char *v = cx_knob_str(CX_KNOB_TUNE_CACHE), *base, *under = "";
    size_t len = v ? strlen(v) : 0;
    path[0] = '\0';
    if (v && (!strcmp(v, "off") || !strcmp(v, "0")))
        return;
    if (len > 5 && !strcmp(v + len - 5, ".json")) {
        snprintf(path, sizeof path, "%s", v);
        return;
    }
    if ((base = v))
        ;
    else if ((base = cx_env_system("XDG_CACHE_HOME")))
        under = "/collx/online";
    else if ((base = cx_env_system("HOME")))
        under = "/.cache/collx/online";
    else
        return;
    snprintf(path, sizeof path, "%s%s/%016llx.json", base, under, print.hash);
}

static int exact(const cx_json *r, const char *key, long long *lo, long long *hi)
{
    const cx_json *v = cx_json_member(r, key);
    const cx_json *mn = v ? cx_json_member(v, "min") : NULL;
    const cx_json *mx = v ? cx_json_member(v, "max") : NULL;
    if (!mn || !mx || mn->kind != CX_JSON_NUMBER || mx->kind != CX_JSON_NUMBER)
        return -1;
    *lo = (long long)mn->number;
    *hi = (long long)mx->number;
    return 0;
}

/* A rule as online tuning writes them: one site (a communicator size,
 * ranks per node and size class) of a collective it tunes. */
static int parse_choice(const cx_json *r, choice *c, const char **comment)
{
    const cx_json *coll = cx_json_member(r, "collective"), *alg = cx_json_member(r, "algorithm");
    const cx_json *text = cx_json_member(r, "comment");
    long long p, p2, k, k2, lo, hi, clo, chi;
    if (!coll || coll->kind != CX_JSON_STRING || !alg || alg->kind != CX_JSON_STRING)
        return -1;
    int i = cx_coll_from_name(coll->string);
    const cx_algorithm *a = i < 0 ? NULL : cx_algorithm_find((cx_coll)i, alg->string);
    if (!a || !cx_online_coll((cx_coll)i) || exact(r, "comm_size", &p, &p2) || p != p2 ||
        exact(r, "ranks_per_node", &k, &k2) || k != k2 || exact(r, "msg_size", &lo, &hi))
        return -1;
    int cls = cx_size_class(lo);
    cx_size_class_range(cls, &clo, &chi);
    if (clo != lo || chi != hi)
        return -1;
    *c = (choice){i, (int)p, (int)k, cls, cx_algorithm_index(a)};
    *comment = text && text->kind == CX_JSON_STRING ? text->string : "";
    return 0;
}

static void take(const cx_json *rules)
{
    int n = 0, bad = 0;
    for (const cx_json *r = rules->child; r; r = r->next)
        n++;
    cached = calloc((size_t)n + 1, sizeof *cached);
    comments = calloc((size_t)n + 1, sizeof *comments);
    if (!cached || !comments)
        return;
    for (const cx_json *r = rules->child; r; r = r->next) {
        const char *comment;
        if (parse_choice(r, &cached[ncached], &comment) || !(comments[ncached] = strdup(comment)))
            bad++;
        else
            ncached++;
    }
    if (say())
        cx_say("online tuning: %d settled choices from %s%s", ncached, path,
               bad ? " (some rules are not online tuning's: skipped)" : "");
}

/* Rank 0: the file's choices, if it was written under this fingerprint. */
static void load(void)
{
    char err[512] = "";
    char *text = cx_json_read_file(path, err, sizeof err);
    if (!text) {
        if (say())
            cx_say("online tuning: no cache at %s yet (%s)", path, err);
        return;
    }
    cx_json *doc = cx_json_parse(text, err, sizeof err);
    free(text);
    const char *differs = doc ? cx_fingerprint_differs(&print, cx_json_member(doc, "fingerprint"))
                              : NULL;
    const cx_json *rules = doc ? cx_json_member(doc, "rules") : NULL;
    if (!doc)
        cx_say("online tuning: cache %s: %s; ignored, written anew at the end", path, err);
    else if (differs && say())
        cx_say("online tuning: cache %s was written under another fingerprint (%s "
               "differs); ignored", path, differs);
    else if (!differs && rules && rules->kind == CX_JSON_ARRAY)
        take(rules);
    cx_json_free(doc);
}

int cx_online_cache_load(int ranks, int nodes, int ranks_per_node)
{
    cx_fingerprint_make(&print, ranks, nodes, ranks_per_node);
    file_path();
    if (*path)
        load();
    return ncached;
}

/* Rank 0's choices to every rank, in pieces of a fixed size, so that a
 * rank without room still takes part (and then says no). */
int cx_online_cache_share(cx_comm *w, int n)
{
    enum { PIECE = 256 };
    int ok = 1, buf[PIECE * CHOICE_INTS];
    if (w->rank != 0 && n > 0 && !(cached = calloc((size_t)n, sizeof *cached)))
        ok = 0;
    for (int at = 0; at < n; at += PIECE) {
        int m = n - at < PIECE ? n - at : PIECE;
        if (w->rank == 0)
            memcpy(buf, cached + at, sizeof *cached * (size_t)m);
        if (PMPI_Bcast(buf, m * CHOICE_INTS, MPI_INT, 0, w->priv))
            ok = 0;
        if (w->rank != 0 && cached)
            memcpy(cached + at, buf, sizeof *cached * (size_t)m);
    }
    if (w->rank != 0)
        ncached = ok ? n : 0;
    return ok;
}

const cx_algorithm *cx_online_cached(cx_coll coll, int comm_size, int ranks_per_node, int cls)
{
    for (int i = 0; i < ncached; i++) {
        const choice *c = &cached[i];
        if (c->coll == (int)coll && c->comm_size == comm_size &&
            c->ranks_per_node == ranks_per_node && c->cls == cls)
            return cx_algorithm_at(c->alg);
    }
    return NULL;
}

/* ------------------------------------------------------------ writing */
static void write_choice(FILE *f, const choice *c, const char *comment, int first)
{
    long long lo, hi;
    cx_size_class_range(c->cls, &lo, &hi);
    fprintf(f, "%s\n  {\"collective\": \"%s\", \"algorithm\": \"%s\", "
            "\"comm_size\": {\"min\": %d, \"max\": %d}, \"ranks_per_node\": {\"min\": %d, "
            "\"max\": %d}, \"msg_size\": {\"min\": %lld, \"max\": %lld},\n   \"comment\": ",
            first ? "" : ",", cx_coll_name((cx_coll)c->coll), cx_algorithm_at(c->alg)->name,
            c->comm_size, c->comm_size, c->ranks_per_node, c->ranks_per_node, lo, hi);
    cx_json_write_string(f, comment);
    fputc('}', f);
}

static void site_comment(const cx_online_site *s, char *buf, size_t len)
{
    int n = snprintf(buf, len, "online: the slowest rank's median us per call:");
    for (int i = 0; i < s->ncand && n >= 0 && (size_t)n < len; i++)
        n += snprintf(buf + n, len - (size_t)n, " %s %.2f%s", cx_algorithm_at(s->cand[i])->name,
                      s->us[i], i + 1 < s->ncand ? "," : "");
    if (n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "; %d trial calls", s->trials);
}

static int fresh(const cx_online_site *s)
{
    return s->chosen >= 0 && !s->from_cache &&
           !cx_online_cached((cx_coll)s->coll, s->comm_size, s->ranks_per_node, s->cls);
}

/* The folders above the file (mkdir -p). */
static void make_dirs(void)
{
    char dir[sizeof path];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
}

void cx_online_cache_write(const cx_online_site *sites, int n)
{
    int news = 0, first = 1;
    char tmp[sizeof path + 32], comment[600];
    for (int i = 0; i < n; i++)
        news += fresh(&sites[i]);
    if (!*path || !news)
        return;
    make_dirs();
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        cx_say("online tuning: cannot write %s (%s)", tmp, strerror(errno));
        return;
    }
    fprintf(f, "{\"version\": 1, \"comment\": \"collx online tuning (COLLX_TUNE_ONLINE): the choices settled "
            "under this fingerprint; a rules file (COLLX_RULES) too\",\n \"fingerprint\": ");
    cx_fingerprint_write(f, &print);
    fprintf(f, ",\n \"rules\": [");
    for (int i = 0; i < ncached; i++, first = 0)
        write_choice(f, &cached[i], comments[i], first);
    for (int i = 0; i < n; i++)
        if (fresh(&sites[i])) {
            const cx_online_site *s = &sites[i];
            choice c = {s->coll, s->comm_size, s->ranks_per_node, s->cls, s->chosen};
            site_comment(s, comment, sizeof comment);
            write_choice(f, &c, comment, first);
            first = 0;
        }
    fprintf(f, "\n]}\n");
    if (fclose(f) || rename(tmp, path)) {
        cx_say("online tuning: cannot write %s (%s)", path, strerror(errno));
        unlink(tmp);
        return;
    }
    if (say())
        cx_say("online tuning: %d settled choices (%d new) written to %s", ncached + news,
               news, path);
}
