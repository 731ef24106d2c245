/* The engine (docs/design/layers.md): schedules and their execution,
 * progress and requests, scratch memory, datatypes, and a communicator's
 * state (node layout, node-shared memory, plan communicators, the
 * families' and the upper rooms' slots). It includes only the room below
 * (util); the rooms above plug in through its hooks: a request's timer,
 * a communicator's room slots, the families' hooks. */
#ifndef CX_ENGINE_H
#define CX_ENGINE_H

#include "../util/util.h"
#include "dtype.h"
#include "scratch.h"
#include "sched.h"
#include "progress.h"
#include "comm.h"
#include "bell.h"
#include "plan_comm.h"
#include "request.h"
#include "blocks.h"
#include "recent.h"
#include "spin.h"
#include "phases.h"

/* A nonblocking call's schedule s runs on duplicates of a's derived
 * datatypes, freed with s: the program may free its own; its count and
 * displacement arrays are copied into s (hold.c). */
int cx_hold_args(cx_args *a, cx_sched *s);

/* A blocking call entered and left (watchdog.mpi.c: COLLX_WAIT_WARN):
 * leave with what enter returned. */
unsigned long cx_watch_enter(int coll);
void cx_watch_leave(unsigned long was);
/* The number the watcher reads now (0: no call watched; tests). */
unsigned long cx_watch_current(void);

/* The MPI library's own call for a (blocking, or nonblocking into *req). */
int cx_native_run(const cx_args *a);
int cx_native_start(const cx_args *a, MPI_Request *req);

/* Family slot's state on c (the family's own; cx_family): read it with
 * cx_comm_state_of, write it where cx_comm_state points. The ends of c's
 * blocking calls look for after_call hooks to run once a family that has
 * one asked cx_comm_state on c (only then can it have state there). */
void **cx_comm_state(struct cx_comm *c, int slot);
void *cx_comm_state_of(const struct cx_comm *c, int slot);

#endif
