/* A call's decision from its arguments (decide_call.c): the one entry
 * the dispatcher and persistent plans ask, and the policy hook through
 * which a room above (online tuning) may answer for a call. */
#ifndef CX_DECIDE_CALL_H
#define CX_DECIDE_CALL_H

#include "../util/util.h"

struct cx_algorithm;
struct cx_comm;
struct cx_knob_params;

/* Which algorithm serves call a (a->nonblocking set): want (NULL: the
 * selected one, or the policy's pick) or the fallback its requirements
 * give, into *run; the MPI's own call (no build) also for an
 * intercommunicator. Fills rank, size, cc and pcomm when a collx
 * algorithm runs, and a->params. Errors went through the communicator's
 * error handler already. The caller has read COLLX_STATS first (its watch
 * sees the first hand-over). */
int cx_decide_call(cx_args *a, const struct cx_algorithm *want,
                   const struct cx_algorithm **run);

/* Whether call a goes to the MPI's own call with no decision: nothing
 * selects anything for its collective and no policy is set, as when a
 * call of it was last decided (the selection's generation holds). The
 * dispatcher's short path for a collective left to the MPI. */
int cx_decided_native(const cx_args *a);

/* A policy that may replace the selection's choice for blocking calls
 * nothing forces (online tuning registers itself; select never names
 * it). covers: whether it looks at collective c's calls, asked before
 * anything of the communicator is known. pick: the algorithm for call a
 * on c whose usual choice is usual with *params (*params then the
 * pick's); it may set a->tune (a timed trial) and be collective over c's
 * ranks, at the same call on all; NULL with *err on failure. A pick that
 * cannot serve the call itself leaves it to usual, untimed. */
typedef struct cx_select_policy {
    int (*covers)(cx_coll c);
    const struct cx_algorithm *(*pick)(cx_args *a, struct cx_comm *c,
                                       const struct cx_algorithm *usual,
                                       const struct cx_knob_params **params, int *err);
} cx_select_policy;
/* Registers p (NULL: none) for every later call: set it before calls
 * that it must see, alike on every rank. */
void cx_select_set_policy(const cx_select_policy *p);

#endif
