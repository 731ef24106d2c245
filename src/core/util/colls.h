/* The collectives (include/collx_colls.h) as the core sees them: an enum,
 * names, and the shape of each call (which sides exist and where they are
 * significant), from which the argument checks and helpers are derived. */
#ifndef CX_COLLS_H
#define CX_COLLS_H

#include <mpi.h>
#include "collx.h"

typedef enum {
#define CX_ENUM(E, N, n) CX_COLL_##E,
    CX_COLLECTIVES(CX_ENUM)
#undef CX_ENUM
    CX_COLL_COUNT
} cx_coll;

/* Shape flags. A "side" is a (buffer, count(s), type(s)) triple. */
enum {
    CX_ROOTED = 1u << 0,      /* has a root argument */
    CX_REDUCTION = 1u << 1,   /* has an op; count/datatype are rcount/rtype */
    CX_SEND_ONE = 1u << 2,    /* sendbuf, sendcount, sendtype */
    CX_SEND_V = 1u << 3,      /* sendbuf, sendcounts, sdispls, sendtype */
    CX_SEND_W = 1u << 4,      /* ... and sendtypes[] */
    CX_SEND_AT_ROOT = 1u << 5,/* the send side matters at the root only */
    CX_RECV_ONE = 1u << 6,
    CX_RECV_V = 1u << 7,
    CX_RECV_W = 1u << 8,
    CX_RECV_AT_ROOT = 1u << 9,
    CX_IP_SEND = 1u << 10,    /* sendbuf may be MPI_IN_PLACE on every rank */
    CX_IP_SEND_ROOT = 1u << 11, /* ... at the root only */
    CX_IP_RECV_ROOT = 1u << 12, /* recvbuf may be MPI_IN_PLACE at the root */
    CX_RECV_NO_DISPLS = 1u << 13, /* v receive side without displacements */
};

#define CX_SHAPE_BARRIER 0u
#define CX_SHAPE_BCAST (CX_ROOTED | CX_RECV_ONE)
#define CX_SHAPE_GATHER (CX_ROOTED | CX_SEND_ONE | CX_RECV_ONE | CX_RECV_AT_ROOT | \
                         CX_IP_SEND_ROOT)
#define CX_SHAPE_GATHERV (CX_ROOTED | CX_SEND_ONE | CX_RECV_V | CX_RECV_AT_ROOT | \
                          CX_IP_SEND_ROOT)
#define CX_SHAPE_SCATTER (CX_ROOTED | CX_SEND_ONE | CX_SEND_AT_ROOT | CX_RECV_ONE | \
                          CX_IP_RECV_ROOT)
#define CX_SHAPE_SCATTERV (CX_ROOTED | CX_SEND_V | CX_SEND_AT_ROOT | CX_RECV_ONE | \
                           CX_IP_RECV_ROOT)
#define CX_SHAPE_ALLGATHER (CX_SEND_ONE | CX_RECV_ONE | CX_IP_SEND)
#define CX_SHAPE_ALLGATHERV (CX_SEND_ONE | CX_RECV_V | CX_IP_SEND)
#define CX_SHAPE_ALLTOALL (CX_SEND_ONE | CX_RECV_ONE | CX_IP_SEND)
#define CX_SHAPE_ALLTOALLV (CX_SEND_V | CX_RECV_V | CX_IP_SEND)
#define CX_SHAPE_ALLTOALLW (CX_SEND_W | CX_RECV_W | CX_IP_SEND)
#define CX_SHAPE_REDUCE (CX_ROOTED | CX_REDUCTION | CX_RECV_ONE | CX_IP_SEND_ROOT)
#define CX_SHAPE_ALLREDUCE (CX_REDUCTION | CX_RECV_ONE | CX_IP_SEND)
#define CX_SHAPE_REDUCE_SCATTER (CX_REDUCTION | CX_RECV_V | CX_RECV_NO_DISPLS | \
                                 CX_IP_SEND)
#define CX_SHAPE_REDUCE_SCATTER_BLOCK (CX_REDUCTION | CX_RECV_ONE | CX_IP_SEND)
#define CX_SHAPE_SCAN (CX_REDUCTION | CX_RECV_ONE | CX_IP_SEND)
#define CX_SHAPE_EXSCAN (CX_REDUCTION | CX_RECV_ONE | CX_IP_SEND)

const char *cx_coll_name(cx_coll c);       /* "gatherv" */
const char *cx_coll_mpi_name(cx_coll c);   /* "MPI_Gatherv" */
unsigned cx_coll_shape(cx_coll c);
int cx_coll_from_name(const char *name);   /* -1 if unknown */
/* Every rank of a call of c knows its message size (not the v- and
 * w-collectives, whose counts only some ranks hold): the rules' msg_size,
 * online tuning and the COLLX_STATS profile look at it only then. */
int cx_coll_sized(cx_coll c);

/* Classes of message sizes, shared by online tuning's sites and the
 * COLLX_STATS profile: 0, then [2^(k-1), 2^k - 1] for k = 1..63. */
#define CX_SIZE_CLASSES 64
int cx_size_class(long long bytes);
void cx_size_class_range(int cls, long long *lo, long long *hi);

/* Arguments of any collective call, as the user passed them. Fields a
 * collective does not have are 0/NULL. */
typedef struct cx_args {
    cx_coll coll;
    CX_CALL_FIELDS;       /* as passed; comm is the user's communicator */
    /* filled by the dispatcher */
    MPI_Comm pcomm;       /* collx's private duplicate: all our traffic */
    int rank, size;
    const int *order;     /* virtual rank -> rank permutation, NULL = identity */
    int nonblocking;      /* CX_I... call: the schedule outlives the call */
    int persistent;       /* a start of a persistent call (nonblocking too) */
    struct cx_comm *cc;   /* collx state of comm (NULL for native calls) */
    /* The algorithm being built: its builder's parameters are its
     * family_data (one builder serves several table rows). */
    const struct cx_algorithm *alg;
    /* The per-call knob values of the rule that picked the algorithm (NULL:
     * none): read knobs with cx_knob_call_*(a->params, ...) (knobs.h). */
    const struct cx_knob_params *params;
    /* CX_<Name>_shared: an algorithm that leaves the result in node-shared
     * memory sets *shared_out to it (laid out as the receive buffer) and
     * does not fill rbuf; NULL for ordinary calls. */
    const void **shared_out;
    /* The arrays (counts, displacements, types) are the caller's
     * scratch, gone when the call returns (the Fortran interposer's type
     * conversions, the large-count ones' int copies): the MPI's own
     * nonblocking call then runs behind a schedule that keeps copies
     * (collx's schedules always copy them: cx_hold_args). */
    int scratch_arrays;
    /* COLLX_STATS: where the algorithm that ran the call is written (the
     * call's record, stats.h; copies point at it too), NULL when the call
     * is not measured. */
    const struct cx_algorithm **ran;
    /* COLLX_TUNE_ONLINE: the call site this call is a timed trial of
     * (online.c), NULL when it is not one. */
    struct cx_online_key *tune;
    /* The selection's generation under which this call's decision holds
     * for every call with the same arguments (select/decide_call.c's
     * memo), 0: none. A schedule kept for such a call (call/replay.c)
     * runs again without a decision while the generation stays. */
    unsigned decided_gen;
} cx_args;

/* Initialiser of a cx_args from the parameters of MPI_<Name>:
 * cx_args a = {CX_PARAMS_<UPPER>(CX_ARG_INIT) .coll = CX_COLL_<UPPER>}. */
#define CX_ARG_INIT(kind, name, field) .field = name,

#endif
