/* The catalogue: every family's table, names and the query API (the
 * counters of what ran are in stats.c). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "collx_tools.h"
#include "select.h"

/* "native" exists for every collective: the MPI library's own PMPI_ call
 * (in SMPI, for a few, a family's stand-in: stand_in.smpi.c). */
static cx_algorithm native_algorithms[] = {
#define CX_NATIVE(E, N, n) \
    CX_ALG(E, "native", NULL, 0, "the MPI library's own implementation (PMPI_)"),
    CX_COLLECTIVES(CX_NATIVE)
#undef CX_NATIVE
    CX_ALG_END};

static const cx_algorithm *all[CX_MAX_ALGS];
static int nall;
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

/* The tables: native's, then every family's (util/catalogue.h). */
static const cx_algorithm *tables[CX_MAX_FAMILIES + 1];
static int ntables, table_first[CX_MAX_FAMILIES + 1], table_len[CX_MAX_FAMILIES + 1];
static int table_family[CX_MAX_FAMILIES + 1];   /* index in cx_families, -1: native */

/* SMPI's own MPI_Scan and MPI_Exscan send every rank's input to every
 * higher rank: p(p-1)/2 messages that no MPI sends (Open MPI passes the
 * prefix along a chain, MPICH doubles), and each rank's MPI_Waitany over
 * p requests makes SimGrid's work O(p^3): hours of host time for one call
 * at 1024 ranks. Its alltoall, where it follows Open MPI, posts every
 * exchange at once at medium sizes, as Open MPI does: p^2 flows at once,
 * whose sharing SimGrid solves again at every change (97 s of host time
 * for 4 calls of 2 KiB blocks at 128 ranks, over 30 min at 256). In SMPI
 * "native" therefore runs the algorithm a family marks .smpi_native where
 * its predicate says so (the MPI's own: Open MPI's chain; MPICH's throttled
 * exchange, the same messages 32 at a time), and SMPI's own elsewhere. */
int cx_smpi_always(const cx_args *a, const char *selector)
{
    (void)a;
    (void)selector;
    return 1;
}

static void build_index(void)
{
    table_family[ntables] = -1;
    tables[ntables++] = native_algorithms;
    for (int f = 0; cx_families[f]; f++)
        if (cx_families[f]->algorithms) {
            table_family[ntables] = f;
            tables[ntables++] = cx_families[f]->algorithms;
        }
    for (int t = 0; t < ntables; t++) {
        table_first[t] = nall;
        for (const cx_algorithm *a = tables[t]; a->name && nall < CX_MAX_ALGS; a++)
            all[nall++] = a;
        table_len[t] = nall - table_first[t];
    }
    cx_smpi_stand_ins(native_algorithms, all, nall);
}

static atomic_int index_built;   /* read by every call (its counter) */

static void build_index_once(void)
{
    build_index();
    atomic_store_explicit(&index_built, 1, memory_order_release);
}

static void ensure_index(void)
{
    if (!atomic_load_explicit(&index_built, memory_order_acquire))
        pthread_once(&index_once, build_index_once);
}

const cx_algorithm *cx_native(cx_coll c)
{
    if (CX_SIMULATED)
        ensure_index();   /* the stand-ins are in place */
    return &native_algorithms[c];
}

/* Every call is counted: a range check per table, not a search. */
int cx_algorithm_index(const cx_algorithm *alg)
{
    static atomic_int last_table;   /* where the last one was: a call's, again */
    if (alg >= native_algorithms && alg < native_algorithms + CX_COLL_COUNT)
        return (int)(alg - native_algorithms);   /* the first table's, always */
    ensure_index();
    int lt = atomic_load_explicit(&last_table, memory_order_relaxed);
    if (alg >= tables[lt] && alg < tables[lt] + table_len[lt])
        return table_first[lt] + (int)(alg - tables[lt]);
    for (int t = 0; t < ntables; t++)
        if (alg >= tables[t] && alg < tables[t] + table_len[t]) {
            atomic_store_explicit(&last_table, t, memory_order_relaxed);
            return table_first[t] + (int)(alg - tables[t]);
        }
    return -1;
}

int cx_algorithm_total(void)
{
    ensure_index();
    return nall;
}

const cx_algorithm *cx_algorithm_at(int i)
{
    ensure_index();
    return i >= 0 && i < nall ? all[i] : NULL;
}

