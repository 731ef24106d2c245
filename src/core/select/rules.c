/* Rules file: the third step of selection (after CX_Algorithm_set and
 * COLLX_<COLL>_ALGORITHM), read once from the JSON file named by COLLX_RULES:
 *
 *   {"rules": [
 *     {"collective": "gatherv", "algorithm": "tuw", "comm_size": {"min": 64}},
 *     {"collective": "bcast", "algorithm": "binomial", "msg_size": {"max": 65536},
 *      "ranks_per_node": {"max": 1}}
 *   ]}
 *
 * The first rule whose collective matches and whose ranges (inclusive, each
 * bound optional) all hold picks the algorithm. Every key is one all ranks
 * know alike, so every rank picks the same: comm_size; ranks_per_node (the
 * largest node of the communicator); msg_size in bytes, of one rank's block
 * (gather, scatter, allgather, reduce_scatter_block), of the buffer
 * (bcast), of the mean block (allgatherv, reduce_scatter: every rank is
 * given every count) — not allowed for the other v-collectives, whose sizes
 * only some ranks know.
 *
 * Families carry built-in sets in this format (rules_builtin.c: hier's
 * leaders' algorithms), read and evaluated by the same code.
 *
 * A rule may also carry "params": values of per-call knobs (knobs.h,
 * `collx_info --vars` marks them) for the calls it picks, e.g.
 *
 *     {"collective": "allgather", "algorithm": "hier", "msg_size": {"max": 4096},
 *      "params": {"COLLX_HIER_INTER": "bruck", "COLLX_HIER_SENDERS": 2}}
 *
 * Values are strings or numbers, checked as the environment's are; they
 * apply to that call only (the environment's values hold elsewhere), and
 * since every rank picks the same rule, every rank applies them.
 *
 * A rule may name "candidates": algorithms of its collective that online
 * tuning (COLLX_TUNE_ONLINE, online.c) tries for the calls it picks, after
 * native and the rule's algorithm (e.g. the runners-up a tuner measured
 * close to the winner); without online tuning they change nothing.
 *
 * A call that no rule holds gets what the file's optional top-level key
 * "beyond" says (rules_pick.c): "nearest" (the default) or "native".
 *
 * A rules file only ever changes speed, never results, so a bad one costs
 * no collective (issue 51; as Open MPI 6 drops an invalid rule and NCCL's
 * tuner plugins fall back to the default): a rule that cannot be used
 * (unknown key, collective, algorithm, variable, a value out of range) is
 * dropped and the others serve; a file that cannot be used at all (cannot
 * be read, syntax, no "rules" array, a format "version" other than 1) is
 * not used, every call runs as without it. Rank 0 says each (file, line,
 * rule index, key, why, and `collx rules check FILE`); the COLLX_VERBOSE
 * banner names the file "not used". */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rules.h"
#include "../util/util.h"

typedef cx_range range;
typedef cx_rule rule;
typedef cx_rule_set rule_set;

static rule_set file = {.where = "COLLX_RULES"};
/* Loaded once, by whichever thread selects first. */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* "an allreduce", "a bcast" */
static const char *article(const char *word)
{
    return strchr("aeiou", word[0]) ? "an" : "a";
}

/* Collectives whose block sizes only some ranks know. */
static int is_v(cx_coll c)
{
    return !cx_coll_sized(c);
}

/* {"min": a, "max": b}, both optional, non-negative integers. */
static int get_range(const cx_json *r, const char *key, range *out, char *err, size_t len)
{
    const cx_json *v = cx_json_member(r, key);
    out->lo = 0;
    out->hi = LLONG_MAX;
    if (!v)
        return 0;
    if (v->kind != CX_JSON_OBJECT) {
        snprintf(err, len, "line %d: \"%s\" must be an object like {\"min\": 1, \"max\": 64}",
                 v->line, key);
        return -1;
    }
    for (const cx_json *m = v->child; m; m = m->next) {
        int is_min = !strcmp(m->key, "min");
        if (!is_min && strcmp(m->key, "max")) {
            snprintf(err, len, "line %d: \"%s\" takes only \"min\" and \"max\", not \"%s\"",
                     m->line, key, m->key);
            return -1;
        }
        if (m->kind != CX_JSON_NUMBER || !(m->number >= 0 && m->number < 0x1p62) ||
            m->number != (double)(long long)m->number) {
            snprintf(err, len, "line %d: %s.%s must be a non-negative integer", m->line, key,
                     m->key);
            return -1;
        }
        *(is_min ? &out->lo : &out->hi) = (long long)m->number;
    }
    return 0;
}

