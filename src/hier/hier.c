/* What every hierarchical algorithm shares: the slot of the segment a call
 * uses, the node-by-node layout of the pieces, node barriers, the leaders'
 * collective. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hier.h"

int cx_hier_slot;   /* the key of this family's state (util/catalogue.h) */

/* Per communicator: uses of the segment's two halves (slots) alternate,
 * so a call rarely waits for the readers of the previous one. A slot is
 * reused only after every rank of the node has finished reading it: see
 * take_slot. */
typedef struct hier_state {
    hier_queue queue;
    unsigned seq;                  /* slots taken (the last: (seq - 1) % 2) */
    unsigned long long free_from[2];   /* node barrier after which a slot's
                                        * readers are done */
    unsigned long long barriers;   /* node barriers this rank entered */
    unsigned long long exchanges;  /* size exchanges of the node (guard.c) */
    hier_log *log;          /* of the schedule being built, if logged */
    int *first, *members;   /* ranks of node n: members[first[n] .. first[n+1]) */
    void *scratch;          /* CX_<Name>_shared when hier cannot serve */
    MPI_Aint scratch_bytes;
} hier_state;

void hier_release(void *p)
{
    hier_state *st = p;
    free(st->first);
    free(st->members);
    free(st->scratch);
    free(st);
}

MPI_Aint hier_shm_bytes(MPI_Aint slot_bytes)
{
    MPI_Aint align = 64;
    return 2 * ((slot_bytes + align - 1) / align * align);
}

static hier_state *state_of(cx_comm *c)
{
    void **st = cx_comm_state(c, cx_hier_slot);
    if (!*st)
        *st = calloc(1, sizeof(hier_state));
    return *st;
}

/* Where the segment's reuse is decided. The ranks of a node read a slot
 * (results copied out, CX_<Name>_shared's pointer) after the last node
 * barrier of its use, and stop before they enter the next node barrier,
 * whatever call it belongs to. So a slot may be written again once this
 * rank has passed a node barrier entered after the slot was given up;
 * when none was (the calls since then moved nothing, so they had no
 * barrier: an empty call between two others), one is entered here. Every
 * rank of a node takes the same slots and enters the same barriers, so
 * all decide alike. */
/* A slot taken or a node barrier entered (log_mark), while a persistent
 * call's schedule is built: hier_renumber takes them again in order. */
typedef struct arrival {   /* a node barrier (hier_node_barrier) */
    cx_comm *c;
    unsigned long long *ctl, b;
    int seen;   /* ranks seen arriving, in local order */
} arrival;
struct hier_mark {
    hier_mark *next;
    arrival *barrier;   /* a node barrier; NULL: a slot */
    int half;           /* slot: the half taken */
    int barrier_first;  /* slot: a node barrier was entered for it */
};

static void log_mark(hier_state *st, arrival *barrier, int half, int barrier_first)
{
    hier_log *log = st->log;
    if (!log)
        return;
    hier_mark *m = cx_sched_alloc(log->mem, sizeof *m);
    if (!m) {
        log->broken = 1;
        return;
    }
    *m = (hier_mark){NULL, barrier, half, barrier_first};
    *log->last = m;
    log->last = &m->next;
}

/* The half the next slot takes, and whether a barrier comes first. */
static int next_half(unsigned *seq, unsigned long long barriers,
                     unsigned long long free_from[2], int local_size, int *barrier_first)
{
    if (*seq)   /* the slot in use is given up */
        free_from[(*seq - 1) % 2] = barriers + 1;
    int k = (int)((*seq)++ % 2);
    *barrier_first = local_size > 1 && barriers < free_from[k];
    return k;
}

static int take_slot(hier *h, cx_sched *s, hier_state *st)
{
    int first, err = MPI_SUCCESS;
    int k = next_half(&st->seq, st->barriers, st->free_from, h->c->local_size, &first);
    log_mark(st, NULL, k, first);
    if (first)
        err = hier_node_barrier(h, s);
    h->slot = h->seg + k * h->half;
    return err;
}

