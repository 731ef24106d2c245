/* The knob mechanism (knobs.h): parses every declared COLLX_* variable
 * once, says what cannot be used, and answers for the environment or for
 * one call's rule params. It calls nothing else of the core (the families'
 * catalogue is read as data), so every part of collx can read knobs. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "knobs.h"
#include "catalogue.h"

typedef struct {
    cx_knob_value v;     /* what the accessors give */
    char *env;           /* the environment's text (copied), NULL: unset or empty */
    int given, bad;
} knob_state;

static knob_state state[CX_KNOB_COUNT];
static pthread_once_t read_once = PTHREAD_ONCE_INIT;

int cx_knob_find(const char *name)
{
    for (int k = 0; name && k < CX_KNOB_COUNT; k++)
        if (!strcmp(cx_knob_decls[k].name, name))
            return k;
    return -1;
}

/* ------------------------------------------------------------ parsing */
static int parse_integer(const char *t, int suffixes, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(t, &end, 10);
    if (end == t || errno == ERANGE)
        return -1;
    if (suffixes && *end) {
        int shift = 0;
        switch (toupper((unsigned char)*end)) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        default: return -1;
        }
        end++;
        if (v > (LLONG_MAX >> shift) || v < -(LLONG_MAX >> shift))
            return -1;
        v *= 1LL << shift;
    }
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return -1;
    *out = v;
    return 0;
}

/* Whether name is an algorithm of collective coll (any when coll < 0),
 * read from the families' tables. */
static int algorithm_named(int coll, const char *name)
{
    if (!strcmp(name, "native"))
        return 1;
    for (int f = 0; cx_families[f]; f++)
        for (const cx_algorithm *a = cx_families[f]->algorithms; a && a->name; a++)
            if ((coll < 0 || (int)a->coll == coll) && !strcmp(a->name, name))
                return 1;
    return 0;
}

static void list_algorithms(int coll, char *buf, size_t len)
{
    int n = snprintf(buf, len, "native");
    for (int f = 0; cx_families[f]; f++)
        for (const cx_algorithm *a = cx_families[f]->algorithms; a && a->name; a++)
            if ((int)a->coll == coll && n >= 0 && (size_t)n < len)
                n += snprintf(buf + n, len - (size_t)n, ", %s", a->name);
}

static const char *coll_name(int coll)
{
    static const char *const names[] = {
#define CX_KNOB_COLL_NAME(E, N, n) #n,
        CX_COLLECTIVES(CX_KNOB_COLL_NAME)
#undef CX_KNOB_COLL_NAME
    };
    return coll >= 0 && coll < (int)(sizeof names / sizeof *names) ? names[coll] : "?";
}

const char *cx_article(const char *word)
{
    return word && word[0] && strchr("aeiou", word[0]) ? "an" : "a";
}

void cx_knob_range(cx_knob k, char *buf, size_t len)
{
    const cx_knob_decl *d = &cx_knob_decls[k];
    int n = 0;
    switch (d->type) {
    case CX_KNOB_INT:
    case CX_KNOB_SIZE:
        n = snprintf(buf, len, "%s ", d->type == CX_KNOB_SIZE ? "bytes" : "an integer");
        if (n < 0 || (size_t)n >= len)   /* cut: the rest would not fit either */
            break;
        if (d->max == LLONG_MAX || (d->max == INT_MAX && d->type == CX_KNOB_INT))
            n += snprintf(buf + n, len - (size_t)n, ">= %lld", d->min);
        else
            n += snprintf(buf + n, len - (size_t)n, "in %lld..%lld", d->min, d->max);
        if (d->type == CX_KNOB_SIZE && n >= 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, " (suffix K, M, G: KiB, MiB, GiB)");
        break;
    case CX_KNOB_REAL:
        snprintf(buf, len, "a number in %g..%g", d->rmin, d->rmax);
        break;
    case CX_KNOB_ENUM:
        n = snprintf(buf, len, "one of");
        for (int i = 0; d->values[i] && n >= 0 && (size_t)n < len; i++)
            n += snprintf(buf + n, len - (size_t)n, "%s %s", i ? "," : "", d->values[i]);
        break;
    case CX_KNOB_STRING:
        snprintf(buf, len, "text, as its meaning says");
        break;
    case CX_KNOB_PATH:
        snprintf(buf, len, "a file name");
        break;
    case CX_KNOB_ALGORITHM:
        if (d->coll < 0) {
            snprintf(buf, len, "native or an algorithm's name (collx_info lists them)");
        } else {
            char names[512];
            list_algorithms(d->coll, names, sizeof names);
            snprintf(buf, len, "%s %s algorithm: %s", cx_article(coll_name(d->coll)),
                     coll_name(d->coll), names);
        }
        break;
    }
}

