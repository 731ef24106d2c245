/* Blocking calls whose arguments repeat run the schedule the last one
 * built (replay.c). */
#ifndef CX_REPLAY_H
#define CX_REPLAY_H

#include "../select/select.h"

/* The schedule kept on c for a call like a (decided: a->alg, a->params),
 * taken from c; NULL when none is kept or its call differed. */
cx_sched *cx_replay_take(cx_comm *c, const cx_args *a);
/* After a blocking run of s for a (replayed: s came from
 * cx_replay_take): keeps s on c if a call with the same arguments can run
 * it again, else gives it back (cx_sched_give_spare). */
void cx_replay_keep(cx_comm *c, const cx_args *a, cx_sched *s, int replayed);

#endif
