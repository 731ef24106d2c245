/*
 * collx — research collective algorithms for any MPI-3.1 library.
 *
 * Every CX_<Coll> function has exactly the signature of MPI_<Coll>, so
 * switching is a rename. Which algorithm runs is chosen, identically on every
 * rank, by (in order): CX_Algorithm_set(), the environment variable
 * COLLX_<COLL>_ALGORITHM=<name>, the first matching rule of the JSON file
 * named by COLLX_RULES (keyed on communicator size, message size and ranks
 * per node; a rule may also set per-call variables, its "params"; format in
 * README.md), the built-in default ("native" = PMPI_). Every COLLX_*
 * variable, its default and meaning: `collx_info --vars`.
 *
 * Errors are reported through the communicator's error handler, like MPI:
 * with MPI_ERRORS_RETURN the call returns an MPI error class.
 */
#ifndef COLLX_H
#define COLLX_H

#include <mpi.h>
#include "collx_colls.h"

#ifdef __cplusplus
extern "C" {
#endif

/* This collx's version (CMakeLists.txt's project() must agree: configure
 * checks). At run time: CX_Get_version(), CX_Get_library_version(). */
#define COLLX_VERSION_MAJOR 0
#define COLLX_VERSION_MINOR 1
#define COLLX_VERSION_PATCH 0

/* The version of the collx loaded (which may differ from the header's). */
int CX_Get_version(int *major, int *minor, int *patch);
/* Like MPI_Get_library_version: "collx 0.1.0 for Open MPI 4.1.4" (the MPI
 * it was built for). Needs no MPI_Init. resultlen may be NULL; the text
 * is cut to fit len bytes, NUL included. */
#define CX_MAX_LIBRARY_VERSION_STRING 96
int CX_Get_library_version(char *version, int len, int *resultlen);

/* ---- collectives ----
 * For every MPI-3.1 collective MPI_<Name> (list: collx_colls.h) collx has
 *     int CX_<Name>(<the parameters of MPI_<Name>>);
 *     int CX_I<name>(<the same>, CX_Request *request);
 * e.g. CX_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
 * recvtype, root, comm) and CX_Iallreduce(sendbuf, recvbuf, count, datatype,
 * op, comm, &request). Barrier, Bcast, Gather(v), Scatter(v), Allgather(v),
 * Alltoall(v,w), Reduce, Allreduce, Reduce_scatter(_block), Scan, Exscan.
 *
 * A CX_Request progresses inside CX_Test/CX_Wait and inside every other
 * collx call (and inside MPI for messages already posted), like a libNBC
 * schedule; with COLLX_PROGRESS=thread and MPI_THREAD_MULTIPLE a progress
 * thread also drives it. */
typedef struct cx_request *CX_Request;
#define CX_REQUEST_NULL ((CX_Request)0)

/* The arguments of any collective call, one field per `field` name of the
 * parameter lists in collx_colls.h, so that a tool can call every
 * collective through the list (collbench does; so does collx's core). */
#define CX_CALL_FIELDS                                                         \
    const void *sbuf;                                                          \
    int scount;                                                                \
    const int *scounts, *sdispls;                                              \
    MPI_Datatype stype;                                                        \
    const MPI_Datatype *stypes;                                                \
    void *rbuf;                                                                \
    int rcount;                                                                \
    const int *rcounts, *rdispls;                                              \
    MPI_Datatype rtype;                                                        \
    const MPI_Datatype *rtypes;                                                \
    MPI_Op op;                                                                 \
    int root;                                                                  \
    MPI_Comm comm
typedef struct CX_Call {
    CX_CALL_FIELDS;
} CX_Call;

#define CX_PROTOTYPES(E, N, n)                                                 \
    int CX_##N(CX_DECLS(E));                                                   \
    int CX_I##n(CX_DECLS(E), CX_Request *request);                             \
    int CX_##N##_init(CX_DECLS(E), MPI_Info info, CX_Request *request);
CX_COLLECTIVES(CX_PROTOTYPES)
#undef CX_PROTOTYPES

/* ---- persistent collectives (MPI-4) ----
 * CX_<Name>_init(<the parameters of MPI_<Name>>, info, &request) makes an
 * inactive persistent request; CX_Start / CX_Startall start it, CX_Wait /
 * CX_Test complete the start and leave it inactive (not NULL), and
 * CX_Request_free frees it. As in MPI: init is collective (and may
 * synchronise: the decisions and set-up are made there), the buffers and
 * arrays stay the program's and must not change between init and free
 * (their contents may, between starts), and every rank starts its
 * persistent collectives in the same order as its other collectives on
 * the communicator. Everything collx decides for a call is decided at
 * init (the algorithm, its fallback); for the base, irregular (tuw) and
 * topo families the schedule too, with its set-up (tuw's tree
 * construction, topo's mapping): a start runs the saved plan. info is
 * not read. Free the requests before their communicator. */
int CX_Start(CX_Request *request);
int CX_Startall(int count, CX_Request requests[]);
int CX_Request_free(CX_Request *request);

/* ---- results in node-shared memory (hierarchical family) ----
 * The same collectives without a receive buffer: *result points to the
 * result, laid out as the receive buffer would have been, READ-ONLY and
 * valid until this process's next collx call on comm. When the `hier`
 * algorithm serves the call, *result points into the node's shared
 * segment and the copy-out is saved (allgather: p blocks per rank); this
 * needs a plain receive type (no holes, lower bound 0) and, for
 * allgather(v), every node's ranks consecutive and the blocks in rank
 * order back to back. Otherwise (or when hier cannot serve the call:
 * COLLX_VERBOSE=1 says why) the call runs as CX_<Name> into a buffer collx
 * keeps per communicator. Blocking; MPI_IN_PLACE is refused
 * (MPI_ERR_BUFFER); at the root of a bcast *result is buf. */
int CX_Bcast_shared(const void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                    const void **result);
int CX_Allgather_shared(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        const void **result);
int CX_Allgatherv_shared(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, const void **result);
int CX_Allreduce_shared(const void *sendbuf, int count, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm, const void **result);

/* Completes the request and sets *request to CX_REQUEST_NULL. */
int CX_Wait(CX_Request *request);
/* *flag = 1 once complete (the request is then freed and set to NULL). */
int CX_Test(CX_Request *request, int *flag);

/* ---- process arrival pattern (PAP) awareness ----
 * Typical iterative use (Proficz 2020, Fig. 4):
 *
 *     CX_Pat_init(comm);                       // collective
 *     CX_Pat_expect_gather(...);               // optional, see below
 *     for (...) {
 *         CX_Pat_start(comm);                  // optional: computation starts
 *         compute_first_half();
 *         CX_Pat_edge(comm, 0.5);              // 50 % of this iteration done
 *         compute_second_half();
 *         CX_Gather(...);                      // with "sls", "bsls", ...
 *     }
 *     CX_Pat_finalize(comm);                   // collective
 *
 * CX_Pat_init / CX_Pat_finalize are collective over comm. CX_Pat_edge must be
 * called the same number of times on every rank (once per iteration); it
 * never blocks on other ranks. It predicts this rank's arrival as
 *     start + (now - start) / fraction + bias
 * where start is the latest of CX_Pat_init, CX_Pat_start and the end of the
 * previous blocking collx collective on comm, and bias is an exponential
 * moving average (weight 0.3) of past errors (actual arrival - prediction),
 * and shares it with a nonblocking allgather on a private communicator. The
 * arrival-aware algorithms (scatter slin/sbn/bsln/bsbn, gather sls/sbn/
 * bsls/bsbn) called after the edge complete that exchange and visit ranks
 * in predicted order (root first, ties by rank; identical on all ranks).
 * Without CX_Pat_init they run their base algorithm in rank order.
 *
 * Background variants (bsln, bsbn, bsls) can start the coming call at the
 * edge when the application registers it once with CX_Pat_expect_scatter /
 * CX_Pat_expect_gather (same arguments as the call, on every rank). From
 * then on, at every edge:
 *   - the receive buffer (recvbuf; the root's for gather) belongs to collx
 *     until the call returns: do not read or write it between CX_Pat_edge
 *     and the end of the call;
 *   - send buffers are never read before the call (the root of a scatter and
 *     every gather contribution are sent from the call on);
 *   - the next call of that collective on comm must be exactly the
 *     registered one (same buffers, counts, types, root), with the algorithm
 *     selection unchanged since the edge; otherwise it fails with
 *     MPI_ERR_ARG. CX_Pat_expect_none stops it.
 * Engines: a progress thread when MPI provides MPI_THREAD_MULTIPLE (it runs
 * the early part in predicted order while the caller computes), else eager
 * posting (the first round is posted at the edge and MPI progresses it; the
 * linear-sync root posts all its tokens and receives at once). Force with
 * COLLX_PAP_ENGINE=thread|eager. Under the eager engine bsbn builds its tree
 * from the predictions exchanged at the previous edge, because its ranks
 * must know their parents before this edge's exchange completes. */
int CX_Pat_init(MPI_Comm comm);
int CX_Pat_start(MPI_Comm comm);
int CX_Pat_edge(MPI_Comm comm, double fraction);
int CX_Pat_expect_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype,
                          int root, MPI_Comm comm);
