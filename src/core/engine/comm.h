/* Per-communicator state, cached as an attribute of the user's
 * communicator and freed with it: a private duplicate (collx's tags never
 * meet the application's messages), the rank maps of the node layout,
 * node and leader communicators, a node-shared memory segment, cached
 * selections, and one slot per family (which the core never looks into). */
#ifndef CX_COMM_H
#define CX_COMM_H

#include <mpi.h>
#include "../util/util.h"

/* The rooms above the engine that keep per-communicator state. */
enum { CX_ROOM_SELECT, CX_ROOM_ONLINE, CX_ROOM_CALL, CX_ROOMS };

struct cx_algorithm;

typedef struct cx_comm {
    MPI_Comm priv;        /* private duplicate of the user's comm */
    int rank, size;
    unsigned tag_seq;     /* one tag per collective call */
    unsigned plan_seq;    /* persistent plans made (persist.c numbers them) */
    struct cx_plan_comms *plan_comms;   /* its plans' own communicators (plan_comm.c) */
    int plan_owned;       /* a persistent plan's own communicator: nothing
                             else runs on it (its segment is the plan's size) */
    int thread_multiple;  /* every rank has MPI_THREAD_MULTIPLE */
    int one_thread_each;  /* no rank has MPI_THREAD_MULTIPLE */
    int inter;            /* the user's comm is an intercommunicator */

    /* Node layout (cx_comm_nodes). Nodes are numbered in the order of
     * their lowest rank; a node's leader is its lowest rank. Nodes may
     * differ in size and their ranks need not be consecutive. */
    int nodes_ready;
    int map_ready;        /* the maps below (cx_comm_node_map), node unordered */
    MPI_Comm node;        /* ranks of my node, in comm rank order */
    MPI_Comm leaders;     /* leader of every node (node i = rank i), or NULL */
    MPI_Comm column;      /* local rank l of every node that has one, in node
                             order (cx_comm_column; l = 0: the leaders) */
    int column_ready;
    int nnodes, my_node, local_rank, local_size;
    int *node_of;         /* [size] node of every rank */
    int *local_of;        /* [size] rank inside its node */
    int *node_size;       /* [nnodes] */
    int *node_leader;     /* [nnodes] comm rank of each node's leader */
    int max_ranks_per_node, min_ranks_per_node;
    int uniform;          /* every node has the same number of ranks */
    int consecutive;      /* every node's ranks are consecutive */

    /* Node-shared segment (cx_comm_shm). */
    MPI_Win shm_win;
    char *shm_base;       /* start of the node's segment in this process */
    MPI_Aint shm_size;
    MPI_Win *shm_old;     /* outgrown segments, kept until the comm is freed */
    int nshm_old;
    MPI_Win ctl_win;      /* the node's control block (counters, flags) */
    char *ctl_base;
    MPI_Aint cell_bytes;  /* its cells' size, fixed when it was made */

    /* The rooms above the engine keep their state of the communicator
     * here (cx_comm_room), which the engine frees with it unseen. */
    void *room_state[CX_ROOMS];

    void *family_state[CX_MAX_FAMILIES];   /* by family slot (cx_comm_state) */
    int hooked;           /* a family with an after_call hook asked for its
                             slot (cx_comm_state): it may keep state here */
    int inflight;         /* nonblocking schedules not finished (atomics) */
    struct cx_comm *next_live;  /* list of states with a node segment */
} cx_comm;

/* State of comm, created on first use (collective over comm). */
int cx_comm_get(MPI_Comm comm, cx_comm **out);
/* The state of the communicator this thread's last cx_comm_get was for,
 * if comm is that one and no collx state went away since (NULL
 * otherwise): a call's lookup without asking MPI. */
cx_comm *cx_comm_recent(MPI_Comm comm);
/* comm's state if it has one, else NULL (never collective). */
cx_comm *cx_comm_find(MPI_Comm comm);
/* Fills the node layout (collective over comm on first use).
 * COLLX_RANKS_PER_NODE=k fakes nodes of k consecutive ranks;
 * COLLX_FAKE_NODES=0,1,0,2,... gives the node of every rank (repeated
 * cyclically when shorter than the world) and cyclic:k places rank r on
 * node r % k. Ranks of MPI_COMM_WORLD, whatever the communicator: a
 * sub-communicator sees its members' nodes (nodes.c: fake_key). */
int cx_comm_nodes(cx_comm *c);
/* The maps of the layout alone (which rank is on which node, the largest
 * node): cx_comm_nodes without its node and leader communicators, whose
 * splits of the whole communicator are what costs (SMPI, 256 ranks: 1.4
 * ms of a 9 ms program); what the rules' ranks_per_node needs. */
