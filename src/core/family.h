/* A family of algorithms as the core sees it: its catalogue, and the hooks
 * on the state it keeps per communicator. A new family is one descriptor
 * (in its register.c) and one name in CX_FAMILIES (families.c); the core
 * never looks into a family's state. */
#ifndef CX_FAMILY_H
#define CX_FAMILY_H

struct cx_algorithm;
struct cx_comm;

typedef struct cx_family {
    const char *name;
    const struct cx_algorithm *algorithms;  /* ends with a NULL name */
    /* Where the core writes the family's index among the families: the
     * key of its state on a communicator (cx_comm_state). It lives beside
     * the state's code, so that code needs the core only, not the
     * catalogue (register.c), which points at it. */
    int *slot;
    /* Hooks, called when the family has state on the communicator: */
    void (*release)(void *state);           /* with the communicator */
    void (*after_call)(void *state);        /* after every blocking call */
    /* Completes the family's nonblocking calls in flight on the
     * communicator (they post collectives on its private, node and leader
     * communicators as they progress). */
    int (*quiesce)(struct cx_comm *c);
    /* Its schedules can run again as built (no step keeps state between
     * runs, set-up marked with cx_sched_plan_setup/here): a persistent
     * call builds once at init and replays; otherwise each start builds
     * anew, as a nonblocking call would. */
    int replays;
    /* Its calls take turns on the communicator (node barriers, segment
     * slots, in call order): a persistent call runs on a communicator of
     * its own (plan_comm.h), since MPI-4 lets ranks start persistent
     * calls in any order. */
    int takes_turns;
} cx_family;

/* Every family, NULL-terminated, in a fixed order. */
extern const cx_family *const cx_families[];
#define CX_MAX_FAMILIES 16

/* Where the family whose slot variable is `slot` keeps its state on c
 * (NULL until it puts one there); the slots are set before any
 * communicator state exists (cx_families_init). */
void **cx_comm_state(struct cx_comm *c, int slot);
/* Numbers the families' slots (once; cx_comm_get calls it). */
void cx_families_init(void);

#endif
