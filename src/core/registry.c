/* Algorithm registry, selection (explicit > environment > rules file >
 * default) and the public query API. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cx_internal.h"

static const char *const coll_names[CX_COLL_COUNT] = {
    "gather", "gatherv", "scatter", "scatterv", "bcast", "allgather",
    "allgatherv", "alltoallv", "reduce_scatter_block"};
static const char *const coll_mpi_names[CX_COLL_COUNT] = {
    "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Bcast",
    "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoallv",
    "MPI_Reduce_scatter_block"};

const char *cx_coll_name(cx_coll c) { return coll_names[c]; }
const char *cx_coll_mpi_name(cx_coll c) { return coll_mpi_names[c]; }

int cx_coll_from_name(const char *name)
{
    for (int i = 0; name && i < CX_COLL_COUNT; i++)
        if (strcmp(name, coll_names[i]) == 0)
            return i;
    return -1;
}

/* "native" exists for every collective: the MPI library's own PMPI_ call. */
static const cx_algorithm native_algorithms[] = {
#define NATIVE(c) {c, "native", NULL, 0, "the MPI library's own implementation (PMPI_)"}
    NATIVE(CX_COLL_GATHER), NATIVE(CX_COLL_GATHERV), NATIVE(CX_COLL_SCATTER),
    NATIVE(CX_COLL_SCATTERV), NATIVE(CX_COLL_BCAST), NATIVE(CX_COLL_ALLGATHER),
    NATIVE(CX_COLL_ALLGATHERV), NATIVE(CX_COLL_ALLTOALLV),
    NATIVE(CX_COLL_REDUCE_SCATTER_BLOCK),
#undef NATIVE
    {0, NULL, NULL, 0, NULL}};

/* Every family's table; add a family by adding its table here. */
static const cx_algorithm *const tables[] = {
    native_algorithms,
    cx_base_algorithms,
    cx_irregular_algorithms,
    cx_pap_algorithms,
};

#define MAX_ALGS 256
static const cx_algorithm *all[MAX_ALGS];
static long calls[MAX_ALGS];
static int nall;
static const cx_algorithm *forced[CX_COLL_COUNT];

static void build_index(void)
{
    if (nall)
        return;
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
        for (const cx_algorithm *a = tables[t]; a->name && nall < MAX_ALGS; a++)
            all[nall++] = a;
}

static int index_of(const cx_algorithm *alg)
{
    for (int i = 0; i < nall; i++)
        if (all[i] == alg)
            return i;
    return -1;
}

