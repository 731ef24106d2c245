/* Internal interfaces shared by the core and the algorithm families. */
#ifndef CX_INTERNAL_H
#define CX_INTERNAL_H

#include <stddef.h>
#include <mpi.h>
#include "collx.h"

/* ---------------------------------------------------------------- colls */
typedef enum {
    CX_COLL_GATHER,
    CX_COLL_GATHERV,
    CX_COLL_SCATTER,
    CX_COLL_SCATTERV,
    CX_COLL_BCAST,
    CX_COLL_ALLGATHER,
    CX_COLL_ALLGATHERV,
    CX_COLL_ALLTOALLV,
    CX_COLL_REDUCE_SCATTER_BLOCK,
    CX_COLL_COUNT
} cx_coll;

const char *cx_coll_name(cx_coll c);       /* "gatherv" */
const char *cx_coll_mpi_name(cx_coll c);   /* "MPI_Gatherv" */
int cx_coll_from_name(const char *name);   /* -1 if unknown */

/* Arguments of any collective call, as the user passed them. Fields a
 * collective does not have are 0/NULL. */
typedef struct cx_args {
    cx_coll coll;
    const void *sbuf;
    int scount;
    const int *scounts, *sdispls;
    MPI_Datatype stype;
    void *rbuf;
    int rcount;
    const int *rcounts, *rdispls;
    MPI_Datatype rtype;
    MPI_Op op;
    int root;
    MPI_Comm comm;        /* the user's communicator */
    /* filled by the dispatcher */
    MPI_Comm pcomm;       /* collx's private duplicate: all our traffic */
    int rank, size;
    const int *order;     /* virtual rank -> rank permutation, NULL = identity */
    int nonblocking;      /* CX_I... call: the schedule outlives the call */
} cx_args;

/* ------------------------------------------------------- comm state */
typedef struct cx_comm {
    MPI_Comm priv;        /* private duplicate of the user's comm */
    int rank, size;
    unsigned tag_seq;     /* one tag per collective call */
    MPI_Comm node;        /* ranks sharing a node (lazy) */
    MPI_Comm leaders;     /* rank 0 of every node, MPI_COMM_NULL elsewhere */
    int nodes_ready;
    int max_ranks_per_node; /* largest node of the comm (with the nodes) */
    void *family[8];      /* per-family cached state (orders, windows...) */
    void (*family_free[8])(void *);
    double last_end;      /* PMPI_Wtime at the end of the last blocking call */
} cx_comm;

enum { CX_FAMILY_PAP, CX_FAMILY_IRREGULAR, CX_FAMILY_RMA, CX_FAMILY_HIER,
       CX_FAMILY_TOPO };

/* State of comm, created on first use (collective over comm). */
int cx_comm_get(MPI_Comm comm, cx_comm **out);
/* Node and leader communicators (COLLX_RANKS_PER_NODE=k fakes nodes). */
int cx_comm_nodes(cx_comm *c);

int cx_comm_next_tag(cx_comm *c);

/* ----------------------------------------------------------- schedule */
typedef enum { CX_OP_SEND, CX_OP_RECV, CX_OP_COPY, CX_OP_REDUCE } cx_op_kind;

typedef struct cx_op {
    cx_op_kind kind;
    const void *src;      /* send / copy source / reduce input */
    void *dst;            /* recv / copy target / reduce inout */
    int count;            /* of type (send, recv, copy source, reduce) */
    MPI_Datatype type;
    int dcount;           /* copy target count */
    MPI_Datatype dtype;   /* copy target type */
    int peer;
    MPI_Op op;
} cx_op;

/* A schedule is a list of rounds. Starting a round runs its local ops
 * (copies, reductions) in order, then posts its sends and receives; the
 * round completes when they all have. Messages of size 0 are not sent:
 * matching sides always agree on that because their signatures match. */
typedef struct cx_sched {
    cx_op *ops;
    int nops, ops_cap;
    int *round_end;       /* round i = ops [round_end[i-1], round_end[i]) */
    int nrounds, rounds_cap;
    void **temps;
    int ntemps, temps_cap;
    MPI_Datatype *types;  /* derived types to free with the schedule */
    int ntypes, types_cap;
    MPI_Comm comm;
    int tag;
    /* execution state */
    int cur;              /* round being executed */
    MPI_Request *reqs;
    int nreqs, reqs_cap;
    int started;
    /* Optional, called before each round starts: may reorder the rounds
     * not started yet (cx_sched_sort_rounds), e.g. once an order is known. */
    void (*before_round)(struct cx_sched *s, int r);
    void *hook_ctx;
} cx_sched;

