/* Hierarchical, node-aware collectives (Parsons & Pai 2014): the ranks of
 * a node exchange data through the node-shared segment, and only the node
 * leaders talk over the network, with an unmodified collective of the MPI
 * library (or any collx algorithm: COLLX_HIER_INTER=<name>) on the leader
 * communicator. Any number of ranks per node, different on every node,
 * and any placement: node regions in the segment are laid out node by
 * node, and every rank finds its data through the rank maps. */
#ifndef CX_HIER_H
#define CX_HIER_H

#include <stdatomic.h>
#include <stdint.h>
#include "../core/select/select.h"

/* One call's view of the node: its communicator state, the slot of the
 * segment the call uses, and where each node's region starts. */
typedef struct hier {
    const cx_args *a;
    cx_comm *c;
    char *slot;
    MPI_Aint *node_off;   /* [nnodes + 1] byte offset of each node's region */
    MPI_Aint *rank_off;   /* [size] byte offset of each rank's piece */
    int senders;          /* k: ranks per node in the inter-node phase */
    char *seg;            /* the segment, and the size of each half */
    MPI_Aint half;
} hier;

/* Bytes of the node segment a call needs: two slots of slot_bytes (calls
 * alternate between them, so a call never waits for the previous one's
 * readers). */
MPI_Aint hier_shm_bytes(MPI_Aint slot_bytes);
/* Prepares h for a call whose rank r puts piece_bytes[r] (NULL: bytes
 * each) into the slot, node by node; sets up the segment (collective over
 * the node). */
int hier_begin(hier *h, const cx_args *a, cx_sched *s, const MPI_Aint *piece_bytes,
               MPI_Aint bytes, MPI_Aint slot_bytes);
/* Lays the slot out again for other pieces (a band of a call above the
 * budget): node_off and rank_off as hier_begin computes them. */
int hier_layout(hier *h, cx_sched *s, const MPI_Aint *piece_bytes, MPI_Aint bytes);
/* Data above the segment budget goes in chunks: each chunk takes the
 * other half of the segment, as consecutive calls do (a slot is written
 * again only after its readers are done: a node barrier is entered first
 * when none was since). hier_slot_budget: the most one half can hold
 * under COLLX_SHM_MAX. */
int hier_next_slot(hier *h, cx_sched *s);
MPI_Aint hier_slot_budget(void);
/* Steps: a barrier of the node (closes the round before and after it), and
 * a collective among the leaders (only on leaders, with COLLX_HIER_INTER's
 * algorithm if set). */
int hier_node_barrier(hier *h, cx_sched *s);
/* Node barrier x->b's steps (sync.c), numbered by hier_node_barrier. */
typedef struct hier_arrival {
    cx_comm *c;
    unsigned long long *ctl, b;   /* the control block; the barrier's number */
    int seen;                     /* ranks seen arriving, in local order */
} hier_arrival;
int hier_sync_barrier(cx_sched *s, hier_arrival *x);
/* A rank's lines in the node's control block (cx_comm_node_line), in
 * 8-byte words, written by that rank only: a 128-byte pair of lines (x86
 * cores fetch the pair together) per parity of its size exchanges
 * (guard.c: 4 words, then HIER_INLINE_BYTES of small data that travel
 * with them, small.c), then a line whose word HIER_LINE_ARRIVED counts
 * the node barriers it entered (sync.c). */
enum { HIER_GUARD_WORDS = 16, HIER_INLINE_WORD = 4, HIER_INLINE_BYTES = 96,
       HIER_LINE_ARRIVED = 32 };
/* Blocks until fn (a poll step) holds, waiting as the executor does:
 * spinning first where the node's ranks have cores of their own, then
 * politely, moving SMPI's clock. */
int hier_wait(cx_comm *c, cx_poll_fn fn, void *ctx);
int hier_leaders(hier *h, cx_sched *s, cx_args *inter);
/* Multiple senders per node (hier_ms): sets h->senders for a call of
 * bytes in all (the same on every rank): COLLX_HIER_SENDERS=k, else one
 * sender per per_sender bytes up to 8, never more than the smallest node
 * has. HIER_SENDER_BYTES for data that is moved; an allreduce's columns
 * pay off from smaller vectors (fattree-256x16, p = 64..1024: k = 4-8 at
 * 16-32 KiB were 1.2-1.5x faster than k = 1). */