/* The names of the per-call knobs, for a message. */
static void per_call_names(char *buf, size_t len)
{
    int n = 0;
    buf[0] = '\0';
    for (int k = 0; k < CX_KNOB_COUNT && n >= 0 && (size_t)n < len; k++)
        if (cx_knob_decls[k].per_call)
            n += snprintf(buf + n, len - (size_t)n, "%s%s", n ? ", " : "",
                          cx_knob_decls[k].name);
}

/* "params": {"COLLX_NAME": value, ...}: per-call knobs only, values as the
 * environment would give them. */
static int get_params(const cx_json *r, int index, rule *out, char *err, size_t len)
{
    const cx_json *ps = cx_json_member(r, "params");
    char names[1024], why[400];
    if (!ps)
        return 0;
    if (ps->kind != CX_JSON_OBJECT) {
        snprintf(err, len, "line %d: rules[%d].params must be an object like "
                 "{\"COLLX_HIER_INTER\": \"bruck\"}", ps->line, index);
        return -1;
    }
    int n = 0;
    for (const cx_json *m = ps->child; m; m = m->next)
        n++;
    cx_knob_params *p = calloc(1, sizeof *p);
    if (!p || !(p->p = calloc((size_t)(n ? n : 1), sizeof *p->p))) {
        free(p);
        snprintf(err, len, "out of memory");
        return -1;
    }
    p->rule = index;
    out->params = p;
    for (const cx_json *m = ps->child; m; m = m->next) {
        int k = cx_knob_find(m->key);
        char text[64];
        const char *value = text;
        if (k < 0 || !cx_knob_decls[k].per_call) {
            per_call_names(names, sizeof names);
            snprintf(err, len, "line %d: rules[%d].params: %s \"%s\"; a rule may set %s",
                     m->line, index, k < 0 ? "unknown variable" : "no rule may set",
                     m->key, names);
            return -1;
        }
        for (int i = 0; i < p->n; i++)
            if ((int)p->p[i].knob == k) {
                snprintf(err, len, "line %d: rules[%d].params: %s given twice", m->line,
                         index, m->key);
                return -1;
            }
        if (m->kind == CX_JSON_STRING) {
            value = m->string;
        } else if (m->kind == CX_JSON_NUMBER && m->number > -0x1p62 && m->number < 0x1p62 &&
                   m->number == (double)(long long)m->number) {
            snprintf(text, sizeof text, "%lld", (long long)m->number);
        } else if (m->kind == CX_JSON_NUMBER) {
            snprintf(text, sizeof text, "%.17g", m->number);
        } else {
            snprintf(err, len, "line %d: rules[%d].params: %s must be a string or a number, "
                     "not %s", m->line, index, m->key, cx_json_kind_name(m->kind));
            return -1;
        }
        cx_knob_value v;
        if (cx_knob_parse((cx_knob)k, value, &v, why, sizeof why)) {
            snprintf(err, len, "line %d: rules[%d].params: %s=%s %s", m->line, index, m->key,
                     value, why);
            return -1;
        }
        p->p[p->n++] = (cx_knob_param){.knob = (cx_knob)k, .v = v};
    }
    return 0;
}

/* The valid names of collective c, after text already in err. */
static void valid_names(const char *coll, char *err, size_t len)
{
    int n = (int)strlen(err);
    for (int i = 0; n >= 0 && (size_t)n < len && i < CX_Algorithm_count(coll); i++)
        n += snprintf(err + n, len - (size_t)n, " %s", CX_Algorithm_name(coll, i));
}