static char *copy(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    return c ? memcpy(c, s, n) : NULL;
}

int cx_knob_parse(cx_knob k, const char *text, cx_knob_value *out, char *why, size_t len)
{
    const cx_knob_decl *d = &cx_knob_decls[k];
    char range[600];
    *out = (cx_knob_value){0};
    if (!text || !*text) {
        snprintf(why, len, "is empty");
        return -1;
    }
    switch (d->type) {
    case CX_KNOB_INT:
    case CX_KNOB_SIZE: {
        long long v;
        if (parse_integer(text, d->type == CX_KNOB_SIZE, &v))
            break;
        if (v < d->min || v > d->max) {
            cx_knob_range(k, range, sizeof range);
            snprintf(why, len, "is outside the range (%s)", range);
            if (d->on_bad == CX_KNOB_BAD_CLAMP) {
                v = v < d->min ? d->min : d->max;
                *out = (cx_knob_value){.set = 1, .i = v, .r = (double)v};
            }
            return -1;
        }
        *out = (cx_knob_value){.set = 1, .i = v, .r = (double)v};
        break;
    }
    case CX_KNOB_REAL: {
        char *end;
        double v = strtod(text, &end);
        while (isspace((unsigned char)*end))
            end++;
        if (end == text || *end || isnan(v))
            break;
        if (v < d->rmin || v > d->rmax) {
            cx_knob_range(k, range, sizeof range);
            snprintf(why, len, "is outside the range (%s)", range);
            if (d->on_bad == CX_KNOB_BAD_CLAMP) {
                v = v < d->rmin ? d->rmin : d->rmax;
                *out = (cx_knob_value){.set = 1, .r = v, .i = (long long)v};
            }
            return -1;
        }
        *out = (cx_knob_value){.set = 1, .r = v, .i = (long long)v};
        break;
    }
    case CX_KNOB_ENUM:
        for (int i = 0; d->values[i]; i++)
            if (!strcmp(text, d->values[i]))
                *out = (cx_knob_value){.set = 1, .i = i, .r = i};
        break;
    case CX_KNOB_ALGORITHM:
        if (!algorithm_named(d->coll, text)) {
            if (d->coll >= 0) {
                list_algorithms(d->coll, range, sizeof range);
                snprintf(why, len, "is not %s %s algorithm; valid: %s", cx_article(coll_name(d->coll)),
                         coll_name(d->coll), range);
            } else {
                snprintf(why, len, "is not the name of a collx algorithm (collx_info "
                         "lists them; native = the MPI's own)");
            }
            return -1;
        }
        out->set = 1;
        break;
    case CX_KNOB_STRING:
    case CX_KNOB_PATH:
        out->set = 1;
        break;
    }
    if (!out->set) {
        cx_knob_range(k, range, sizeof range);
        snprintf(why, len, "is not %s", range);
        return -1;
    }
    if (!(out->s = copy(text))) {
        snprintf(why, len, "cannot be kept (out of memory)");
        out->set = 0;
        return -1;
    }
    return 0;
}

void cx_knob_value_free(cx_knob_value *v)
{
    free((char *)v->s);
    *v = (cx_knob_value){0};
}

void cx_knob_format(cx_knob k, const cx_knob_value *v, char *buf, size_t len)
{
    const cx_knob_decl *d = &cx_knob_decls[k];
    if (!v->set)
        snprintf(buf, len, "%s", "");
    else if (d->type == CX_KNOB_INT || d->type == CX_KNOB_SIZE)
        snprintf(buf, len, "%lld", v->i);
    else if (d->type == CX_KNOB_REAL)
        snprintf(buf, len, "%g", v->r);
    else if (d->type == CX_KNOB_ENUM)
        snprintf(buf, len, "%s", d->values[v->i]);
    else
        snprintf(buf, len, "%s", v->s ? v->s : "");
}

/* ------------------------------------------------------------ the environment */
int cx_world_rank_zero(void)
{
    int init = 0, fin = 0, rank = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (init && !fin)
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank == 0;
}