enum { HIER_SENDER_BYTES = 65536, HIER_SENDER_BYTES_ALLREDUCE = 2048 };
int hier_choose_senders(hier *h, MPI_Aint bytes, MPI_Aint per_sender);
/* The inter-node phase with h->senders columns: local rank l < k runs
 * inter (its share l, set up by the caller) on its column communicator;
 * with one sender, the leaders. */
int hier_columns(hier *h, cx_sched *s, cx_args *inter);
/* Share l of k of n: [*lo, *lo + *len). */
void hier_share(MPI_Aint n, int l, int k, MPI_Aint *lo, MPI_Aint *len);
/* Copies every rank's piece (bytes[r], or bb each) between the slot and
 * its block of the all-blocks buffer (to_user: slot -> blocks), one copy
 * per run of ranks adjacent in both (with every node's ranks consecutive
 * and a plain buffer: one copy in all). skip: a rank whose block is left
 * alone (MPI_IN_PLACE), or -1. */
int hier_copy_blocks(hier *h, cx_sched *s, const MPI_Aint *bytes, MPI_Aint bb, int to_user,
                     int skip);
/* The same for the ranks whose local rank is in [lo, hi) only. */
int hier_copy_band(hier *h, cx_sched *s, const MPI_Aint *bytes, MPI_Aint bb, int to_user,
                   int skip, int lo, int hi);
/* Bands of local ranks for data above the segment budget: col[l] = the
 * bytes of local rank l on all nodes together (nl columns). Band b is
 * local ranks [band[b], band[b + 1]), the fewest bands whose columns fit
 * budget; returns their number, 0 when one column alone is above it. */
int hier_bands(const MPI_Aint *col, int nl, MPI_Aint budget, int *band);
/* A persistent call replays the schedule built at its first start
 * (queue.c). While it is built, what it takes from the communicator's
 * numbering (slots of the segment, node barriers, in order) is logged
 * into memory of the schedule mem. */
typedef struct hier_mark hier_mark;
typedef struct hier_log {
    hier_mark *first, **last;
    cx_sched *mem;
    int broken;   /* out of memory: the log is incomplete */
} hier_log;
void hier_log_begin(cx_comm *c, hier_log *log, cx_sched *mem);
void hier_log_end(cx_comm *c);
/* For a replay in the call's turn: takes what the logged build took, as
 * a build now would, and renumbers its node barriers (1); 0 when a build
 * now would differ (the other half of the segment, a barrier more or
 * less before a slot): nothing is taken, the call is built again. */
int hier_renumber(cx_comm *c, const hier_log *log);
/* This rank's size exchanges on c (guard.c; NULL when out of memory):
 * every rank of a node makes the same exchanges in order, numbered from
 * 1. seen: the last one every rank of the node is known to have
 * published, which tells that they finished reading the one before (a
 * rank writes exchange g's words only once all published g - 1: the
 * root of a small bcast leaves without waiting for its readers). */
typedef struct hier_exchanges {
    unsigned long long made, seen;
} hier_exchanges;
hier_exchanges *hier_exchanges_of(cx_comm *c);
/* Builds a hierarchical call with build, first checking that the ranks
 * of the node agree on the sizes (guard.c): an erroneous call whose sizes
 * disagree is built alike on the whole node and returns
 * MPI_ERR_TRUNCATE, instead of leaving ranks waiting for each other. */
typedef int (*hier_build_fn)(const cx_args *a, cx_sched *s);
int hier_guarded(const cx_args *a, cx_sched *s, hier_build_fn build);
/* The same check in steps, for a call built as it runs (queue.c):
 * publish this rank's sizes, wait (poll step) until the node's ranks
 * published theirs, build. g->gen == 0: nothing to check. */
typedef struct hier_guard {
    cx_comm *c;
    hier_exchanges *ex;
    unsigned long long gen;
    int64_t send, recv;   /* this rank's block sizes (-1: not significant) */
    int64_t cell;         /* HIER_CELL_*: what this rank put in its cell */
} hier_guard;
int hier_guard_publish(hier_guard *g, const cx_args *a);
/* Calls whose data per rank fit the node's cells (small.c): a blocking
 * call on one node puts its data in its cell of the exchange's parity
 * before it publishes its sizes (HIER_CELL_READY, else HIER_CELL_NO), and
 * once the node's sizes are in, every rank knows whether all did: then
 * the call is over after the reads and local reductions below, with no
 * schedule and no other flag. */