/* "candidates": ["name", ...], algorithms of the rule's collective, for
 * online tuning; only where it tunes (the message size is every rank's). */
static int get_candidates(const cx_json *r, int index, rule *out, char *err, size_t len)
{
    const cx_json *list = cx_json_member(r, "candidates");
    const char *coll = cx_coll_name(out->coll);
    int n = 0;
    if (!list)
        return 0;
    if (list->kind != CX_JSON_ARRAY) {
        snprintf(err, len, "line %d: rules[%d].candidates must be an array of algorithm "
                 "names", list->line, index);
        return -1;
    }
    if (is_v(out->coll)) {
        snprintf(err, len, "line %d: rules[%d].candidates: online tuning does not tune %s "
                 "(only the root knows the sizes)", list->line, index, coll);
        return -1;
    }
    for (const cx_json *m = list->child; m; m = m->next)
        n++;
    if (!(out->candidates = calloc((size_t)n + 1, sizeof *out->candidates))) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    n = 0;
    for (const cx_json *m = list->child; m; m = m->next) {
        if (m->kind != CX_JSON_STRING ||
            !(out->candidates[n++] = cx_algorithm_find(out->coll, m->string))) {
            snprintf(err, len, "line %d: rules[%d].candidates: %s%s%s is not %s %s algorithm; "
                     "valid:", m->line, index, m->kind == CX_JSON_STRING ? "\"" : "",
                     m->kind == CX_JSON_STRING ? m->string : cx_json_kind_name(m->kind),
                     m->kind == CX_JSON_STRING ? "\"" : "", article(coll), coll);
            valid_names(coll, err, len);
            return -1;
        }
    }
    return 0;
}

static int parse_rule(const cx_json *r, int index, rule *out, char *err, size_t len)
{
    static const char *const known[] = {"collective", "algorithm", "comm_size", "msg_size",
                                        "ranks_per_node", "params", "candidates", "comment"};
    if (r->kind != CX_JSON_OBJECT) {
        snprintf(err, len, "line %d: a rule must be an object", r->line);
        return -1;
    }
    for (const cx_json *m = r->child; m; m = m->next) {
        /* twice: which counts? (collx would take the first, Python's json,
         * and with it `collx rules check`, the last) */
        if (cx_json_member(r, m->key) != m) {
            snprintf(err, len, "line %d: \"%s\" given twice", m->line, m->key);
            return -1;
        }
        size_t i = 0;
        while (i < sizeof known / sizeof *known && strcmp(m->key, known[i]))
            i++;
        if (i == sizeof known / sizeof *known) {
            snprintf(err, len, "line %d: unknown key \"%s\" (known: collective, algorithm, "
                     "comm_size, msg_size, ranks_per_node, params, candidates, comment)",
                     m->line, m->key);
            return -1;
        }
    }
    const cx_json *c = cx_json_member(r, "collective"), *a = cx_json_member(r, "algorithm");
    if (!c || c->kind != CX_JSON_STRING || !a || a->kind != CX_JSON_STRING) {
        snprintf(err, len, "line %d: a rule needs \"collective\" and \"algorithm\" strings",
                 r->line);
        return -1;
    }
    int coll = cx_coll_from_name(c->string);
    if (coll < 0) {
        snprintf(err, len, "line %d: unknown collective \"%s\"", c->line, c->string);
        return -1;
    }
    out->coll = (cx_coll)coll;
    if (!(out->alg = cx_algorithm_find(out->coll, a->string))) {
        snprintf(err, len, "line %d: \"%s\" is not %s %s algorithm; valid:", a->line,
                 a->string, article(c->string), c->string);
        valid_names(c->string, err, len);
        return -1;
    }
    if (!cx_rules_sized(out->coll) && cx_json_member(r, "msg_size")) {
        snprintf(err, len, "line %d: msg_size cannot select %s %s algorithm (only the root "
                 "knows the sizes; use comm_size or ranks_per_node)", r->line,
                 article(c->string), c->string);
        return -1;
    }
    if (get_range(r, "comm_size", &out->comm_size, err, len) ||
        get_range(r, "msg_size", &out->msg_size, err, len) ||
        get_range(r, "ranks_per_node", &out->ranks_per_node, err, len) ||
        get_params(r, index, out, err, len) || get_candidates(r, index, out, err, len))
        return -1;
    out->index = index;
    return 0;
}

