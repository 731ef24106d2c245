/* A call's decision: the algorithm the selection asked for, what runs
 * (it, or the first of its fallbacks that can serve the call) and why.
 * Made here only, cached on the communicator while its inputs repeat,
 * counted, said under COLLX_VERBOSE and handled as COLLX_FALLBACK says.
 * Every input is one all ranks hold alike, so is the decision. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "select.h"

/* COLLX_FALLBACK's values, in the order of its declaration. */
enum { POLICY_SILENT, POLICY_PRINT, POLICY_ERROR };

static int fallback_policy(void)
{
    return (int)cx_knob_int(CX_KNOB_FALLBACK);
}

static int commutative(MPI_Op op)
{
    int commute = 1;
    /* MPI's reduction operations all commute (MPI_REPLACE is RMA's) */
    if (op != MPI_OP_NULL && (op == MPI_REPLACE || !cx_op_builtin(op)))
        PMPI_Op_commutative(op, &commute);
    return commute;
}

/* Why alg cannot serve this call (NULL: it can), and the requirement
 * missed in *bit. */
static const char *unmet(const cx_algorithm *alg, const cx_args *a, cx_comm *c,
                         unsigned *bit, int *err)
{
    static _Thread_local char why[160];   /* threads may fall back at once */
    unsigned r = alg->requires;
    *bit = 0;
    if ((r & CX_REQ_COMMUTATIVE) && !commutative(a->op))
        return *bit = CX_REQ_COMMUTATIVE, "needs a commutative operation";
    if ((r & CX_REQ_BLOCKING) && a->nonblocking)
        return *bit = CX_REQ_BLOCKING, "serves blocking calls only";
    if ((r & CX_REQ_THREAD_MULTIPLE) && !c->thread_multiple)
        return *bit = CX_REQ_THREAD_MULTIPLE, "needs MPI_THREAD_MULTIPLE on every rank";
    if ((r & CX_REQ_NO_THREAD_MULTIPLE) && c->thread_multiple)
        return *bit = CX_REQ_NO_THREAD_MULTIPLE,
               "does not run under MPI_THREAD_MULTIPLE yet";
    if (r & CX_REQ_NODES) {
        if ((*err = cx_comm_node_map(c)))
            return "cannot learn the node layout";
        if ((r & CX_REQ_MULTI_NODE) && c->nnodes < 2)
            return *bit = CX_REQ_MULTI_NODE, "needs more than one node";
        if ((r & CX_REQ_UNIFORM_NODES) && !c->uniform)
            return *bit = CX_REQ_UNIFORM_NODES, "needs the same number of ranks on every node";
        if ((r & CX_REQ_CONSECUTIVE) && !c->consecutive)
            return *bit = CX_REQ_CONSECUTIVE,
                   "needs the ranks of every node to be consecutive";
        if ((r & CX_REQ_ORDER_KEPT) && !c->consecutive && !commutative(a->op))
            return *bit = CX_REQ_ORDER_KEPT,
                   "keeps the canonical order of a non-commutative operation only when "
                   "every node's ranks are consecutive";
        if ((r & CX_REQ_SHM) && alg->shm_bytes && alg->shm_bytes(a) > cx_shm_max()) {
            snprintf(why, sizeof why, "needs %lld bytes of node-shared memory, above "
                     "COLLX_SHM_MAX=%lld", (long long)alg->shm_bytes(a),
                     (long long)cx_shm_max());
            return *bit = CX_REQ_SHM, why;
        }
    }
    const char *no = alg->check ? alg->check(a, c) : NULL;
    if (no)
        *bit = CX_REQ_CHECK;
    return no;
}

/* Whether the answer for alg can change between calls whose op and
 * blocking mode are the same: sizes and per-call checks. */
static int per_call(const cx_algorithm *alg)
{
    return alg->check || ((alg->requires & CX_REQ_SHM) && alg->shm_bytes);
}

static int decide_now(const cx_args *a, cx_comm *c, const cx_algorithm *asked,
                      const cx_knob_params *params, cx_decision *d, int *cacheable)
{
    int err = MPI_SUCCESS;
    *d = (cx_decision){.asked = asked, .params = params, .alg = asked};
    *cacheable = 1;
    for (int hops = 0; d->alg->build && hops < 8; hops++) {
        unsigned bit;
        *cacheable &= !per_call(d->alg);
        const char *why = unmet(d->alg, a, c, &bit, &err);
        if (err || !why)
            return err;
        if (!d->why) {   /* the asked algorithm's reason is the one to say */
            d->why = why;
            d->unmet = bit;
        }
        const cx_algorithm *next = d->alg->fallback
                                       ? cx_algorithm_find(a->coll, d->alg->fallback)
                                       : NULL;
        d->alg = next ? next : cx_native(a->coll);
    }
    if (d->alg->build)
        d->alg = cx_native(a->coll);
    return MPI_SUCCESS;
}