enum { HIER_CELL_NO = 0, HIER_CELL_READY = 1 };
/* (Hidden: the family's own, each called from one place, which
 * link-time optimization may then inline, frame and all.) */
#define HIER_LOCAL __attribute__((visibility("hidden")))
HIER_LOCAL int64_t hier_small_fill(const cx_args *a, const hier_guard *g);   /* g: c, gen, sizes */
/* 1 when every rank of the node published HIER_CELL_READY and the same
 * sizes (read after hier_guard_published held). */
HIER_LOCAL int hier_small_agreed(const hier_guard *g);
HIER_LOCAL int hier_small_run(const cx_args *a, const hier_guard *g);
/* Tests: may pause this rank here (COLLX_HIER_PAUSE, pause.c; -1 until
 * read, 0 off). hier_pausing: 0 once it is read and off (an int: the
 * inline test a call makes at each step is one compare). */
extern _Atomic(double) hier_pause_p;
extern _Atomic int hier_pausing;
void hier_pause_maybe(void);
static inline void hier_pause(void)
{
    if (atomic_load_explicit(&hier_pausing, memory_order_relaxed))
        hier_pause_maybe();
}
int hier_guard_published(cx_sched *s, void *ctx, int *done);
/* A poll step (ctx: the communicator) that holds once every rank of the
 * node published c's last exchange: a nonblocking call's wait before it
 * publishes the next (guard.c, previous_read). */
int hier_guard_free(cx_sched *s, void *ctx, int *done);
int hier_guard_build(const hier_guard *g, const cx_args *a, cx_sched *s,
                     hier_build_fn build);
/* A blocking call's first step (cx_algorithm.blocking_first): the node's
 * size exchange, and a small call on one node done with it, before any
 * schedule; otherwise the exchange is kept for the call's build
 * (hier_guarded takes it: hier_keep_published / hier_take_published,
 * for that call a only, and only while no other exchange came since). */
int hier_direct(const cx_args *a, int *done);
void hier_keep_published(cx_comm *c, const cx_args *a, const hier_guard *g);
int hier_take_published(cx_comm *c, const cx_args *a, hier_guard *g);
/* v and w collectives, where a rank knows only its own sizes, agree on
 * values before they are built (agree.c): every rank's values are summed
 * over its node (node[i]), then over the nodes the first nmax take the
 * largest and the others the total (all[i]), alike on every rank. A
 * blocking call agrees while it is built (blocking collectives of the
 * node and the leaders); a nonblocking one in steps before it is built
 * (queue.c), and its builder finds the result. */
typedef struct hier_values {
    int n, nmax;
    long long *mine, *node, *all;   /* n each */
    int settled;   /* agreed for good (a persistent call's later starts):
                    * the agreement's steps post nothing */
} hier_values;
/* A builder's values: n, nmax and mine (hier_values_alloc), from a. */
typedef int (*hier_values_fn)(const cx_args *a, cx_sched *s, hier_values *v);
int hier_values_alloc(cx_sched *s, hier_values *v, int n, int nmax);
/* The agreed values of the call being built (blocking: agrees now). */
int hier_agreed(const cx_args *a, cx_sched *s, hier_values_fn fn, const hier_values **v);
/* Three rounds of s that agree on v (already filled when they run). */
int hier_agree_steps(cx_sched *s, cx_comm *c, hier_values *v);
/* The values a nonblocking call agreed on, for its build (NULL after). */
void hier_values_for_build(cx_comm *c, const hier_values *v);
/* The slot a v or w build asks for from its agreed values: the node's
 * need, or (the largest node does not fit) the budget its bands fill. */
MPI_Aint hier_agreed_slot(const hier_values *v);
/* The segment a v or w call's build will want, agreed now by blocking
 * collectives (a persistent plan's init, queue.c): alike on a node. */
int hier_agreed_segment(const cx_args *a, hier_values_fn fn, MPI_Aint *bytes);
/* Whether a node's need fits the segment (and the leaders' int counts). */
int hier_need_fits(MPI_Aint largest);
/* The calls of a communicator, blocking and not, run one after another
 * (queue.c): every registered builder goes through hier_call. A blocking
 * call first lets the nonblocking ones in flight finish; a nonblocking
 * call (CX_I...) is built when its turn comes, so that node barriers,
 * slots and size checks are numbered in call order on every rank. */