/* What a message about set begins and ends with: the file and how to
 * check it, or the built-in set's name (a bad one is collx's bug). */
static const char *head(const rule_set *set)
{
    return set->check ? "COLLX_RULES=" : "built-in rules ";
}

static const char *tail(const rule_set *set, char *buf, size_t len)
{
    if (set->check)
        snprintf(buf, len, "collx rules check %s", set->check);
    else
        snprintf(buf, len, "a bug in this collx: please report it");
    return buf;
}

/* A rule that cannot serve: said, and its allocations freed. */
static void drop(const rule_set *set, rule *r, const char *why)
{
    char t[600];
    if (cx_world_rank_zero())
        fprintf(stderr, "collx: %s%s: %s: rule dropped, the others serve (%s)\n", head(set),
                set->where, why, tail(set, t, sizeof t));
    if (r->params) {
        for (int i = 0; i < r->params->n; i++)
            cx_knob_value_free(&r->params->p[i].v);
        free(r->params->p);
        free(r->params);
    }
    free(r->candidates);
    memset(r, 0, sizeof *r);
}

/* The provenance block (written by the tuner; collx selects without it):
 * where the rules were measured, for the verbose banner, and a note from
 * rank 0 when that was another MPI than the one running. */
static void read_provenance(rule_set *set, const cx_json *prov)
{
    if (!prov || prov->kind != CX_JSON_OBJECT)
        return;
    const cx_json *target = cx_json_member(prov, "target");
    const cx_json *mpi = cx_json_member(prov, "mpi");
    const cx_json *date = cx_json_member(prov, "date");
    const char *t = target && target->kind == CX_JSON_STRING ? target->string : "?";
    const char *m = mpi && mpi->kind == CX_JSON_STRING ? mpi->string : "an MPI not named";
    const char *d = date && date->kind == CX_JSON_STRING ? date->string : "?";
    snprintf(set->where_tuned, sizeof set->where_tuned, "tuned on %s, %s, %s", t, m, d);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    PMPI_Get_library_version(lib, &len);
    int major;
    const char *family = cx_mpi_family(lib, &major);
    if (family && mpi && mpi->kind == CX_JSON_STRING && !strstr(m, family) &&
        cx_world_rank_zero()) {
        lib[strcspn(lib, "\n,")] = 0;
        fprintf(stderr, "collx: rules file %s was measured with %s (%s), this program runs %s: "
                "its choices may not be the fastest here (collx tune on this machine writes "
                "rules for it)\n", set->where, m, t, lib);
    }
}

/* "beyond": "nearest" or "native"; another value is said and, as if the
 * key were absent, the nearest rule serves (a mistake costs no call). */
static void read_beyond(rule_set *set, const cx_json *b)
{
    char t[600];
    if (!b || (b->kind == CX_JSON_STRING && !strcmp(b->string, "nearest")))
        return;
    if (b->kind == CX_JSON_STRING && !strcmp(b->string, "native")) {
        set->beyond_native = 1;
        return;
    }
    if (cx_world_rank_zero())
        fprintf(stderr, "collx: %s%s: line %d: \"beyond\" must be \"nearest\" or "
                "\"native\", not %s%s%s: the nearest rule serves beyond the rules' ranges "
                "(%s)\n", head(set), set->where, b->line,
                b->kind == CX_JSON_STRING ? "\"" : "",
                b->kind == CX_JSON_STRING ? b->string : cx_json_kind_name(b->kind),
                b->kind == CX_JSON_STRING ? "\"" : "", tail(set, t, sizeof t));
}

