/* collx's requests (request.c): a schedule in flight on the progress
 * agent, which the program completes either as a CX_Request (CX_Test,
 * CX_Wait) or, through the interposer, as an MPI_Request: a generalized
 * request (MPI_Grequest_start) that the agent completes when the
 * schedule ends, so that every completion call of the MPI takes it, in
 * any array, beside the MPI's own requests. */
#ifndef CX_REQUEST_H
#define CX_REQUEST_H

#include <mpi.h>
#include "sched.h"
#include "progress.h"

struct cx_comm;
struct cx_plan;

/* A clock on a CX_I call (COLLX_STATS keeps one, stats.h): stopped while
 * the program is away from CX_Test and CX_Wait, ended (and freed) when the
 * request completes. The engine runs it without knowing what it counts. */
typedef struct cx_request_timer {
    void (*pause)(void *clock);
    void (*resume)(void *clock);
    void (*end)(void *clock);
} cx_request_timer;

struct cx_request {
    int native;           /* a CX_Request of the MPI's own call: in mpi */
    MPI_Request mpi;
    cx_sched sched;       /* built by the dispatcher, then begun here */
    cx_job job;           /* on the progress agent while in flight */
    int err;              /* the schedule's result once it finished */
    int finished;         /* the schedule finished (counted off cc) */
    struct cx_comm *cc;   /* the communicator whose in-flight count it is in */
    MPI_Request greq;     /* MPI face: the generalized request */
    int holds;            /* MPI face: collx's hold and MPI's (free_fn) */
    struct cx_request *next_buried;
    struct cx_plan *plan; /* persistent: what each start runs (persist.h;
                             the engine never looks into it) */
    const int *active;    /* persistent: its plan's "started and not
                             complete" flag; NULL otherwise */
    /* persistent: called when a start completed, instead of freeing r */
    void (*completed)(struct cx_request *r);
    const cx_request_timer *timer;   /* the CX_I call's clock, NULL: none */
    void *clock;
};

/* A request for a schedule on c (calloc'ed; NULL when out of memory). */
struct cx_request *cx_request_new(struct cx_comm *c);
/* Frees a request whose schedule never began. */
void cx_request_drop(struct cx_request *r);
/* Begins r's built schedule and hands it to the agent, as a CX_Request
 * into *req, or as a generalized MPI request into *mreq (MPI_SUCCESS or
 * the MPI's error from MPI_Grequest_start; r is then dropped). */
int cx_request_start(struct cx_request *r, CX_Request *req);
int cx_request_start_mpi(struct cx_request *r, MPI_Request *mreq);
/* Begins r's schedule (built, or replayed by cx_sched_plan_start) on
 * the agent: as a CX_Request (owned by the program, taken back in
 * CX_Test/CX_Wait), or handed over with finish called at its end. */
void cx_request_launch(struct cx_request *r, void (*finish)(void *ctx));
/* MPI_Wait on one request of the MPI face: takes the schedule in flight
 * that match accepts back from the agent, runs it to its end here as
 * CX_Wait does (MPI_Waitall per round while nothing else of collx is in
 * flight, instead of a loop of tests and naps) and calls its finish (the
 * generalized request completes, a persistent start sends its message).
 * 1 if it did; 0: not there (finished, or not collx's). */
int cx_request_wait_taken(int (*match)(const struct cx_request *r, const void *arg),
                          const void *arg);
/* The same for the generalized request mreq. */
int cx_request_wait_mpi(MPI_Request mreq);
/* Frees the requests MPI let go of inside its callbacks (cheap when
 * there are none). */
void cx_request_bury(void);
/* Generalized requests whose schedule has not finished yet (for
 * MPI_Finalize: a request the program freed must still complete). */
int cx_request_mpi_in_flight(void);
/* Moves them on until none is left, then frees what MPI let go of: the
 * interposer's MPI_Finalize (and SMPI's, api/smpi_finalize.smpi.c). */
void cx_request_drain_mpi(void);

#endif