int hier_begin(hier *h, const cx_args *a, cx_sched *s, const MPI_Aint *piece_bytes,
               MPI_Aint bytes, MPI_Aint slot_bytes)
{
    cx_comm *c = a->cc;
    int err, p = a->size;
    char *seg;
    hier_state *st;
    memset(h, 0, sizeof *h);
    h->a = a;
    h->c = c;
    h->senders = 1;
    if ((err = cx_comm_nodes(c)))
        return err;
    if (!(st = state_of(c)))
        return MPI_ERR_NO_MEM;
    /* The slots are the two halves of the whole segment, whatever this
     * call needs: consecutive calls never overlap. */
    if (c->plan_owned && hier_shm_bytes(slot_bytes) > c->shm_size)
        return MPI_ERR_INTERN;   /* sized at init (queue.c): growing now, collective, could hang */
    if ((err = cx_comm_shm(c, hier_shm_bytes(slot_bytes), &seg)))
        return err;
    h->seg = seg;
    h->half = c->shm_size / 2 / 64 * 64;
    if ((err = take_slot(h, s, st)))
        return err;
    h->node_off = cx_sched_alloc(s, sizeof(MPI_Aint) * (size_t)(c->nnodes + 1));
    h->rank_off = cx_sched_alloc(s, sizeof(MPI_Aint) * (size_t)p);
    if (!h->node_off || !h->rank_off)
        return MPI_ERR_NO_MEM;
    return hier_layout(h, s, piece_bytes, bytes);
}

int hier_layout(hier *h, cx_sched *s, const MPI_Aint *piece_bytes, MPI_Aint bytes)
{
    cx_comm *c = h->c;
    int p = h->a->size;
    /* Node n's region holds its ranks' pieces in local order. */
    MPI_Aint *fill = cx_sched_alloc(s, sizeof(MPI_Aint) * (size_t)c->nnodes);
    if (!fill)
        return MPI_ERR_NO_MEM;
    memset(fill, 0, sizeof(MPI_Aint) * (size_t)c->nnodes);
    for (int r = 0; r < p; r++)
        fill[c->node_of[r]] += piece_bytes ? piece_bytes[r] : bytes;
    h->node_off[0] = 0;
    for (int n = 0; n < c->nnodes; n++)
        h->node_off[n + 1] = h->node_off[n] + fill[n];
    memcpy(fill, h->node_off, sizeof(MPI_Aint) * (size_t)c->nnodes);
    for (int r = 0; r < p; r++) {   /* ranks in order = local order */
        h->rank_off[r] = fill[c->node_of[r]];
        fill[c->node_of[r]] += piece_bytes ? piece_bytes[r] : bytes;
    }
    return MPI_SUCCESS;
}

hier_queue *hier_queue_of(cx_comm *c)
{
    hier_state *st = state_of(c);
    return st ? &st->queue : NULL;
}

int hier_wait(cx_comm *c, cx_poll_fn fn, void *ctx)
{
    return cx_wait_poll(c->priv, fn, ctx);
}

void hier_log_begin(cx_comm *c, hier_log *log, cx_sched *mem)
{
    hier_state *st = state_of(c);
    *log = (hier_log){NULL, &log->first, mem, st == NULL};
    if (st)
        st->log = log;
}

void hier_log_end(cx_comm *c)
{
    hier_state *st = state_of(c);
    if (st)
        st->log = NULL;
}

int hier_renumber(cx_comm *c, const hier_log *log)
{
    hier_state *st = state_of(c);
    if (!st || log->broken)
        return 0;
    unsigned seq = st->seq;
    unsigned long long barriers = st->barriers, free_from[2];
    memcpy(free_from, st->free_from, sizeof free_from);
    for (hier_mark *m = log->first; m; m = m->next) {
        if (m->barrier) {
            m->barrier->b = ++barriers;
            continue;
        }
        int first, k = next_half(&seq, barriers, free_from, c->local_size, &first);
        if (k != m->half || first != m->barrier_first)
            return 0;
    }
    st->seq = seq;
    st->barriers = barriers;
    memcpy(st->free_from, free_from, sizeof free_from);
    return 1;
}

