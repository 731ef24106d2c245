/* The bookkeeping every hierarchical algorithm shares: the family's state
 * of a communicator, the slot of the segment a call uses (and when a node
 * barrier must come first), the numbering of node barriers and its log
 * for persistent calls, the node-by-node layout of the pieces and the
 * bands above the budget. The barriers' steps are sync.c's, the leaders'
 * step leaders.c's. */
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
    hier_exchanges exchanges;      /* size exchanges of the node (guard.c) */
    hier_log *log;          /* of the schedule being built, if logged */
    int *first, *members;   /* ranks of node n: members[first[n] .. first[n+1]) */
    void *scratch;          /* CX_<Name>_shared when hier cannot serve */
    MPI_Aint scratch_bytes;
    /* A blocking call's size exchange, made before its build (guard.c) */
    hier_guard published;
    const cx_args *published_for;
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

static __attribute__((noinline)) hier_state *state_new(cx_comm *c)
{
    return *cx_comm_state(c, cx_hier_slot) = calloc(1, sizeof(hier_state));
}

/* Inline: every call looks (the first makes it, apart). */
static inline hier_state *state_of(cx_comm *c)
{
    hier_state *h = cx_comm_state_of(c, cx_hier_slot);
    return h ? h : state_new(c);
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
struct hier_mark {
    hier_mark *next;
    hier_arrival *barrier;   /* a node barrier; NULL: a slot */
    int half;           /* slot: the half taken */
    int barrier_first;  /* slot: a node barrier was entered for it */
};

static void log_mark(hier_state *st, hier_arrival *barrier, int half, int barrier_first)
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

hier_exchanges *hier_exchanges_of(cx_comm *c)
{
    hier_state *st = state_of(c);
    return st ? &st->exchanges : NULL;
}

void hier_keep_published(cx_comm *c, const cx_args *a, const hier_guard *g)
{
    hier_state *st = state_of(c);
    if (!st)
        return;
    st->published_for = g ? a : NULL;
    if (g)
        st->published = *g;
}

hier_queue *hier_forget_published(cx_comm *c)
{
    hier_state *st = state_of(c);
    if (!st)
        return NULL;
    st->published_for = NULL;
    return &st->queue;
}

int hier_take_published(cx_comm *c, const cx_args *a, hier_guard *g)
{
    hier_state *st = state_of(c);
    if (!st || st->published_for != a || st->published.gen != st->exchanges.made)
        return 0;
    st->published_for = NULL;
    *g = st->published;
    return 1;
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

int hier_need_fits(MPI_Aint largest)
{
    /* leaders' messages count bytes as int */
    return hier_shm_bytes(largest) <= cx_shm_max() && largest <= INT_MAX;
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

/* Numbers the barrier (every rank of a node enters the same barriers in
 * the same order), logs it for a persistent call's replay, adds its
 * steps (sync.c). */
int hier_node_barrier(hier *h, cx_sched *s)
{
    cx_comm *c = h->c;
    char *ctl;
    int err = cx_sched_barrier(s);
    if (err || c->local_size == 1)
        return err;
    hier_state *st = state_of(c);
    hier_arrival *x = cx_sched_alloc(s, sizeof *x);
    if (!st || !x)
        return MPI_ERR_NO_MEM;
    if ((err = cx_comm_node_ctl(c, &ctl)))
        return err;
    x->c = c;
    x->ctl = (unsigned long long *)(void *)ctl;
    x->b = ++st->barriers;
    log_mark(st, x, 0, 0);
    return hier_sync_barrier(s, x);
}
