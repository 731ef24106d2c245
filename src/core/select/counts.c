/* What collx served, always (registry.h): the calls, inner calls and
 * hand-overs of every algorithm (CX_Algorithm_calls, _inner_calls,
 * _fallbacks) and COLLX_VERBOSE's line for each selection. A room above
 * that keeps more (COLLX_STATS, stats.c) watches the hand-overs through
 * cx_counts_watch_fallbacks, so that this room never calls up into it. */
#include <stdio.h>
#include "select.h"

atomic_long cx_counted_calls[CX_MAX_ALGS];
static atomic_long fallbacks[CX_MAX_ALGS], inner[CX_MAX_ALGS];
static atomic_int shown[CX_MAX_ALGS][3];   /* blocking, nonblocking, persistent */
static _Atomic(cx_fallback_watch) watch;

void cx_counts_watch_fallbacks(cx_fallback_watch w)
{
    atomic_store(&watch, w);
}

void cx_count_say(int i, const cx_algorithm *alg, const cx_args *a, int verbose)
{
    int rank = a->rank, size = a->size;
    if (a->comm != MPI_COMM_NULL && !a->size) {  /* fast native path */
        PMPI_Comm_rank(a->comm, &rank);
        PMPI_Comm_size(a->comm, &size);
    }
    /* Once per algorithm and form of the call (named MPI_<Name>,
     * MPI_I<lower-case name> or MPI_<Name>_init), and once per rule's
     * params: they change the call. */
    int form = a->persistent ? 2 : a->nonblocking ? 1 : 0;
    if (rank == 0 && (verbose > 1 || (a->params ? cx_knob_params_first_show(a->params)
                                                : !atomic_exchange(&shown[i][form], 1)))) {
        char with[512] = "";
        if (a->params) {
            int n = snprintf(with, sizeof with, " with rules[%d].params ", a->params->rule);
            cx_knob_params_text(a->params, with + n, sizeof with - (size_t)n);
        }
        fprintf(stderr, "collx: %s%s%s -> %s%s (p=%d%s)\n", form == 1 ? "MPI_I" : "",
                form == 1 ? cx_coll_name(a->coll) : cx_coll_mpi_name(a->coll),
                form == 2 ? "_init" : "", alg->name, with, size,
                verbose > 1 ? "" : ", shown once");
    }
}

void cx_count_inner(const cx_algorithm *alg)
{
    int i = cx_algorithm_index(alg);
    if (i >= 0)
        atomic_fetch_add_explicit(&inner[i], 1, memory_order_relaxed);
}

void cx_count_fallback(const cx_args *a, const cx_algorithm *asked, const cx_algorithm *to,
                       unsigned bit, const char *why)
{
    int i = cx_algorithm_index(asked);
    if (i < 0)
        return;
    atomic_fetch_add_explicit(&fallbacks[i], 1, memory_order_relaxed);
    cx_fallback_watch w = atomic_load_explicit(&watch, memory_order_acquire);
    if (w)
        w(a, i, to, bit, why);
}

/* ------------------------------------------------------------ public API */
long CX_Algorithm_calls(const char *coll, const char *alg)
{
    int c = cx_coll_from_name(coll);
    const cx_algorithm *a = c < 0 ? NULL : cx_algorithm_find((cx_coll)c, alg);
    int i = a ? cx_algorithm_index(a) : -1;
    return i < 0 ? 0 : atomic_load(&cx_counted_calls[i]);
}

long CX_Algorithm_inner_calls(const char *coll, const char *alg)
{
    int c = cx_coll_from_name(coll);
    const cx_algorithm *a = c < 0 ? NULL : cx_algorithm_find((cx_coll)c, alg);
    int i = a ? cx_algorithm_index(a) : -1;
    return i < 0 ? 0 : atomic_load(&inner[i]);
}

long CX_Algorithm_fallbacks(const char *coll, const char *alg)
{
    int c = cx_coll_from_name(coll);
    const cx_algorithm *a = c < 0 ? NULL : cx_algorithm_find((cx_coll)c, alg);
    int i = a ? cx_algorithm_index(a) : -1;
    return i < 0 ? 0 : atomic_load(&fallbacks[i]);
}
