/* Blocking calls whose arguments repeat run the schedule the last one
 * built (replay.c). */
#ifndef CX_REPLAY_H
#define CX_REPLAY_H

#include "../select/select.h"

/* What a communicator keeps of the last blocking call of a collective
 * (replay.c): its arguments (the key), its decision and its schedule. */
typedef struct cx_kept {
    cx_sched *s;    /* NULL: none (or taken by the call that runs it) */
    unsigned gen;   /* a->decided_gen of its call: 0, or its decision holds while it stays */
    int index;      /* alg's in the registry (its count) */
    const cx_algorithm *alg;
    const cx_knob_params *params;
    const int *order;
    const void *sbuf;
    void *rbuf;
    int scount, rcount, root;
    MPI_Datatype stype, rtype;
    MPI_Op op;
} cx_kept;

/* A blocking call with the arguments of the call kept for its
 * collective on its communicator, whose decision still holds (the
 * selection's generation it was made under): that entry, the
 * communicator in *on; NULL otherwise (cx_decide_call decides). One
 * comparison of the arguments for the decision and the schedule both.
 * The caller takes k->s (NULL: none kept; hier's, for one) while it runs
 * it, so that a nested call on the communicator finds none. Not
 * exported: link-time optimization inlines it into cx_dispatch, its one
 * caller. */
__attribute__((visibility("hidden"))) cx_kept *cx_replay_decided(const cx_args *a,
                                                                 cx_comm **on);
/* Fills call a's decision from k (a->alg, a->params, a->decided_gen)
 * and its communicator's state from c, as cx_decide_call would. */
void cx_replay_decision(cx_args *a, const cx_kept *k, cx_comm *c);
/* A blocking call that kept no schedule (its algorithm's first step
 * ended it, or its schedule cannot run again): its decision kept for
 * the next call with the same arguments. */
void cx_replay_note(cx_comm *c, const cx_args *a);
/* After the run of s taken from k: s kept there again (or given back
 * if it failed or a nested call kept one). */
static inline void cx_replay_back(cx_kept *k, cx_sched *s)
{
    if (!s->err && !k->s)
        k->s = s;   /* its key and decision are still the call's */
    else
        cx_sched_give_spare(s);
}
/* The schedule kept on c for a call like a (decided: a->alg, a->params),
 * taken from c; NULL when none is kept or its call differed. */
cx_sched *cx_replay_take(cx_comm *c, const cx_args *a);
/* After a blocking run of s for a (replayed: s came from
 * cx_replay_take): keeps s on c if a call with the same arguments can run
 * it again, else gives it back (cx_sched_give_spare). */
void cx_replay_keep(cx_comm *c, const cx_args *a, cx_sched *s, int replayed);

#endif