/* The whole document; -1 (err says why) when it cannot be used at all. */
static int parse(rule_set *set, const char *text, char *err, size_t len)
{
    cx_json *doc = cx_json_parse(text, err, len);
    if (!doc)
        return -1;
    const cx_json *list = cx_json_member(doc, "rules");
    const cx_json *version = cx_json_member(doc, "version");
    int rc = -1;
    if (version && version->kind != CX_JSON_NUMBER) {
        snprintf(err, len, "line %d: \"version\" must be a number (the format's, 1)",
                 version->line);
    } else if (version && version->number != 1) {
        snprintf(err, len, "line %d: format version %g; this collx (%d.%d.%d) reads version 1",
                 version->line, version->number, COLLX_VERSION_MAJOR, COLLX_VERSION_MINOR,
                 COLLX_VERSION_PATCH);
    } else if (!list || list->kind != CX_JSON_ARRAY) {
        snprintf(err, len, "the document must be an object with a \"rules\" array");
    } else {
        read_provenance(set, cx_json_member(doc, "provenance"));
        read_beyond(set, cx_json_member(doc, "beyond"));
        int n = 0;
        for (const cx_json *r = list->child; r; r = r->next)
            n++;
        set->rules = calloc((size_t)(n ? n : 1), sizeof *set->rules);
        rc = set->rules ? 0 : -1;
        if (!set->rules)
            snprintf(err, len, "out of memory");
        int index = 0;
        for (const cx_json *r = list->child; r && !rc; r = r->next, index++) {
            char why[512];
            rule *out = &set->rules[set->n];
            if (parse_rule(r, index, out, why, sizeof why)) {
                drop(set, out, why);
                continue;
            }
            if (cx_json_member(r, "ranks_per_node"))
                set->need_nodes = 1;
            set->n++;
        }
    }
    cx_json_free(doc);
    return rc;
}

/* The document that cannot be used at all (err says why): said. */
static void broken(rule_set *set, const char *err)
{
    char t[600];
    set->broken = 1;
    set->n = 0;
    if (cx_world_rank_zero())
        fprintf(stderr, "collx: %s%s: %s; %s: every call runs as without it (%s%s)\n",
                head(set), set->where, err, set->check ? "the file is not used" : "not used",
                tail(set, t, sizeof t), set->check ? " says what is wrong" : "");
}

void cx_rules_read(rule_set *set, const char *text)
{
    char err[512] = "";
    if (parse(set, text, err, sizeof err))
        broken(set, err);
}

static void load(void)
{
    const char *path = cx_knob_str(CX_KNOB_RULES);
    if (!path || !*path)
        return;
    char err[512] = "";
    file.where = file.check = path;
    char *text = cx_json_read_file(path, err, sizeof err);
    if (text)
        cx_rules_read(&file, text);
    else
        broken(&file, err);
    free(text);
}

const rule_set *cx_rules_file(void)
{
    pthread_once(&load_once, load);
    return &file;
}

int cx_rules_need_nodes(void)
{
    pthread_once(&load_once, load);
    return file.need_nodes && !file.broken;
}

int cx_rules_broken(void)
{
    pthread_once(&load_once, load);
    return file.broken;
}

void cx_rules_describe(char *buf, size_t len)
{
    pthread_once(&load_once, load);
    if (file.broken) {
        snprintf(buf, len, "not used: see above");
        return;
    }
    int n = snprintf(buf, len, "%d rule%s", file.n, file.n == 1 ? "" : "s");
    for (int c = 0, first = 1; c < CX_COLL_COUNT && n >= 0 && (size_t)n < len; c++)
        if (cx_rules_mention((cx_coll)c)) {
            n += snprintf(buf + n, len - (size_t)n, "%s%s", first ? " for " : ", ",
                          cx_coll_name((cx_coll)c));
            first = 0;
        }
    if (n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "%s%s; %s beyond their ranges",
                 *file.where_tuned ? ", " : "", file.where_tuned,
                 file.beyond_native ? "native" : "the nearest rule");
}

int cx_rules_mention(cx_coll c)
{
    pthread_once(&load_once, load);
    for (int i = 0; i < file.n; i++)
        if (file.rules[i].coll == c)
            return 1;
    return 0;
}
