/* Knobs: every COLLX_* environment variable collx reads, declared once
 * beside the code that owns it (a knobs.def: name, type, default, range,
 * meaning, whether a rule of COLLX_RULES may set it for the calls it
 * picks), gathered into one table (knob_table.c), read from the
 * environment once (knobs.c) and used through the accessors below, never
 * through getenv. A value that cannot be used is said once, naming the
 * variable and what it takes; then the knob's declared policy applies
 * (its default, the nearest bound, or an error its user returns).
 *
 * Per-call knobs: a rule may carry "params" (rules.c). The rule's values
 * travel with the call's decision into cx_args.params, and the families
 * read such knobs with cx_knob_call_*(a->params, ...), which give the
 * rule's value where it has one and the environment's otherwise. Only
 * knobs whose value may differ from call to call without breaking the
 * agreement between ranks are per-call; every rank picks the same rule,
 * so every rank applies the same params. */
#ifndef CX_KNOBS_H
#define CX_KNOBS_H

#include <stdatomic.h>
#include <stddef.h>
#include "collx_colls.h"

typedef enum {
    /* Every knobs.def of src/ (the core's, online tuning's, each family's
     * beside its code), listed by the build in cx_knob_lists.h
     * (cmake/catalogue.cmake): a family's knob is one CX_KNOB line there. */
#define CX_KNOB(id, ...) CX_KNOB_##id,
#include "cx_knob_lists.h"
#undef CX_KNOB
    /* COLLX_<COLL>_ALGORITHM, one per collective, in CX_COLLECTIVES order */
#define CX_KNOB_ALG_ID(E, N, n) CX_KNOB_##E##_ALGORITHM,
    CX_COLLECTIVES(CX_KNOB_ALG_ID)
#undef CX_KNOB_ALG_ID
    CX_KNOB_COUNT
} cx_knob;

/* The algorithm knob of collective c (a cx_coll). */
#define CX_KNOB_ALGORITHM_OF(c) ((cx_knob)(CX_KNOB_BARRIER_ALGORITHM + (int)(c)))

typedef enum {
    CX_KNOB_INT,        /* an integer in [min, max] */
    CX_KNOB_SIZE,       /* bytes in [min, max], suffix K, M or G (x 1024^n) allowed */
    CX_KNOB_REAL,       /* a number in [rmin, rmax] */
    CX_KNOB_ENUM,       /* one of values[] (its index is the integer value) */
    CX_KNOB_STRING,     /* text whose syntax the user checks */
    CX_KNOB_PATH,       /* a file name */
    CX_KNOB_ALGORITHM,  /* "native" or an algorithm's name: of collective coll,
                           or of any collective when coll < 0 */
} cx_knob_type;

/* What a value that cannot be used becomes (after its message). */
typedef enum {
    CX_KNOB_BAD_DEFAULT,  /* the default (none: as if unset) */
    CX_KNOB_BAD_CLAMP,    /* a number out of range: the nearest bound; else the default */
    CX_KNOB_BAD_ERROR,    /* unset, and cx_knob_bad() says so: its user fails the calls */
} cx_knob_on_bad;

typedef struct cx_knob_decl {
    const char *name;           /* "COLLX_HIER_SENDERS" */
    const char *family;         /* "core", "hier", ... */
    cx_knob_type type;
    const char *def;            /* default, as a user would write it; NULL: none */
    const char *unset;          /* what happens without a value (when def is NULL) */
    long long min, max;         /* INT, SIZE */
    double rmin, rmax;          /* REAL */
    const char *const *values;  /* ENUM, NULL-terminated */
    int coll;                   /* ALGORITHM: a cx_coll, -1 for any */
    int per_call;               /* a rule's "params" may set it */
    int rank_local;             /* may differ between ranks (settings.c) */
    const char *tune;           /* per-call knobs: the values ./run tune tries
                                   besides the default ("2,32"), or per
                                   collective ("bcast:a,b;allreduce:c"); NULL: none */
    const char *tune_algs;      /* the algorithms that read it ("hier_ms") */
    cx_knob_on_bad on_bad;
    const char *meaning;        /* one line */
} cx_knob_decl;