void cx_sched_init(cx_sched *s, MPI_Comm comm, int tag);
/* Closes the current round: ops added after this go to the next one. */
int cx_sched_barrier(cx_sched *s);
int cx_sched_send(cx_sched *s, const void *buf, int count, MPI_Datatype t, int peer);
int cx_sched_recv(cx_sched *s, void *buf, int count, MPI_Datatype t, int peer);
int cx_sched_copy(cx_sched *s, const void *src, int scount, MPI_Datatype st,
                  void *dst, int dcount, MPI_Datatype dt);
int cx_sched_reduce(cx_sched *s, const void *in, void *inout, int count,
                    MPI_Datatype t, MPI_Op op);
/* Sorts the first run of rounds at or after `from` that only talk to one
 * peer each by key[peer], stably; other rounds stay in place. The caller
 * knows that those rounds do not depend on each other. */
int cx_sched_sort_rounds(cx_sched *s, int from, const double *key);
/* Scratch memory that lives as long as the schedule (NULL on failure). */
void *cx_sched_alloc(cx_sched *s, size_t bytes);
/* Commits t and frees it with the schedule. */
int cx_sched_own_type(cx_sched *s, MPI_Datatype t);

/* Executors. */
int cx_sched_run(cx_sched *s);                 /* blocking */
int cx_sched_start(cx_sched *s);               /* post first round */
int cx_sched_progress(cx_sched *s, int *done); /* nonblocking step */
int cx_sched_finish(cx_sched *s);              /* block until done */
void cx_sched_free(cx_sched *s);

/* ----------------------------------------------------------- datatypes */
/* Local typed copy; signatures must match (MPI_PACKED allowed on a side). */
int cx_copy(const void *src, int scount, MPI_Datatype st, void *dst,
            int dcount, MPI_Datatype dt);
/* Bytes of data (type size) of count elements; the extent of one element. */
size_t cx_type_bytes(int count, MPI_Datatype t);
MPI_Aint cx_type_extent(MPI_Datatype t);
/* Address of block i of count elements of t in buf. */
static inline char *cx_block(const void *buf, int i, int count, MPI_Datatype t)
{
    return (char *)buf + (MPI_Aint)i * count * cx_type_extent(t);
}
/* Scratch buffer able to hold count elements of t laid out as t does it
 * (lb/extent aware); returns the pointer to pass to MPI (may differ from the
 * allocated one when lb != 0). */
void *cx_sched_alloc_typed(cx_sched *s, int count, MPI_Datatype t);

/* ----------------------------------------------------------- registry */
enum {
    CX_REQ_COMMUTATIVE = 1u << 0,  /* op must be commutative */
};

typedef int (*cx_build_fn)(const cx_args *a, cx_sched *s);

typedef struct cx_algorithm {
    cx_coll coll;
    const char *name;
    cx_build_fn build;    /* NULL = native (PMPI_) */
    unsigned requires;
    const char *summary;
} cx_algorithm;

/* Tables of the families; each ends with an entry whose name is NULL. */
extern const cx_algorithm cx_base_algorithms[];
extern const cx_algorithm cx_irregular_algorithms[];
extern const cx_algorithm cx_pap_algorithms[];

const cx_algorithm *cx_algorithm_find(cx_coll c, const char *name);
/* Rules file (COLLX_RULES, rules.c): the matching rule's algorithm in *out,
 * or NULL; MPI_ERR_ARG when the file cannot be used. */
int cx_rules_select(const cx_args *a, const cx_algorithm **out);
/* Whether the rules need ranks per node (cx_comm_get then learns it). */
int cx_rules_need_nodes(void);
/* Algorithm for this call (explicit > env > rules > default); NULL when
 * the environment or the rules file names no usable algorithm. */
const cx_algorithm *cx_select(const cx_args *a);
void cx_count_call(const cx_algorithm *alg, const cx_args *a);

/* ----------------------------------------------------------- errors */
/* Checks the arguments; returns MPI_SUCCESS or an MPI error class. */
int cx_validate(const cx_args *a);
/* COLLX_VERBOSE (0 when unset): 1 = each selection once, 2 = every call. */
int cx_verbose(void);
/* Reports err through comm's error handler; returns err. */
int cx_error(MPI_Comm comm, int err, const char *fmt, ...);

/* Executes one call with alg (blocking, or nonblocking when req != NULL). */
int cx_dispatch(cx_args *a, CX_Request *req);

#endif
