/* A persistent plan's own communicator (plan_comm.c), for a family whose
 * calls take turns on a communicator (catalogue.h: takes_turns). MPI-4 lets
 * ranks start persistent collectives in any order, so such a plan gets a
 * duplicate of its own at init: its turns are then its own. Freeing it
 * frees node-shared windows, which is collective over the node, while
 * MPI_Request_free is local and ranks may free requests in any order: a
 * freed plan's communicator is retired, and at a later plan init on the
 * same communicator (collective, in the same order everywhere), once
 * every rank has freed it, reused by the new plan or destroyed. */
#ifndef CX_PLAN_COMM_H
#define CX_PLAN_COMM_H

#include <mpi.h>

struct cx_comm;
typedef struct cx_plan_comm cx_plan_comm;

/* At init on comm (state parent; collective over comm): the new plan's
 * communicator (*out, cx_plan_comm_of): one that every rank has retired,
 * or a duplicate of comm. Retired ones beyond a few spares are destroyed. */
int cx_plan_comm_new(struct cx_comm *parent, MPI_Comm comm, cx_plan_comm **out);
MPI_Comm cx_plan_comm_of(const cx_plan_comm *pc);
/* At the plan's free (local): retired, destroyed later. */
void cx_plan_comm_retire(cx_plan_comm *pc);
/* With the parent's state. Its communicator freed by the program
 * (collective): what every rank retired is destroyed (one MPI_Allreduce on
 * the parent's private communicator). At MPI_Finalize, and for plans some
 * rank still holds, they are forgotten, not freed (no rank can tell
 * alone; their windows go at MPI_Finalize, as every node segment does). */
void cx_plan_comms_release(struct cx_comm *parent);

#endif