int CX_Pat_expect_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype,
                         int root, MPI_Comm comm);
int CX_Pat_expect_none(MPI_Comm comm);
int CX_Pat_finalize(MPI_Comm comm);

/* ---- one-sided (RMA) broadcast (Paznikov 2024) ----
 * A broadcast into an RMA window that only the root calls:
 *
 *     CX_Rma rma;
 *     CX_Rma_init(comm, &rma);                  // collective
 *     MPI_Win_allocate(bytes, 1, info, comm, &base, &win);
 *     CX_Rma_win_register(rma, win, &wid);      // collective, the wid list
 *     if (rank == root) {
 *         CX_Rma_bcast(buf, count, type, root, win, disp, CX_RMA_BINOMIAL);
 *         CX_Rma_bcast_flush(win);              // everyone has it
 *     }
 *     ...                                       // others: CX_Rma_bcast_arrived
 *     CX_Rma_finalize(&rma);                    // collective, before freeing win
 *
 * Every other process's part of win receives, at disp (in its displacement
 * unit), the count elements of type packed as bytes (for a contiguous type:
 * as they are). CX_RMA_LINEAR: the root puts to every process;
 * CX_RMA_BINOMIAL: a binomial tree on ranks relative to the root, each
 * process forwarding to its children, largest subtree first. Each put is
 * completed at the target (flush) before the request flag is set atomically.
 * Broadcasts of one runtime are serialised, never mixed: a root waits for
 * the runtime's lock, which the previous broadcast (of any root) releases
 * once every process acknowledged it. CX_Rma_bcast returns when buf may be
 * reused; CX_Rma_bcast_flush waits until every broadcast this process
 * started completed everywhere; CX_Rma_bcast_test checks once.
 * CX_Rma_bcast_arrived: how many broadcasts of the runtime have reached this
 * process (data in its window, forwarded, and its subtree acknowledged:
 * acknowledgements go up the tree, so a process's part is done only when
 * its children's is).
 * Forwarding is done by the core progress thread when every process has
 * MPI_THREAD_MULTIPLE (engine "thread"), else inside collx calls (engine
 * "inline": flush, test, arrived, any collx collective; SMPI, and MPIs
 * without it): then every process must call into collx while broadcasts
 * run. COLLX_RMA_ENGINE=inline forces it; COLLX_VERBOSE=1 says what was
 * probed and chosen. While registered, the runtime holds a lock_all epoch
 * on the window: use no other synchronisation on it. Errors: window
 * errors through the window's error handler (not registered: MPI_ERR_WIN,
 * root not the caller: MPI_ERR_ROOT, out of any window: MPI_ERR_RMA_RANGE);
 * CX_Rma_init fails with MPI_ERR_UNSUPPORTED_OPERATION when the MPI cannot
 * create windows on comm. */