static void read_one(cx_knob k)
{
    const cx_knob_decl *d = &cx_knob_decls[k];
    knob_state *st = &state[k];
    char why[700], deflt[64];
    cx_knob_value_free(&st->v);
    free(st->env);
    *st = (knob_state){0};
    if (d->def && cx_knob_parse(k, d->def, &st->v, why, sizeof why)) {
        fprintf(stderr, "collx: internal: the default of %s %s\n", d->name, why);
        cx_knob_value_free(&st->v);
    }
    const char *text = getenv(d->name);
    if (!text || !*text)
        return;
    st->env = copy(text);
    cx_knob_value v;
    if (!cx_knob_parse(k, text, &v, why, sizeof why)) {
        cx_knob_value_free(&st->v);
        st->v = v;
        st->given = 1;
        return;
    }
    const char *then, *what = deflt;
    deflt[0] = '\0';
    if (v.set) {   /* clamped */
        cx_knob_format(k, &v, deflt, sizeof deflt);
        then = "using ";
        cx_knob_value_free(&st->v);
        st->v = v;
        if (!(st->v.s = copy(deflt)))
            st->v.set = 0;
        st->given = st->v.set;
    } else if (d->on_bad == CX_KNOB_BAD_ERROR) {
        st->bad = 1;
        then = "the calls that need it fail with MPI_ERR_ARG";
    } else if (st->v.set) {
        then = "using the default ";
        what = d->def;
    } else {
        then = "as if unset: ";
        what = d->unset ? d->unset : "";
    }
    if (cx_world_rank_zero())
        fprintf(stderr, "collx: %s=%s %s; %s%s\n", d->name, text, why, then, what);
}

static atomic_int reads;

static void read_all(void)
{
    for (int k = 0; k < CX_KNOB_COUNT; k++)
        read_one((cx_knob)k);
    atomic_fetch_add(&reads, 1);
    /* now, if MPI runs, else at the interposer's MPI_Init (not through the
     * accessors: this runs inside read_once) */
    cx_knobs_check_names((int)state[CX_KNOB_VERBOSE].v.i);
}

void cx_knobs_reread(void)
{
    int before = atomic_load(&reads);
    pthread_once(&read_once, read_all);
    if (atomic_load(&reads) == before)   /* not twice when this was the first read */
        read_all();
}

const char *cx_env_system(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static __attribute__((noinline)) void read_first(void)
{
    pthread_once(&read_once, read_all);
}

static const knob_state *get(cx_knob k)
{
    /* read once; afterwards a load, not a call (knobs are read per call) */
    if (!atomic_load_explicit(&reads, memory_order_acquire))
        read_first();
    return &state[k];
}

long long cx_knob_int(cx_knob k) { return get(k)->v.i; }
double cx_knob_real(cx_knob k) { return get(k)->v.r; }
const char *cx_knob_str(cx_knob k) { return get(k)->v.set ? get(k)->v.s : NULL; }
int cx_knob_given(cx_knob k) { return get(k)->given; }
int cx_knob_bad(cx_knob k) { return get(k)->bad; }
const char *cx_knob_env(cx_knob k) { return get(k)->env; }

/* ------------------------------------------------------------ per call */
const cx_knob_value *cx_knob_call(const cx_knob_params *params, cx_knob k)
{
    for (int i = 0; params && i < params->n; i++)
        if (params->p[i].knob == k)
            return &params->p[i].v;
    return &get(k)->v;
}

long long cx_knob_call_int(const cx_knob_params *params, cx_knob k)
{
    return cx_knob_call(params, k)->i;
}

const char *cx_knob_call_str(const cx_knob_params *params, cx_knob k)
{
    const cx_knob_value *v = cx_knob_call(params, k);
    return v->set ? v->s : NULL;
}

int cx_knob_call_given(const cx_knob_params *params, cx_knob k)
{
    for (int i = 0; params && i < params->n; i++)
        if (params->p[i].knob == k)
            return 1;
    return cx_knob_given(k);
}

void cx_knob_params_text(const cx_knob_params *params, char *buf, size_t len)
{
    int n = 0;
    buf[0] = '\0';
    for (int i = 0; params && i < params->n && n >= 0 && (size_t)n < len; i++) {
        char v[256];
        cx_knob_format(params->p[i].knob, &params->p[i].v, v, sizeof v);
        n += snprintf(buf + n, len - (size_t)n, "%s%s=%s", i ? " " : "",
                      cx_knob_decls[params->p[i].knob].name, v);
    }
}

int cx_knob_params_first_show(const cx_knob_params *params)
{
    /* The flag is the only part of a rule's params that ever changes. */
    return !atomic_exchange(&((cx_knob_params *)params)->shown, 1);
}
