/* The catalogue as data: every algorithm's row (what it serves, needs and
 * falls back to) and every family's descriptor (its rows and the hooks on
 * its per-communicator state). The lowest room holds it so that any room
 * can read it (the knobs check algorithm names against it); the functions
 * that search and choose in it are the selection's (select/registry.h),
 * and the engine runs the families' hooks (engine/comm.c). */
#ifndef CX_CATALOGUE_H
#define CX_CATALOGUE_H

#include <mpi.h>
#include "colls.h"

struct cx_sched;
struct cx_comm;
typedef int (*cx_build_fn)(const cx_args *a, struct cx_sched *s);

/* What an algorithm needs, as data (the CX_REQ_* bits of collx.h): the
 * dispatcher checks it, with information every rank holds alike, and
 * otherwise runs the fallback. CX_REQ_SHM needs .shm_bytes, CX_REQ_CHECK
 * is set from .check. */
#define CX_REQ_NODES (CX_REQ_MULTI_NODE | CX_REQ_UNIFORM_NODES | \
                      CX_REQ_CONSECUTIVE | CX_REQ_SHM | CX_REQ_ORDER_KEPT)

typedef struct cx_algorithm {
    cx_coll coll;
    const char *name;
    cx_build_fn build;    /* NULL = native (PMPI_) */
    const char *builder;  /* build's name, for the index by collective */
    unsigned requires;
    const char *summary;
    const char *fallback; /* what runs when a requirement fails; NULL = native */
    MPI_Aint (*shm_bytes)(const cx_args *a);  /* for CX_REQ_SHM */
    /* Further per-call check (same answer on every rank): NULL when the
     * call can be served, else the reason. */
    const char *(*check)(const cx_args *a, struct cx_comm *c);
    const void *family_data;  /* what the family needs to know of it */
    /* A blocking call's way to end before a schedule is built (NULL:
     * none): *done = 1 when it ended (or failed: the error returned);
     * else the schedule is built as usual, the family keeping for its
     * build what the hook learned (hier: the node's size exchange). */
    int (*blocking_first)(const cx_args *a, int *done);
    /* In SMPI "native" runs this algorithm's schedule instead of SMPI's
     * own where this says so (registry.c says why; one per collective):
     * selector is what SMPI's own follows (util/smpi_selector.h). */
    int (*smpi_native)(const cx_args *a, const char *selector);
} cx_algorithm;

/* A stand-in for every call (.smpi_native = cx_smpi_always). */
int cx_smpi_always(const cx_args *a, const char *selector);

/* A table entry: CX_ALG(GATHER, "name", build, requires, "summary"
 * [, .fallback = "name", .shm_bytes = fn, .check = fn]). */
#define CX_ALG(c, n, b, r, ...)                                                 \
    {.coll = CX_COLL_##c, .name = n, .build = b, .builder = #b, .requires = r, \
     .summary = __VA_ARGS__}
#define CX_ALG_END {.name = NULL}

/* Room in the catalogue (every family's rows and native's). */
#define CX_MAX_ALGS 512


/* A family of algorithms as the core sees it: its catalogue, and the hooks
 * on the state it keeps per communicator. A new family is one descriptor
 * (in its register.c) and one name in COLLX_FAMILIES (CMakeLists.txt, whence
 * cx_families is generated); the core
 * never looks into a family's state. */
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
/* The name of family f (its index in cx_families), for programs. */
const char *cx_family_name(int f);
#define CX_MAX_FAMILIES 16

/* Where the family whose slot variable is `slot` keeps its state on c
 * (NULL until it puts one there); the slots are set before any
 * communicator state exists (cx_families_init). */
/* Numbers the families' slots (once; the first communicator does it). */
void cx_families_init(void);
/* The indices of the families with an after_call hook (*n of them), once
 * cx_families_init ran. */
const int *cx_families_after_call(int *n);

#endif