typedef struct cx_rma *CX_Rma;
enum { CX_RMA_LINEAR = 0, CX_RMA_BINOMIAL = 1 };
int CX_Rma_init(MPI_Comm comm, CX_Rma *rma);
int CX_Rma_finalize(CX_Rma *rma);
/* "thread" or "inline" into *engine. */
int CX_Rma_engine(CX_Rma rma, const char **engine);
int CX_Rma_win_register(CX_Rma rma, MPI_Win win, int *wid);
int CX_Rma_win_unregister(MPI_Win win);
int CX_Rma_bcast(const void *buf, int count, MPI_Datatype type, int root, MPI_Win win,
                 MPI_Aint disp, int alg);
int CX_Rma_bcast_flush(MPI_Win win);
int CX_Rma_bcast_test(MPI_Win win, int *flag);
int CX_Rma_bcast_arrived(MPI_Win win, long long *count);

/* ---- algorithm registry and selection ----
 * coll is the lower-case collective name: "barrier", "bcast", "gather",
 * "gatherv", ..., "reduce_scatter_block", "scan", "exscan". */

/* Number of collectives collx knows, and the name of the i-th. */
int CX_Collective_count(void);
const char *CX_Collective_name(int i);
/* Number of algorithms registered for coll (-1 if coll is unknown). */
int CX_Algorithm_count(const char *coll);
/* Name / one-line description of the i-th algorithm of coll, NULL if none. */
const char *CX_Algorithm_name(const char *coll, int i);
const char *CX_Algorithm_summary(const char *coll, int i);
/* What an algorithm needs to serve a call itself (CX_Algorithm_requires).
 * A call that misses one runs the algorithm's fallback (another algorithm
 * or the MPI's own call); COLLX_FALLBACK says what else happens then:
 * "silent" (default; the reason under COLLX_VERBOSE), "print" (rank 0
 * prints each algorithm's first fallback and reason), "error" (the call
 * returns MPI_ERR_UNSUPPORTED_OPERATION through the communicator's error
 * handler, naming the unmet requirement; every rank alike). */