/* A knob's value. */
typedef struct cx_knob_value {
    int set;         /* 0: no value (none given, no default) */
    long long i;     /* INT, SIZE; ENUM: index in values[] */
    double r;        /* REAL (also INT and SIZE, as a double) */
    const char *s;   /* the text (owned by the knob mechanism or the rule) */
} cx_knob_value;

/* The params of a rule (rules.c): values of per-call knobs for the calls it
 * picks. Lives as long as the rules. */
typedef struct cx_knob_param {
    cx_knob knob;
    cx_knob_value v;
} cx_knob_param;

typedef struct cx_knob_params {
    int n;
    cx_knob_param *p;
    int rule;              /* index of its rule in the file */
    atomic_int shown;      /* said once under COLLX_VERBOSE=1 */
} cx_knob_params;

/* The table (knob_table.c), CX_KNOB_COUNT entries in cx_knob order. */
extern const cx_knob_decl cx_knob_decls[];
/* Its entry k, for programs (collx_info): a function, so that a program
 * never copies the library's table into its own data (a copy relocation
 * breaks when the library is rebuilt with more knobs and the program
 * is not). */
const cx_knob_decl *cx_knob_entry(cx_knob k);

/* The knob named name, -1 if none. */
int cx_knob_find(const char *name);

/* The environment's value (or the default), parsed on first use. */
long long cx_knob_int(cx_knob k);
double cx_knob_real(cx_knob k);
const char *cx_knob_str(cx_knob k);   /* NULL: no value */
/* The environment gave a usable value (not just the default). */
int cx_knob_given(cx_knob k);
/* The environment's value could not be used (policy CX_KNOB_BAD_ERROR). */
int cx_knob_bad(cx_knob k);
/* The environment's text, NULL when unset or empty. */
const char *cx_knob_env(cx_knob k);

/* The same for one call: params' value where it has one for k. */
const cx_knob_value *cx_knob_call(const cx_knob_params *params, cx_knob k);
long long cx_knob_call_int(const cx_knob_params *params, cx_knob k);
const char *cx_knob_call_str(const cx_knob_params *params, cx_knob k);
int cx_knob_call_given(const cx_knob_params *params, cx_knob k);

/* Parses text as a value of k into *out (strings copied: cx_knob_value_free);
 * 0, or -1 with why (e.g. "is outside 1..8") and, for CX_KNOB_BAD_CLAMP
 * numbers, the clamped value in *out. */
int cx_knob_parse(cx_knob k, const char *text, cx_knob_value *out, char *why, size_t len);
void cx_knob_value_free(cx_knob_value *v);
/* What k takes, in words ("an integer in 1..100", "one of silent, print, error"). */
void cx_knob_range(cx_knob k, char *buf, size_t len);
/* A value as text ("" when unset). */
void cx_knob_format(cx_knob k, const cx_knob_value *v, char *buf, size_t len);
/* params as "NAME=value NAME=value" into buf. */
void cx_knob_params_text(const cx_knob_params *params, char *buf, size_t len);
/* 1 the first time it is asked for these params (COLLX_VERBOSE=1 says them once). */
int cx_knob_params_first_show(const cx_knob_params *params);

/* A variable of the environment that is not collx's (HOME,
 * XDG_CACHE_HOME: where a knob's default path lies); NULL when unset or
 * empty. */
const char *cx_env_system(const char *name);

/* Reads the environment again (tests that change it between calls). */
void cx_knobs_reread(void);
/* Whether this process speaks for all: world rank 0 while MPI runs, every
 * process before MPI_Init or after MPI_Finalize. What every rank reads
 * alike (the environment, a rules file) is said once, from here. */
int cx_world_rank_zero(void);
/* Rank 0, once, after MPI_Init: warns of COLLX_ names no knob has, naming
 * the nearest; with verbose > 0 lists the others too (knob_names.c). */
void cx_knobs_check_names(int verbose);
/* "an" before a vowel-initial word (allreduce, exscan), else "a": the
 * article of messages that name a collective. */
const char *cx_article(const char *word);

#endif