unsigned long long hier_next_exchange(cx_comm *c)
{
    hier_state *st = state_of(c);
    return st ? ++st->exchanges : 0;
}

void *hier_scratch(cx_comm *c, MPI_Aint bytes)
{
    hier_state *st = state_of(c);
    if (!st)
        return NULL;
    if (bytes > st->scratch_bytes) {
        void *n = realloc(st->scratch, (size_t)bytes);
        if (!n)
            return NULL;
        st->scratch = n;
        st->scratch_bytes = bytes;
    }
    return st->scratch;
}

int hier_members(hier *h, const int **first, const int **members)
{
    cx_comm *c = h->c;
    hier_state *st = state_of(c);
    if (!st)
        return MPI_ERR_NO_MEM;
    if (!st->first) {
        int *f = calloc((size_t)c->nnodes + 1, sizeof *f);
        int *m = malloc(sizeof *m * (size_t)c->size);
        if (!f || !m) {
            free(f);
            free(m);
            return MPI_ERR_NO_MEM;
        }
        for (int r = 0; r < c->size; r++)
            f[c->node_of[r] + 1]++;
        for (int n = 0; n < c->nnodes; n++)
            f[n + 1] += f[n];
        for (int r = 0; r < c->size; r++)   /* rank order = local order */
            m[f[c->node_of[r]] + c->local_of[r]] = r;
        st->first = f;
        st->members = m;
    }
    *first = st->first;
    *members = st->members;
    return MPI_SUCCESS;
}

/* What runs instead of the MPI's own nonblocking all-to-all (NULL: it
 * does). The MPIs' are not trusted inside a schedule: Open MPI 4.1's
 * MPI_Ialltoallv among the leaders hung where some leaders have nothing
 * to exchange (an alltoallv's band, hier.bands.contract.a2a.p7) and
 * differs from its blocking call in place; MPICH 4.0's MPI_Ialltoallw
 * aborts in place (pmodels/mpich#6404). collx's pairwise is right there. */
static const cx_algorithm *instead_of_mpi_nonblocking(const cx_args *a)
{
    int a2a = a->coll == CX_COLL_ALLTOALL || a->coll == CX_COLL_ALLTOALLV ||
              a->coll == CX_COLL_ALLTOALLW;
    return a->nonblocking && a2a ? cx_algorithm_find(a->coll, "pairwise") : NULL;
}

int hier_need_fits(MPI_Aint largest)
{
    /* leaders' messages count bytes as int */
    return hier_shm_bytes(largest) <= cx_shm_max() && largest <= INT_MAX;
}

int hier_run_native(hier *h, cx_sched *s, MPI_Aint need)
{
    const cx_args *a = h->a;
    const cx_algorithm *alg = instead_of_mpi_nonblocking(a);
    char why[160];
    snprintf(why, sizeof why, "needs %lld bytes of node-shared memory on a node, above "
             "COLLX_SHM_MAX=%lld or 2^31", (long long)need, (long long)cx_shm_max());
    cx_fall_back_in_build(a, s, alg, CX_REQ_SHM, why);
    cx_args native = *a;
    native.comm = a->pcomm;
    /* counted for what ran too */
    cx_count_call(alg ? alg : cx_native(a->coll), a);
    return cx_sched_collective(s, &native, alg);
}

int hier_copy_blocks(hier *h, cx_sched *s, const MPI_Aint *bytes, MPI_Aint bb, int to_user,
                     int skip)
{
    return hier_copy_band(h, s, bytes, bb, to_user, skip, 0, INT_MAX);
}

static int in_band(const int *local, int r, int skip, int lo, int hi)
{
    return r != skip && local[r] >= lo && local[r] < hi;
}