enum {
    CX_REQ_COMMUTATIVE = 1u << 0,     /* a commutative op */
    CX_REQ_MULTI_NODE = 1u << 1,      /* more than one node */
    CX_REQ_UNIFORM_NODES = 1u << 2,   /* the same number of ranks per node */
    CX_REQ_CONSECUTIVE = 1u << 3,     /* every node's ranks consecutive */
    CX_REQ_THREAD_MULTIPLE = 1u << 4, /* MPI_THREAD_MULTIPLE on every rank */
    CX_REQ_SHM = 1u << 5,             /* node-shared memory within COLLX_SHM_MAX,
                                         for the call's size */
    CX_REQ_BLOCKING = 1u << 6,        /* a blocking call (not CX_I...) */
    CX_REQ_CHECK = 1u << 7,           /* a per-call check of the algorithm's own
                                         (its summary and CX_Algorithm_needs say which) */
    CX_REQ_ORDER_KEPT = 1u << 8,      /* a commutative op, or every node's ranks
                                         consecutive (a non-commutative op's order) */
    CX_REQ_NO_THREAD_MULTIPLE = 1u << 9, /* not MPI_THREAD_MULTIPLE (a known bug) */
};
/* The CX_REQ_* bits of the i-th algorithm of coll (0: it serves every
 * call), -1 if there is none. */
int CX_Algorithm_requires(const char *coll, int i);
/* What the i-th algorithm of coll needs and what runs when it cannot serve
 * a call, as text into buf (e.g. "commutative op; else recursive_doubling");
 * "" when it serves every call. Returns the length, -1 if there is none. */
int CX_Algorithm_needs(const char *coll, int i, char *buf, int len);
/* What runs when the i-th algorithm of coll cannot serve a call: another
 * algorithm's name or "native"; NULL for native itself or if there is none. */
const char *CX_Algorithm_fallback(const char *coll, int i);
/* Forces the algorithm for coll in this process (NULL or "" = back to the
 * environment/default). Every rank must make the same choice. Returns
 * MPI_SUCCESS, or MPI_ERR_ARG (and prints the valid names) for an unknown
 * collective or algorithm. */
int CX_Algorithm_set(const char *coll, const char *alg);
/* The algorithm that CX_Algorithm_set or the environment choose for coll,
 * else "native" (rules of COLLX_RULES decide per call and are not seen). */
const char *CX_Algorithm_get(const char *coll);
/* The value collx uses for the COLLX_ setting name (from the environment,
 * else its default), as text, like MPI_Info_get: *flag = 0 when the name
 * is no setting or it has no value. Needs no MPI_Init. Returns MPI_SUCCESS,
 * or MPI_ERR_ARG for a NULL argument. (collx_info --vars lists them.) */
int CX_Setting_get(const char *name, char *value, int len, int *flag);
/* How many times alg ran for coll in this process (for tests and tools). */
long CX_Algorithm_calls(const char *coll, const char *alg);
/* How many calls that named alg for coll it handed to its fallback, in
 * this process (a call it served itself does not count). */
long CX_Algorithm_fallbacks(const char *coll, const char *alg);
/* Online tuning (COLLX_TUNE_ONLINE=1): the call site of blocking calls of
 * coll on comm whose message is msg_bytes (the size a rules file sees: a
 * rank's block, the reduction's vector, the bcast buffer; sites are
 * classes of sizes, 2^k..2^(k+1)-1). Returns the algorithm the site
 * settled on ("native" or a name), or NULL while it has not (warm-up,
 * trials, not tuned, never called). *trial_calls: the calls this process
 * ran there as trials; *from_cache: 1 when the choice came from the cache
 * file; either may be NULL. Never collective. */
const char *CX_Tune_site(MPI_Comm comm, const char *coll, long long msg_bytes,
                         long *trial_calls, int *from_cache);
/* How many times alg ran for coll as a step of another algorithm in this
 * process: the collective among hier's node leaders (COLLX_HIER_INTER)
 * and other whole collectives on collx's own communicators; "native" =
 * the MPI's own call there. */
long CX_Algorithm_inner_calls(const char *coll, const char *alg);

/* ---- topology-aware rank reordering (Bhowmik & Bodele 2019) ----
 * A NEW communicator with the same processes RENUMBERED by a topology
 * mapping of comm: new rank v is the process the mapping puts at v.
 * mapping: "ring" (greedy nearest neighbour from rank 0), "rd"
 * (recursive-doubling heuristic), "hier_ring", "hier_rd" (nodes kept
 * whole / dealt round-robin, nodes on a 2-opt tour). Collective. Distances
 * are measured once per communicator (COLLX_TOPO_FILE saves/loads them).
 * The topo algorithms (allgather ring_topo, rd_topo, ...) reorder inside
 * the call instead and keep comm's ranks. MPI_ERR_ARG for another name. */
int CX_Comm_reorder(MPI_Comm comm, const char *mapping, MPI_Comm *newcomm);

#ifdef __cplusplus
}
#endif
#endif /* COLLX_H */