typedef struct hier_queue {
    unsigned long long issued;     /* nonblocking calls started */
    unsigned long long finished;   /* ... and finished (atomic) */
    const hier_values *agreed;     /* of the nonblocking call being built */
} hier_queue;
hier_queue *hier_queue_of(cx_comm *c);
/* Lets the nonblocking calls in flight on c finish (cx_comm_quiesce). */
int hier_quiesce(cx_comm *c);
/* The exchange kept forgotten (hier_keep_published(c, a, NULL)), and c's
 * queue (NULL: out of memory): hier_direct's one look at the state. */
hier_queue *hier_forget_published(cx_comm *c);
/* Whether every nonblocking call started on q has finished: what
 * hier_quiesce looks at first, inline where a call usually finds none. */
static inline int hier_queue_idle(hier_queue *q)
{
    return __atomic_load_n(&q->finished, __ATOMIC_ACQUIRE) == q->issued;
}
/* The family's state: its key and release hook (hier.c). */
extern int cx_hier_slot;
void hier_release(void *state);
/* What a builder uses beyond the node barriers (set up at a
 * communicator's first nonblocking call). */
enum { HIER_USES_SEGMENT = 1, HIER_USES_COLUMNS = 2 };
/* values: what a v or w call agrees on before it is built (NULL: none). */
int hier_call(const cx_args *a, cx_sched *s, hier_build_fn build, unsigned uses,
              hier_values_fn values);
/* Per-communicator buffer of at least bytes (CX_<Name>_shared when hier
 * cannot serve the call); NULL when out of memory. */
void *hier_scratch(cx_comm *c, MPI_Aint bytes);
/* The ranks of every node in local order: members[first[n] ..
 * first[n + 1]) (cached per communicator). */
int hier_members(hier *h, const int **first, const int **members);
/* The call does not fit the segment: the MPI's own runs it (a child
 * step; a nonblocking all-to-all: collx's pairwise), counted for that
 * algorithm too; COLLX_VERBOSE says why (need: the bytes a node would
 * need). */
int hier_run_native(hier *h, cx_sched *s, MPI_Aint need);

/* Registered builders. */
int cx_hier_barrier(const cx_args *a, cx_sched *s);
int cx_hier_bcast(const cx_args *a, cx_sched *s);
int cx_hier_gather(const cx_args *a, cx_sched *s);
int cx_hier_scatter(const cx_args *a, cx_sched *s);
int cx_hier_gatherv(const cx_args *a, cx_sched *s);   /* and scatterv */
int cx_hier_gatherv_values(const cx_args *a, cx_sched *s, hier_values *v);
int cx_hier_scan(const cx_args *a, cx_sched *s);      /* and exscan */
MPI_Aint cx_hier_shm_scan(const cx_args *a);
int cx_hier_allgather(const cx_args *a, cx_sched *s);
int cx_hier_reduce(const cx_args *a, cx_sched *s);
int cx_hier_allreduce(const cx_args *a, cx_sched *s);
int cx_hier_reduce_scatter(const cx_args *a, cx_sched *s);   /* and _block */
MPI_Aint cx_hier_shm_reduce_scatter(const cx_args *a);
int cx_hier_alltoall(const cx_args *a, cx_sched *s);   /* and v, w */
int cx_hier_alltoallv_values(const cx_args *a, cx_sched *s, hier_values *v);   /* v, w */
MPI_Aint cx_hier_shm_alltoall(const cx_args *a);
/* hier_ms: the same with several senders per node. */
int cx_hier_ms_bcast(const cx_args *a, cx_sched *s);
int cx_hier_ms_allgather(const cx_args *a, cx_sched *s);
int cx_hier_ms_allreduce(const cx_args *a, cx_sched *s);
int cx_hier_ms_alltoall(const cx_args *a, cx_sched *s);
int cx_hier_ms_reduce_scatter(const cx_args *a, cx_sched *s);   /* and _block */
MPI_Aint cx_hier_shm_blocks(const cx_args *a);
MPI_Aint cx_hier_shm_bcast(const cx_args *a);
MPI_Aint cx_hier_shm_reduce(const cx_args *a);
MPI_Aint cx_hier_shm_allgatherv(const cx_args *a);
MPI_Aint cx_hier_shm_allgather(const cx_args *a);

#endif
