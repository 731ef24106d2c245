/* Blocking calls whose arguments repeat run the schedule the last one
 * built (replay.c). */
#ifndef CX_REPLAY_H
#define CX_REPLAY_H

#include "../select/select.h"

/* A blocking call with the arguments of the call kept for its
 * collective on its communicator, whose decision still holds (the
 * selection's generation it was made under, a->decided_gen): 1, with
 * that decision (a->alg, a->params, the communicator's state in a), the
 * algorithm's registry index in *index and the kept schedule, taken, in
 * *sched (NULL where none is kept: the algorithm builds, hier's for
 * one); 0 otherwise (cx_decide_call decides). One comparison of the
 * arguments for the decision and the schedule both. */
int cx_replay_decided(cx_args *a, int *index, void **slot, cx_sched **sched);
/* A blocking call that kept no schedule (its algorithm's first step
 * ended it, or its schedule cannot run again): its decision kept for
 * the next call with the same arguments. */
void cx_replay_note(cx_comm *c, const cx_args *a);
/* After the run of s that cx_replay_decided gave from slot: s kept
 * there again (or given back if it failed or a nested call kept one). */
void cx_replay_back(void *slot, cx_sched *s);
/* The schedule kept on c for a call like a (decided: a->alg, a->params),
 * taken from c; NULL when none is kept or its call differed. */
cx_sched *cx_replay_take(cx_comm *c, const cx_args *a);
/* After a blocking run of s for a (replayed: s came from
 * cx_replay_take): keeps s on c if a call with the same arguments can run
 * it again, else gives it back (cx_sched_give_spare). */
void cx_replay_keep(cx_comm *c, const cx_args *a, cx_sched *s, int replayed);

#endif
