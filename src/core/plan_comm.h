/* A persistent plan's own communicator (plan_comm.c), for a family whose
 * calls take turns on a communicator (family.h: takes_turns). MPI-4 lets
 * ranks start persistent collectives in any order, so such a plan gets a
 * duplicate of its own at init: its turns are then its own. Freeing it
 * frees node-shared windows, which is collective over the node, while
 * MPI_Request_free is local and ranks may free requests in any order: a
 * freed plan's communicator is retired, and destroyed at a later plan
 * init on the same communicator (collective, in the same order
 * everywhere) once every rank has freed it. */
#ifndef CX_PLAN_COMM_H
#define CX_PLAN_COMM_H

#include <mpi.h>

struct cx_comm;
typedef struct cx_plan_comm cx_plan_comm;

/* At init on comm (state parent; collective over comm): destroys the
 * retired plan communicators every rank has freed, then duplicates comm
 * for the new plan (*out, its communicator cx_plan_comm_of). */
int cx_plan_comm_new(struct cx_comm *parent, MPI_Comm comm, cx_plan_comm **out);
MPI_Comm cx_plan_comm_of(const cx_plan_comm *pc);
/* At the plan's free (local): retired, destroyed later. */
void cx_plan_comm_retire(cx_plan_comm *pc);
/* With the parent's state: what is retired stays until MPI_Finalize (no
 * rank can tell whether the others freed it; the windows go then, as
 * every node segment does). */
void cx_plan_comms_release(struct cx_comm *parent);

#endif