int cx_comm_node_map(cx_comm *c);
/* The same layout without collx's state (nodes.c). Collective over comm:
 * the lowest rank of every rank's node into lowest[size of comm]. */
int cx_nodes_lowest(MPI_Comm comm, int *lowest);
/* Nodes and ranks on the fullest node from such a lowest[size]
 * (reordered). */
void cx_nodes_count(int *lowest, int size, int *nodes, int *max_per_node);
/* Node-shared segment of at least bytes (collective over the node
 * communicator; grown on demand, never beyond COLLX_SHM_MAX, default
 * 256 MiB: MPI_ERR_NO_MEM then, identically on every rank). */
int cx_comm_shm(cx_comm *c, MPI_Aint bytes, char **base);
/* MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, node, ...) without the
 * MPI's search for an address common to the node's ranks where it has one
 * and one_thread_each (agreed: no rank has MPI_THREAD_MULTIPLE); see
 * shared_win.mpi.c. */
int cx_win_allocate_shared(MPI_Aint bytes, MPI_Comm node, int one_thread_each, void *base,
                           MPI_Win *win);
/* The column of this rank: every node's rank with its local rank, in node
 * order (collective over comm the first time). With l < every node's
 * size, column rank n is node n's. */
int cx_comm_column(cx_comm *c, MPI_Comm *column);
MPI_Aint cx_shm_max(void);
/* The node's control block: CX_NODE_CTL_BYTES of node-shared memory,
 * zeroed, allocated once (collective over the node communicator on first
 * use) and never moved, for counters and flags that must outlive segment
 * growth. Use atomics on it. */
#define CX_NODE_CTL_BYTES 4096
/* The fixed part's last line is the engine's: the node's doorbell
 * (bell.h, SMPI only); the families use the words before it. */
#define CX_NODE_BELL (CX_NODE_CTL_BYTES - 64)
int cx_comm_node_ctl(cx_comm *c, char **base);
/* After the control block's fixed part, six cache lines per local rank
 * that only that rank writes (what it publishes to its node); valid once
 * cx_comm_node_ctl succeeded. A multiple of 128 bytes, so that a rank's
 * words never share a line (nor the adjacent line that x86 cores fetch
 * in pairs) with another rank's. */
#define CX_NODE_LINE_BYTES 384
static inline char *cx_comm_node_line(cx_comm *c, int local_rank)
{
    return c->ctl_base + CX_NODE_CTL_BYTES + (size_t)local_rank * CX_NODE_LINE_BYTES;
}
/* After the lines, every local rank's two cells (one per parity of the
 * calls that use them) of c->cell_bytes each (COLLX_NODE_CELL when the
 * block was made, the same on every rank; 0: none): small data a rank
 * publishes to its node beside its line's flags. */
MPI_Aint cx_node_cell_bytes(void);
static inline char *cx_comm_node_cell(cx_comm *c, int local_rank, unsigned long long parity)
{
    return c->ctl_base + CX_NODE_CTL_BYTES + (size_t)c->local_size * CX_NODE_LINE_BYTES +
           ((size_t)local_rank * 2 + (size_t)(parity % 2)) * (size_t)c->cell_bytes;
}
int cx_comm_next_tag(cx_comm *c);
/* A nonblocking schedule on c begins / has finished. The program may free
 * its communicator while one is in flight (MPI: the call completes): the
 * state then waits for them before it goes (they use its communicators
 * and segments). NULL: no state (the MPI's own call in a schedule). */
void cx_comm_enter(cx_comm *c);
void cx_comm_leave(cx_comm *c);
/* Room room's state of c: NULL until the room sets it; release, which
 * the room gives once before, frees it with the communicator. */
static inline void **cx_comm_room(cx_comm *c, int room) { return &c->room_state[room]; }
void cx_comm_room_release(int room, void (*release)(void *state));
/* Frees every room's state of c (with the communicator; tests). */
void cx_comm_release_rooms(cx_comm *c);
/* Runs every family's after_call hook (end of a blocking call); the
 * look inline, so that a communicator no such family uses (nearly all)
 * costs a load. */
void cx_comm_after_call_hooks(cx_comm *c);
static inline void cx_comm_after_call(cx_comm *c)
{
    if (c->hooked)
        cx_comm_after_call_hooks(c);
}
/* Before a collective set-up on c's private, node or leader
 * communicators (a family's first use, a duplicate of one of them): the
 * nonblocking calls in flight finish first. MPI wants every rank to start
 * the collectives of a communicator in the same order, and an in-flight
 * call posts its next ones whenever it progresses, at a different moment
 * on each rank. Every rank reaches the set-up in the same call, so they
 * all finish theirs. */
int cx_comm_quiesce(cx_comm *c);

#endif