const cx_algorithm *cx_algorithm_find(cx_coll c, const char *name)
{
    build_index();
    for (int i = 0; name && i < nall; i++)
        if (all[i]->coll == c && strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

/* The i-th algorithm of c in registration order. */
static const cx_algorithm *nth(cx_coll c, int n)
{
    build_index();
    for (int i = 0; i < nall; i++)
        if (all[i]->coll == c && n-- == 0)
            return all[i];
    return NULL;
}

static void list_valid(FILE *f, cx_coll c)
{
    const cx_algorithm *a;
    for (int i = 0; (a = nth(c, i)); i++)
        fprintf(f, "%s%s", i ? ", " : "", a->name);
}

static void env_name(cx_coll c, char *buf, size_t len)
{
    snprintf(buf, len, "COLLX_%s_ALGORITHM", coll_names[c]);
    for (char *p = buf; *p; p++)
        *p = (char)toupper((unsigned char)*p);
}

/* NULL (after printing the valid names once) when the env names nothing. */
static const cx_algorithm *from_env(cx_coll c, int *bad)
{
    char var[64];
    env_name(c, var, sizeof var);
    const char *v = getenv(var);
    *bad = 0;
    if (!v || !*v)
        return NULL;
    const cx_algorithm *a = cx_algorithm_find(c, v);
    if (!a) {
        static int warned[CX_COLL_COUNT];
        *bad = 1;
        if (!warned[c]++) {
            fprintf(stderr, "collx: %s=%s is not a %s algorithm; valid: ", var, v,
                    coll_names[c]);
            list_valid(stderr, c);
            fputc('\n', stderr);
        }
    }
    return a;
}

const cx_algorithm *cx_select(const cx_args *a)
{
    int bad;
    if (forced[a->coll])
        return forced[a->coll];
    const cx_algorithm *alg = from_env(a->coll, &bad);
    if (bad)
        return NULL;
    if (!alg && cx_rules_select(a, &alg))
        return NULL;
    return alg ? alg : cx_algorithm_find(a->coll, "native");
}

void cx_count_call(const cx_algorithm *alg, const cx_args *a)
{
    static unsigned char shown[MAX_ALGS];
    int i = index_of(alg), verbose = cx_verbose();
    if (i < 0)
        return;
    calls[i]++;
    if (verbose > 0 && a->rank == 0 && (verbose > 1 || !shown[i])) {
        shown[i] = 1;
        fprintf(stderr, "collx: %s -> %s (p=%d%s)\n", coll_mpi_names[a->coll],
                alg->name, a->size, verbose > 1 ? "" : ", shown once");
    }
}

/* ------------------------------------------------------------ public API */
int CX_Collective_count(void) { return CX_COLL_COUNT; }

const char *CX_Collective_name(int i)
{
    return i >= 0 && i < CX_COLL_COUNT ? coll_names[i] : NULL;
}

int CX_Algorithm_count(const char *coll)
{
    int c = cx_coll_from_name(coll), n = 0;
    if (c < 0)
        return -1;
    while (nth((cx_coll)c, n))
        n++;
    return n;
}

const char *CX_Algorithm_name(const char *coll, int i)
{
    int c = cx_coll_from_name(coll);
    const cx_algorithm *a = c < 0 ? NULL : nth((cx_coll)c, i);
    return a ? a->name : NULL;
}

const char *CX_Algorithm_summary(const char *coll, int i)
{
    int c = cx_coll_from_name(coll);
    const cx_algorithm *a = c < 0 ? NULL : nth((cx_coll)c, i);
    return a ? a->summary : NULL;
}

int CX_Algorithm_set(const char *coll, const char *alg)
{
    int c = cx_coll_from_name(coll);
    if (c < 0) {
        fprintf(stderr, "collx: unknown collective '%s'; valid: ", coll ? coll : "(null)");
        for (int i = 0; i < CX_COLL_COUNT; i++)
            fprintf(stderr, "%s%s", i ? ", " : "", coll_names[i]);
        fputc('\n', stderr);
        return MPI_ERR_ARG;
    }
    if (!alg || !*alg) {
        forced[c] = NULL;
        return MPI_SUCCESS;
    }
    const cx_algorithm *a = cx_algorithm_find((cx_coll)c, alg);
    if (!a) {
        fprintf(stderr, "collx: '%s' is not a %s algorithm; valid: ", alg, coll);
        list_valid(stderr, (cx_coll)c);
        fputc('\n', stderr);
        return MPI_ERR_ARG;
    }
    forced[c] = a;
    return MPI_SUCCESS;
}

const char *CX_Algorithm_get(const char *coll)
{
    int c = cx_coll_from_name(coll);
    if (c < 0)
        return NULL;
    cx_args a = {.coll = (cx_coll)c, .comm = MPI_COMM_NULL};  /* rules: per call */
    const cx_algorithm *alg = cx_select(&a);
    return alg ? alg->name : NULL;
}

long CX_Algorithm_calls(const char *coll, const char *alg)
{
    int c = cx_coll_from_name(coll);
    const cx_algorithm *a = c < 0 ? NULL : cx_algorithm_find((cx_coll)c, alg);
    int i = a ? index_of(a) : -1;
    return i < 0 ? 0 : calls[i];
}
