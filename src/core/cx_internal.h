/* Internal interfaces shared by the core and the algorithm families. */
#ifndef CX_INTERNAL_H
#define CX_INTERNAL_H

#include <stddef.h>
#include <mpi.h>
#include "collx.h"
#include "colls.h"
#include "dtype.h"
#include "sched.h"
#include "comm.h"
#include "registry.h"
#include "progress.h"
#include "knobs.h"
#include "stats.h"

/* Checks the arguments (validate.c); MPI_SUCCESS or an MPI error class. */
int cx_validate(const cx_args *a);
/* A nonblocking call's schedule s runs on duplicates of a's derived
 * datatypes, freed with s: the program may free its own; its count and
 * displacement arrays are copied into s (hold.c). */
int cx_hold_args(cx_args *a, cx_sched *s);
/* COLLX_VERBOSE (0 when unset): 1 = each selection once, 2 = every call. */
int cx_verbose(void);
/* One line "collx: ..." on stderr. */
void cx_say(const char *fmt, ...);
/* Reports err through comm's error handler; returns err. */
int cx_error(MPI_Comm comm, int err, const char *fmt, ...);

/* Settings every rank must share (settings.c): compared at MPI_Init by
 * the interposer (point-to-point to rank 0, COLLX_CHECK_TIMEOUT). The
 * message (rank 0's) when coll's differ, else NULL; and whether some rank
 * did not answer (collx then hands every call to the MPI). */
void cx_settings_check(void);
const char *cx_settings_differ(int coll);
int cx_settings_native(void);

/* A blocking call entered and left (watchdog.c: COLLX_WAIT_WARN). */
void cx_watch_enter(int coll);
void cx_watch_leave(void);

/* Executes one call (blocking, or nonblocking when req != NULL). */
int cx_dispatch(cx_args *a, CX_Request *req);
/* The same, nonblocking, into an MPI_Request: the MPI's own request when
 * the MPI's call serves it, else a generalized request (request.h). */
int cx_dispatch_mpi(cx_args *a, MPI_Request *req);
/* Which algorithm serves call a (a->nonblocking set): want (NULL: the
 * selected one) or the fallback its requirements give, into *run; the
 * MPI's own call (no build) also for an intercommunicator. Fills rank,
 * size, cc and pcomm when a collx algorithm runs. Errors went through
 * the communicator's error handler already. */
int cx_decide_call(cx_args *a, const struct cx_algorithm *want,
                   const struct cx_algorithm **run);
/* The same, blocking, with alg (or what its requirements fall back to)
 * instead of the selected algorithm. */
int cx_dispatch_as(cx_args *a, const struct cx_algorithm *alg);

#endif