int cx_algorithm_family(const cx_algorithm *alg)
{
    ensure_index();
    for (int t = 0; alg && t < ntables; t++)
        if (alg >= tables[t] && alg < tables[t] + table_len[t])
            return table_family[t];
    return -1;
}

/* The requirement bits in words (collx.h). */
static const struct { unsigned bit; const char *text; } req_text[] = {
    {CX_REQ_COMMUTATIVE, "a commutative operation"},
    {CX_REQ_MULTI_NODE, "more than one node"},
    {CX_REQ_UNIFORM_NODES, "the same number of ranks on every node"},
    {CX_REQ_CONSECUTIVE, "consecutive ranks on every node"},
    {CX_REQ_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE"},
    {CX_REQ_SHM, "node-shared memory within COLLX_SHM_MAX"},
    {CX_REQ_BLOCKING, "a blocking call"},
    {CX_REQ_CHECK, "what its own per-call check wants"},
    {CX_REQ_ORDER_KEPT, "a commutative operation or consecutive ranks on every node"},
    {CX_REQ_NO_THREAD_MULTIPLE, "no MPI_THREAD_MULTIPLE"},
    {0, "what collx serves (e.g. an intracommunicator)"},
};

const char *cx_req_text(unsigned bit)
{
    for (size_t i = 0; i < sizeof req_text / sizeof *req_text; i++)
        if (req_text[i].bit == bit)
            return req_text[i].text;
    return NULL;
}

const cx_algorithm *cx_algorithm_find(cx_coll c, const char *name)
{
    ensure_index();
    for (int i = 0; name && i < nall; i++)
        if (all[i]->coll == c && strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

/* The i-th algorithm of c in registration order. */
static const cx_algorithm *nth(cx_coll c, int n)
{
    ensure_index();
    for (int i = 0; i < nall; i++)
        if (all[i]->coll == c && n-- == 0)
            return all[i];
    return NULL;
}

void cx_algorithm_list(void *file, cx_coll c, const char *sep)
{
    const cx_algorithm *a;
    for (int i = 0; (a = nth(c, i)); i++)
        fprintf(file, "%s%s", i ? sep : "", a->name);
}

/* The requirement bits as the API shows them: a check is one too. */
static unsigned requirements(const cx_algorithm *a)
{
    return a->requires | (a->check ? (unsigned)CX_REQ_CHECK : 0u);
}

/* ------------------------------------------------------------ public API */
int CX_Collective_count(void) { return CX_COLL_COUNT; }

const char *CX_Collective_name(int i)
{
    return i >= 0 && i < CX_COLL_COUNT ? cx_coll_name((cx_coll)i) : NULL;
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

int CX_Algorithm_requires(const char *coll, int i)
{
    int c = cx_coll_from_name(coll);
    const cx_algorithm *a = c < 0 ? NULL : nth((cx_coll)c, i);
    return a ? (int)requirements(a) : -1;
}

const char *CX_Algorithm_fallback(const char *coll, int i)
{
    int c = cx_coll_from_name(coll);
    const cx_algorithm *a = c < 0 ? NULL : nth((cx_coll)c, i);
    if (!a || !a->build)
        return NULL;
    return a->fallback ? a->fallback : "native";
}

int CX_Algorithm_where(const char *coll, int i, const char **family, const char **builder)
{
    int c = cx_coll_from_name(coll);
    const cx_algorithm *a = c < 0 ? NULL : nth((cx_coll)c, i);
    if (!a)
        return -1;
    int f = cx_algorithm_family(a);
    if (family)
        *family = f < 0 ? "native" : cx_family_name(f);
    if (builder)
        *builder = a->build && a->builder ? a->builder : "PMPI";
    return 0;
}

int CX_Algorithm_needs(const char *coll, int i, char *buf, int len)
{
    int c = cx_coll_from_name(coll), n = 0;
    const cx_algorithm *a = c < 0 ? NULL : nth((cx_coll)c, i);
    if (!a || !buf || len <= 0)
        return -1;
    buf[0] = '\0';
    unsigned r = requirements(a);
    for (unsigned bit = 1; bit && bit <= r; bit <<= 1)
        if (r & bit)
            n += snprintf(buf + n, (size_t)(len > n ? len - n : 0), "%s%s",
                          n ? ", " : "", cx_req_text(bit));
    if (n && a->build)
        n += snprintf(buf + n, (size_t)(len > n ? len - n : 0), "; else %s",
                      a->fallback ? a->fallback : "native");
    return n;
}
