/* The catalogue of algorithms and how one is chosen for a call. */
#ifndef CX_REGISTRY_H
#define CX_REGISTRY_H

#include "colls.h"
#include "comm.h"
#include "sched.h"

typedef int (*cx_build_fn)(const cx_args *a, cx_sched *s);

/* What an algorithm needs, as data: the dispatcher checks it, with
 * information every rank holds alike, and otherwise runs the fallback. */
enum {
    CX_REQ_COMMUTATIVE = 1u << 0,     /* a commutative op */
    CX_REQ_MULTI_NODE = 1u << 1,      /* more than one node */
    CX_REQ_UNIFORM_NODES = 1u << 2,   /* the same number of ranks per node */
    CX_REQ_CONSECUTIVE = 1u << 3,     /* every node's ranks consecutive */
    CX_REQ_THREAD_MULTIPLE = 1u << 4, /* MPI_THREAD_MULTIPLE on every rank */
    CX_REQ_SHM = 1u << 5,             /* a node segment of shm_bytes(a) */
    CX_REQ_BLOCKING = 1u << 6,        /* a blocking call (not CX_I...) */
};
#define CX_REQ_NODES (CX_REQ_MULTI_NODE | CX_REQ_UNIFORM_NODES | \
                      CX_REQ_CONSECUTIVE | CX_REQ_SHM)

typedef struct cx_algorithm {
    cx_coll coll;
    const char *name;
    cx_build_fn build;    /* NULL = native (PMPI_) */
    unsigned requires;
    const char *summary;
    const char *fallback; /* what runs when a requirement fails; NULL = native */
    MPI_Aint (*shm_bytes)(const cx_args *a);  /* for CX_REQ_SHM */
    /* Further per-call check (same answer on every rank): NULL when the
     * call can be served, else the reason. */
    const char *(*check)(const cx_args *a, cx_comm *c);
    const void *family_data;  /* what the family needs to know of it */
} cx_algorithm;

/* A table entry: CX_ALG(GATHER, "name", build, requires, "summary"
 * [, .fallback = "name", .shm_bytes = fn, .check = fn]). */
#define CX_ALG(c, n, b, r, ...)                                                 \
    {.coll = CX_COLL_##c, .name = n, .build = b, .requires = r,                 \
     .summary = __VA_ARGS__}
#define CX_ALG_END {.name = NULL}

/* Tables of the families; each ends with an entry whose name is NULL. */
extern const cx_algorithm cx_base_algorithms[];
extern const cx_algorithm cx_irregular_algorithms[];
extern const cx_algorithm cx_pap_algorithms[];
extern const cx_algorithm cx_hier_algorithms[];
extern const cx_algorithm cx_rma_algorithms[];
extern const cx_algorithm cx_topo_algorithms[];

const cx_algorithm *cx_algorithm_find(cx_coll c, const char *name);
const cx_algorithm *cx_native(cx_coll c);
/* Index of alg in the catalogue (for counters), -1 if none. */
int cx_algorithm_index(const cx_algorithm *alg);
/* Prints the valid names of c, comma separated. */
void cx_algorithm_list(void *file, cx_coll c, const char *sep);
/* Counts a call of alg (and prints it under COLLX_VERBOSE). */
void cx_count_call(const cx_algorithm *alg, const cx_args *a);

/* Selection (select.c): the algorithm named for this call by explicit
 * choice > environment > rules > default, decided once per communicator
 * where it can be. NULL with *err set when the environment or the rules
 * file cannot be used. cx_select_global: the choice when no per-
 * communicator information is needed (no rules for c), else NULL. */
const cx_algorithm *cx_select_global(cx_coll c, int *err);
const cx_algorithm *cx_select(const cx_args *a, cx_comm *c, int *err);
/* Generation of explicit choices (CX_Algorithm_set bumps it). */
unsigned cx_select_generation(void);

/* Adds the collective a, on a->comm (a communicator collx owns: node,
 * leaders...), to s: natively (alg NULL or "native", or an algorithm that
 * needs more than a commutative op: the MPI's blocking call inside a start
 * step when a->nonblocking is 0, else its PMPI_I<coll>) or with alg as a
 * child schedule. The
 * steps go into the current round (a child: that round and the next). */
int cx_sched_collective(cx_sched *s, const cx_args *a, const cx_algorithm *alg);

/* Rules file (rules.c). */
int cx_rules_broken(void);
int cx_rules_mention(cx_coll c);
int cx_rules_need_nodes(void);
/* Candidate rules of c for a communicator (comm_size and ranks per node
 * hold), -1 terminated, malloc'ed; NULL on no memory. */
int *cx_rules_prune(cx_coll c, int comm_size, int ranks_per_node);
/* First candidate whose msg_size range holds for a. */
const cx_algorithm *cx_rules_pick(const int *cands, const cx_args *a);

#endif
