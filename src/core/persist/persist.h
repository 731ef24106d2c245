/* Persistent collectives (persist.c): MPI-4's MPI_<Name>_init, as
 * CX_<Name>_init and through the interposer. Everything the call decides
 * is decided once, at init: the algorithm (selection, requirements,
 * fallback), and for a family whose schedules replay (util/catalogue.h) the
 * schedule itself, with its set-up run (tuw's tree construction, topo's
 * mapping); each start runs that plan. Other families build their
 * schedule at each start from the saved call, as a nonblocking call
 * would. The program sees a CX_Request, or an MPI_Request: a persistent
 * receive from itself on a private communicator, which the plan's end
 * completes with a message (so that every completion call of the MPI
 * treats it as the persistent request it is: inactive after completion,
 * startable again, freed by MPI_Request_free). */
#ifndef CX_PERSIST_H
#define CX_PERSIST_H

#include <mpi.h>
#include "../call/call.h"

struct cx_request;

typedef struct cx_plan {
    cx_args a;                       /* the call (the program's buffers and arrays) */
    const struct cx_algorithm *alg;  /* what every start runs (decided at init) */
    int replay;                      /* the schedule built at init runs again */
    int active;                      /* started and not complete */
    int mpi;                         /* the MPI face: self receive */
    int free_when_done;              /* MPI face: freed while active */
    MPI_Request self;                /* MPI face: persistent receive from self */
    int tag;                         /* its tag */
    unsigned starts;                 /* how often this rank started it */
    int tag_base;                    /* first of its start tags (0: ordered tags) */
    MPI_Comm own;                    /* the MPI's call: its own duplicate */
    struct cx_plan_comm *turns;      /* a family that takes turns: its own
                                        communicator (plan_comm.h) */
    char dummy;                      /* its buffer */
    struct cx_sched *keep;           /* owner of the call's held datatypes */
} cx_plan;

/* CX_<Name>_init: the request for the persistent call a. */
int cx_plan_init(cx_args *a, CX_Request *req);
/* MPI face: the persistent request of call a into *mreq; when the MPI's
 * own call serves it, native_init(a, info, mreq) (the MPI's
 * PMPI_<Name>_init) makes it, or with native_init NULL collx's request
 * whose starts are the MPI's MPI_I<name>. */
typedef int (*cx_native_init_fn)(const cx_args *a, MPI_Info info, MPI_Request *mreq);
int cx_plan_init_mpi(cx_args *a, MPI_Info info, MPI_Request *mreq,
                     cx_native_init_fn native_init);
/* MPI face: whether *mreq is one of collx's persistent requests. */
int cx_plan_owns(MPI_Request mreq);
/* MPI face: MPI_Start and MPI_Request_free of one of them. */
int cx_plan_start_mpi(MPI_Request *mreq);
/* MPI_Wait on mreq, a started plan of collx: its schedule run here
 * (cx_request_wait_taken); 1 if it did. */
int cx_plan_wait_mpi(MPI_Request mreq);
int cx_plan_free_mpi(MPI_Request *mreq);
/* A CX_Request's start (request.c calls it from CX_Start). */
int cx_plan_start(struct cx_request *r);

#endif