int hier_copy_band(hier *h, cx_sched *s, const MPI_Aint *bytes, MPI_Aint bb, int to_user,
                   int skip, int lo, int hi)
{
    const cx_args *a = h->a;
    const int *local = h->c->local_of;
    int p = a->size, err = MPI_SUCCESS;
    for (int r = 0; r < p && !err;) {
        if (!in_band(local, r, skip, lo, hi)) {
            r++;
            continue;
        }
        cx_piece run = cx_all_block(a, r);
        MPI_Aint ext = cx_type_extent(run.type), n = bytes ? bytes[r] : bb;
        int next = r + 1;
        for (; next < p && in_band(local, next, skip, lo, hi); next++) {
            cx_piece b = cx_all_block(a, next);
            if (b.type != run.type || b.buf != run.buf + run.count * ext ||
                h->rank_off[next] != h->rank_off[r] + n)
                break;
            run.count += b.count;
            n += bytes ? bytes[next] : bb;
        }
        char *slot = h->slot + h->rank_off[r];
        err = to_user ? cx_sched_copy(s, slot, n, MPI_PACKED, run.buf, run.count, run.type)
                      : cx_sched_copy(s, run.buf, run.count, run.type, slot, n, MPI_PACKED);
        r = next;
    }
    return err;
}

int hier_bands(const MPI_Aint *col, int nl, MPI_Aint budget, int *band)
{
    int nb = 0;
    band[0] = 0;
    for (int l = 0; l < nl;) {
        MPI_Aint sum = 0;
        if (col[l] > budget)
            return 0;
        while (l < nl && sum + col[l] <= budget)
            sum += col[l++];
        band[++nb] = l;
    }
    return nb;
}

int hier_next_slot(hier *h, cx_sched *s)
{
    return take_slot(h, s, state_of(h->c));   /* exists: hier_begin made it */
}

MPI_Aint hier_slot_budget(void)
{
    /* two halves of at most COLLX_SHM_MAX, 64-byte aligned; a half's
     * offsets and counts reach the leaders' collectives as int */
    MPI_Aint half = cx_shm_max() / 2;
    return (half < INT_MAX ? half : INT_MAX) / 64 * 64;
}

/* Node barrier in shared memory: each rank counts the node barriers it
 * entered in its own line of the node's control block (HIER_LINE_ARRIVED,
 * stored with release), and barrier b is passed once every rank of the
 * node has counted b (loaded with acquire): one cache-line handoff from
 * the last to arrive to each waiter, no read-modify-write on a line all
 * ranks share. A waiter remembers how many ranks it has seen arrive, so
 * a wait reads each line once after it changed. Every rank of a node
 * enters the same barriers in the same order.
 *
 * A barrier also shares errors: a rank that arrives with an error (e.g.
 * the leader's collective reported MPI_ERR_TRUNCATE, so the node's data is
 * wrong) leaves its class in the word of the barrier's parity (relaxed:
 * its arrival's release orders it), and every rank of the node records it
 * when the barrier is passed. A rank reaches barrier b + 2, which reuses
 * the word, only after all passed b + 1. */
enum { CTL_ERROR = 1 };   /* 8-byte words of the block; CTL_ERROR + b % 2 */

static volatile uint64_t *arrived_word(cx_comm *c, int local)
{
    return (volatile uint64_t *)(void *)cx_comm_node_line(c, local) + HIER_LINE_ARRIVED;
}