/* COLLX_FALLBACK=error: one MPI error code per requirement bit that has
 * a text (registry.c), and one for none of them (index 32), of class
 * MPI_ERR_UNSUPPORTED_OPERATION, whose MPI_Error_string names it (the
 * class itself where the MPI cannot add codes). */
#define NONE_OF_THEM 32
static int req_code[NONE_OF_THEM + 1];
static pthread_once_t codes_once = PTHREAD_ONCE_INIT;

static void make_codes(void)
{
    for (int i = 0; i <= NONE_OF_THEM; i++) {
        const char *what = cx_req_text(i < NONE_OF_THEM ? 1u << i : 0u);
        char text[MPI_MAX_ERROR_STRING];
        int code;
        req_code[i] = MPI_ERR_UNSUPPORTED_OPERATION;
        if (!what)
            continue;
        snprintf(text, sizeof text, "collx (COLLX_FALLBACK=error): the algorithm "
                 "asked for needs %s", what);
        if (PMPI_Add_error_code(MPI_ERR_UNSUPPORTED_OPERATION, &code) == MPI_SUCCESS &&
            PMPI_Add_error_string(code, text) == MPI_SUCCESS)
            req_code[i] = code;
    }
}

static int error_code(unsigned bit)
{
    pthread_once(&codes_once, make_codes);
    int i = 0;
    while (i < NONE_OF_THEM && bit != 1u << i)
        i++;
    return req_code[i];
}

int cx_fell_back(const cx_args *a, const cx_algorithm *asked, const cx_algorithm *to,
                 unsigned bit, const char *why)
{
    static atomic_int said[CX_COLL_COUNT];
    int v = cx_verbose(), pol = fallback_policy();
    cx_count_fallback(a, asked, to, bit, why);
    if ((v > 0 || pol != POLICY_SILENT) && a->rank == 0 &&
        (v > 1 || !atomic_exchange(&said[a->coll], 1)))
        cx_say("%s: %s %s; %s %s", cx_coll_mpi_name(a->coll), asked->name, why,
               pol == POLICY_ERROR ? "COLLX_FALLBACK=error, else would run" : "running",
               to->name);
    return pol == POLICY_ERROR ? error_code(bit) : MPI_SUCCESS;
}

/* The decision for asked on call a, from c's cache or made (and cached). */
static int decided(const cx_args *a, cx_comm *c, const cx_algorithm *asked,
                   const cx_knob_params *params, cx_decision *d, int *steady)
{
    int cacheable, err;
    *steady = 0;
    cx_select_comm *st = cx_select_of(c);
    if (!st)
        return MPI_ERR_NO_MEM;
    cx_decision_cache *k = &st->decided[a->coll];
    int nb = a->nonblocking;
    /* Keyed by what the decision reads of the operation, not its handle:
     * a freed user-defined operation's handle comes back for the next one
     * created, which may not commute. */
    int commute = (cx_coll_shape(a->coll) & CX_REDUCTION) ? commutative(a->op) : 1;
    if (k->valid && k->d.asked == asked && k->d.params == params && k->commute == commute &&
        k->nonblocking == nb && (!k->shm || asked->shm_bytes(a) <= cx_shm_max())) {
        *d = k->d;
        *steady = 1;   /* a segment's fit is the same for the same arguments */
        return MPI_SUCCESS;
    }
    if ((err = decide_now(a, c, asked, params, d, &cacheable)))
        return err;
    /* An algorithm whose only per-call question is whether the call's
     * segment fits (hier) keeps its decision, asked again per call: the
     * rest of the walk is the same for every call. */
    int shm = !cacheable && !d->why && d->alg == asked && !asked->check;
    *k = (cx_decision_cache){.valid = cacheable || shm, .shm = shm, .d = *d,
                             .commute = commute, .nonblocking = nb};
    *steady = cacheable || shm;
    return MPI_SUCCESS;
}

int cx_decide(const cx_args *a, cx_comm *c, const cx_algorithm *asked,
              const cx_knob_params *params, cx_decision *d, int *steady)
{
    int err = decided(a, c, asked, params, d, steady);
    if (err)
        return err;
    return d->why ? cx_fell_back(a, d->asked, d->alg, d->unmet, d->why) : MPI_SUCCESS;
}

int cx_decide_serves(const cx_args *a, cx_comm *c, const cx_algorithm *alg,
                     const cx_knob_params *params, int *err)
{
    cx_decision d;
    int steady;
    *err = decided(a, c, alg, params, &d, &steady);
    return !*err && !d.why;
}

void cx_fall_back_in_build(const cx_args *a, cx_sched *s, const cx_algorithm *to,
                           unsigned bit, const char *why)
{
    int err = cx_fell_back(a, a->alg, to ? to : cx_native(a->coll), bit, why);
    if (err)
        cx_sched_fail(s, err);   /* the call still runs, so no peer waits */
}