static int arrive(cx_sched *s, void *ctx, MPI_Request *req)
{
    arrival *x = ctx;
    *req = MPI_REQUEST_NULL;
    if (s->err != MPI_SUCCESS) {
        int cls = MPI_ERR_OTHER;
        PMPI_Error_class(s->err, &cls);
        __atomic_store_n(&x->ctl[CTL_ERROR + x->b % 2], x->b << 16 | (unsigned)cls,
                         __ATOMIC_RELAXED);
    }
    x->seen = 0;
    hier_pause();
    __atomic_store_n(arrived_word(x->c, x->c->local_rank), x->b, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

static int all_arrived(cx_sched *s, void *ctx, int *done)
{
    arrival *x = ctx;
    while (x->seen < x->c->local_size &&
           __atomic_load_n(arrived_word(x->c, x->seen), __ATOMIC_ACQUIRE) >= x->b)
        x->seen++;
    *done = x->seen == x->c->local_size;
    if (*done) {
        cx_charge_sync(x->c->local_size);
        hier_pause();
        unsigned long long e = __atomic_load_n(&x->ctl[CTL_ERROR + x->b % 2],
                                               __ATOMIC_RELAXED);
        if (e >> 16 == x->b)
            cx_sched_fail(s, (int)(e & 0xffff));
    }
    return MPI_SUCCESS;
}

int hier_node_barrier(hier *h, cx_sched *s)
{
    cx_comm *c = h->c;
    char *ctl;
    int err = cx_sched_barrier(s);
    if (err || c->local_size == 1)
        return err;
    hier_state *st = state_of(c);
    arrival *x = cx_sched_alloc(s, sizeof *x);
    if (!st || !x)
        return MPI_ERR_NO_MEM;
    if ((err = cx_comm_node_ctl(c, &ctl)))
        return err;
    x->c = c;
    x->ctl = (unsigned long long *)(void *)ctl;
    x->b = ++st->barriers;
    x->seen = 0;
    log_mark(st, x, 0, 0);
    if ((err = cx_sched_start(s, arrive, x)) || (err = cx_sched_poll(s, all_arrived, x)))
        return err;
    return cx_sched_barrier(s);
}

/* Whether the leaders' native collective of a blocking call is the MPI's
 * blocking one (COLLX_HIER_NATIVE=blocking, the default) or its
 * nonblocking twin (=nonblocking): see src/core/select/subcoll.c. */
static int native_nonblocking(const hier *h, const cx_args *inter)
{
    return h->a->nonblocking || inter->nonblocking ||
           cx_knob_call_int(h->a->params, CX_KNOB_HIER_NATIVE) == 1;
}

/* From this many nodes on, the leaders' allgatherv is collx's Bruck (log
 * depth whatever the sizes) rather than the MPI's own, which in SMPI's
 * Open-MPI-like selection is a ring or gather+bcast for node regions of
 * 256 B-1 MiB: fattree-256x16, docs/results/hier/README.md (16 nodes: the
 * MPI's own 4-21 % faster; 64 and 256 nodes: Bruck up to 2-5x faster). */
#define HIER_BRUCK_NODES 64

/* Below this many bytes among fewer than HIER_RD_NODES nodes, the
 * leaders' allreduce is collx's recursive doubling: Open MPI 4.1's tuned
 * table (which SMPI's selector copies) runs a ring there (2-7 ranks,
 * under 8-16 B) or a segmented ring (16-63 ranks, under 64-128 B), whose
 * n - 1 steps made hier 1.17-1.33x slower than the best flat allreduce at
 * 8 B (fattree-256x16, p = 64 and 256; docs/results/hier/README.md). */
#define HIER_RD_BYTES 64
#define HIER_RD_NODES 64

/* Above this many bytes a nonblocking call's leaders reduce with
 * Rabenseifner's algorithm. From HIER_NB_PIPE bytes on they broadcast by
 * a pipelined binary tree in segments of about HIER_NB_SEGMENT bytes (2 to
 * 32 of them): fattree-256x16, hier bcast, leaders' time with each
 * algorithm (bench/hier_nb_leaders.sh bcast): 16 nodes, 32 KiB 27.6 us
 * against the MPI's blocking bcast's 42.5 and binomial's 42.5, 64 KiB
 * 44.9 / 43.8 / 58.9, 1 MiB 507.6 / 574.5 / 897.0; 64 nodes, 1 MiB 602.0 / 763.5;
 * scatter_allgather was slower at every one of these points. */
#define HIER_NB_LARGE 4096
#define HIER_NB_PIPE 16384
#define HIER_NB_SEGMENT 8192

/* Above this many bytes per node on average (and below HIER_BRUCK_NODES
 * nodes) a nonblocking call's leaders allgather by neighbour exchange
 * (the ring for an odd node count), below it by Bruck: fattree-256x16,
 * hier allgather, leaders' time with each algorithm (bench/
 * hier_nb_leaders.sh allgather): 16 nodes, 32 KiB per node Bruck 144.8 us
 * = the MPI's own, neighbour exchange 150.7; 64 KiB 270.2 both; 256 KiB
 * neighbour exchange 1003.6 = the MPI's own, Bruck 1040.5; 15 nodes, 256
 * KiB ring 942.6, Bruck 977.4. */
#define HIER_NB_REGION 65536

/* Per-call values of COLLX_BCAST_SEGMENTS for the leaders' pipelined
 * bcast, 2^k segments (the call's own params, a rule's, win). */
static cx_knob_param segment_values[] = {
    {CX_KNOB_BCAST_SEGMENTS, {.set = 1, .i = 2, .r = 2}},
    {CX_KNOB_BCAST_SEGMENTS, {.set = 1, .i = 4, .r = 4}},
    {CX_KNOB_BCAST_SEGMENTS, {.set = 1, .i = 8, .r = 8}},
    {CX_KNOB_BCAST_SEGMENTS, {.set = 1, .i = 16, .r = 16}},
    {CX_KNOB_BCAST_SEGMENTS, {.set = 1, .i = 32, .r = 32}}};
#define SEGMENTS(k) {.n = 1, .p = &segment_values[k], .rule = -1}
static cx_knob_params segment_params[] = {SEGMENTS(0), SEGMENTS(1), SEGMENTS(2),
                                          SEGMENTS(3), SEGMENTS(4)};

static const cx_knob_params *leaders_segments(const cx_knob_params *call, MPI_Aint bytes)
{
    if (call)
        return call;
    int k = 0;
    while (k < 4 && (MPI_Aint)HIER_NB_SEGMENT << (k + 2) <= bytes)
        k++;
    return &segment_params[k];
}

/* A nonblocking call (CX_I..., MPI_I..., a start of a persistent one)
 * cannot run the MPI's blocking collective among the leaders, and the
 * MPI's nonblocking twin is often a linear schedule: SMPI's made a
 * started hier allreduce at p = 256 (16 nodes, fattree-256x16) 2.4 times
 * slower than the blocking call at 64 KiB, its bcast 2.3 times (the same
 * leaders' algorithm: the same time); Open MPI's libnbc moves only inside
 * MPI calls. So collx's own log-depth schedules, which collx's progress
 * moves: NULL where the MPI's own stays (gatherv, scatterv: linear
 * anyway). */
static const cx_algorithm *nonblocking_leaders(cx_args *inter, int n)
{
    const char *name = NULL;
    int commute = 1;
    switch (inter->coll) {
    case CX_COLL_ALLREDUCE:
        if (inter->op != MPI_OP_NULL)
            PMPI_Op_commutative(inter->op, &commute);
        name = commute && (MPI_Aint)cx_type_bytes(inter->rcount, inter->rtype) > HIER_NB_LARGE
                   ? "rabenseifner" : "recursive_doubling";
        break;
    case CX_COLL_ALLGATHERV:
        name = n < HIER_BRUCK_NODES && cx_counts_bytes(inter->rcounts, n, inter->rtype) >
                                           (MPI_Count)n * HIER_NB_REGION
                   ? "neighbor_exchange" : "bruck";
        break;
    case CX_COLL_BCAST: {
        MPI_Aint bytes = (MPI_Aint)cx_type_bytes(inter->rcount, inter->rtype);
        name = bytes >= HIER_NB_PIPE ? "pipeline_binary" : "binomial";
        if (bytes >= HIER_NB_PIPE)
            inter->params = leaders_segments(inter->params, bytes);
        break;
    }
    case CX_COLL_BARRIER:
        name = "dissemination";
        break;
    case CX_COLL_EXSCAN:
        name = "recursive_doubling";
        break;
    case CX_COLL_REDUCE_SCATTER:
        name = "ring";
        break;
    default:
        break;
    }
    return name ? cx_algorithm_find(inter->coll, name) : NULL;
}

/* The leaders' algorithm for the collective inter among n nodes:
 * COLLX_HIER_INTER=<name> (the call's rule may set it) where the
 * collective has one (native, or a name it does not have: the MPI's own),
 * else the rules above; NULL: the MPI's own (its nonblocking call when
 * inter->nonblocking). */
static const cx_algorithm *inter_alg(const hier *h, cx_args *inter, int n)
{
    const char *v = cx_knob_call_str(h->a->params, CX_KNOB_HIER_INTER);
    if (v)
        return cx_algorithm_find(inter->coll, v);
    const cx_algorithm *own = instead_of_mpi_nonblocking(inter);
    if (!own && h->a->nonblocking)
        own = nonblocking_leaders(inter, n);
    if (own)
        return own;
    if (inter->coll == CX_COLL_ALLGATHERV && n >= HIER_BRUCK_NODES)
        return cx_algorithm_find(inter->coll, "bruck");
    if (inter->coll == CX_COLL_ALLREDUCE && n < HIER_RD_NODES &&
        cx_type_bytes(inter->rcount, inter->rtype) < HIER_RD_BYTES)
        return cx_algorithm_find(inter->coll, "recursive_doubling");
    return NULL;
}

int hier_leaders(hier *h, cx_sched *s, cx_args *inter)
{
    if (h->c->leaders == MPI_COMM_NULL || h->c->nnodes < 2)
        return MPI_SUCCESS;
    inter->comm = h->c->leaders;
    inter->nonblocking = native_nonblocking(h, inter);
    inter->params = h->a->params;   /* the call's, for the leaders' algorithm too */
    int err = cx_sched_collective(s, inter, inter_alg(h, inter, h->c->nnodes));
    return err ? err : cx_sched_barrier(s);
}

int hier_choose_senders(hier *h, MPI_Aint bytes, MPI_Aint per_sender)
{
    int given = cx_knob_call_given(h->a->params, CX_KNOB_HIER_SENDERS);
    MPI_Aint k = given ? (MPI_Aint)cx_knob_call_int(h->a->params, CX_KNOB_HIER_SENDERS)
                       : bytes / per_sender;
    if (k > 8 && !given)
        k = 8;
    if (k > h->c->min_ranks_per_node)
        k = h->c->min_ranks_per_node;
    h->senders = k < 1 ? 1 : (int)k;
    MPI_Comm col;   /* set up now, on every rank: later it may be mid-schedule */
    return h->senders > 1 ? cx_comm_column(h->c, &col) : MPI_SUCCESS;
}

void hier_share(MPI_Aint n, int l, int k, MPI_Aint *lo, MPI_Aint *len)
{
    if (k <= 1 || l >= k)   /* one sender (or none: unused) */
        l = 0, k = 1;
    *lo = n * l / k;
    *len = n * (l + 1) / k - *lo;
}

int hier_columns(hier *h, cx_sched *s, cx_args *inter)
{
    cx_comm *c = h->c;
    MPI_Comm col;
    if (h->senders <= 1)
        return hier_leaders(h, s, inter);
    int err = cx_comm_column(c, &col);
    if (err || c->local_rank >= h->senders || c->nnodes < 2)
        return err;
    inter->comm = col;
    inter->nonblocking = native_nonblocking(h, inter);
    inter->params = h->a->params;
    err = cx_sched_collective(s, inter, inter_alg(h, inter, h->c->nnodes));
    return err ? err : cx_sched_barrier(s);
}
