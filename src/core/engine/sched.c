/* Building schedules: rounds of steps (see sched.h). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sched.h"
#include "scratch.h"
#include "dtype.h"
#include "../util/util.h"

void cx_sched_init(cx_sched *s, MPI_Comm comm, int tag)
{
    memset(s, 0, sizeof *s);
    s->comm = comm;
    s->tag = tag;
}

void cx_sched_init_for(cx_sched *s, MPI_Comm comm, int tag, int coll)
{
    cx_sched_init(s, comm, tag);
    cx_sched_reuse(s, comm, tag, coll);
}

int cx_grow(void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return MPI_SUCCESS;
    int ncap = *cap ? *cap * 2 : 16;
    while (ncap < need)
        ncap *= 2;
    void *n = realloc(*arr, (size_t)ncap * elem);
    if (!n)
        return MPI_ERR_NO_MEM;
    *arr = n;
    *cap = ncap;
    return MPI_SUCCESS;
}

static int add_op(cx_sched *s, const cx_op *op)
{
    int err = cx_grow((void **)&s->ops, &s->ops_cap, s->nops + 1, sizeof *s->ops);
    if (err)
        return err;
    s->ops[s->nops++] = *op;
    return MPI_SUCCESS;
}

int cx_sched_barrier(cx_sched *s)
{
    int closed_end = s->nrounds ? s->round_end[s->nrounds - 1] : 0;
    if (s->nops == closed_end)
        return MPI_SUCCESS; /* empty round: nothing to close */
    int err = cx_grow((void **)&s->round_end, &s->rounds_cap, s->nrounds + 1,
                      sizeof *s->round_end);
    if (err)
        return err;
    s->round_end[s->nrounds++] = s->nops;
    return MPI_SUCCESS;
}

/* A message of count elements of t as (count, type) with count <= INT_MAX;
 * *bytes = its size. A negative count is a bug of the caller. */
static int message(cx_sched *s, MPI_Aint *count, MPI_Datatype *t, MPI_Count *bytes)
{
    if (*count < 0)
        return MPI_ERR_INTERN;
    int err = cx_type_bytes_x(*count, *t, bytes);
    if (err || *bytes == 0 || *count <= INT_MAX)
        return err;
    MPI_Datatype big;
    if ((err = cx_type_big(*count, *t, &big)) || (err = cx_sched_own_type(s, big)))
        return err;
    *count = 1;
    *t = big;
    return MPI_SUCCESS;
}

static int add_msg(cx_sched *s, cx_op_kind kind, const void *buf, MPI_Aint count,
                   MPI_Datatype t, int peer, MPI_Comm comm, int tag, int flags)
{
    MPI_Count bytes;
    int err = message(s, &count, &t, &bytes);
    if (err || (bytes == 0 && !s->keep_empty && !(flags & CX_MSG_EMPTY)))
        return err;
    cx_op op = {.kind = kind, .count = count, .type = t, .peer = peer,
                .comm = comm, .tag = tag, .flags = flags};
    if (kind == CX_OP_SEND)
        op.src = buf;
    else
        op.dst = (void *)buf;
    return add_op(s, &op);
}

int cx_sched_send_flags(cx_sched *s, const void *buf, MPI_Aint count, MPI_Datatype t,
                        int peer, MPI_Comm comm, int tag, int flags)
{
    return add_msg(s, CX_OP_SEND, buf, count, t, peer, comm, tag, flags);
}

int cx_sched_recv_flags(cx_sched *s, void *buf, MPI_Aint count, MPI_Datatype t,
                        int peer, MPI_Comm comm, int tag, int flags)
{
    return add_msg(s, CX_OP_RECV, buf, count, t, peer, comm, tag, flags);
}

int cx_sched_send_on(cx_sched *s, const void *buf, MPI_Aint count, MPI_Datatype t,
                     int peer, MPI_Comm comm, int tag)
{
    return add_msg(s, CX_OP_SEND, buf, count, t, peer, comm, tag, 0);
}

int cx_sched_recv_on(cx_sched *s, void *buf, MPI_Aint count, MPI_Datatype t,
                     int peer, MPI_Comm comm, int tag)
{
    return add_msg(s, CX_OP_RECV, buf, count, t, peer, comm, tag, 0);
}

int cx_sched_send(cx_sched *s, const void *buf, MPI_Aint count, MPI_Datatype t,
                  int peer)
{
    return add_msg(s, CX_OP_SEND, buf, count, t, peer, s->comm, s->tag, 0);
}

int cx_sched_recv(cx_sched *s, void *buf, MPI_Aint count, MPI_Datatype t, int peer)
{
    return add_msg(s, CX_OP_RECV, buf, count, t, peer, s->comm, s->tag, 0);
}

int cx_sched_copy(cx_sched *s, const void *src, MPI_Aint scount, MPI_Datatype st,
                  void *dst, MPI_Aint dcount, MPI_Datatype dt)
{
    MPI_Count bytes;
    if (scount < 0 || dcount < 0)
        return MPI_ERR_INTERN;
    int err = cx_type_bytes_x(scount, st, &bytes);
    if (err || bytes == 0 || cx_same_piece(src, scount, st, dst, dcount, dt))
        return err;
    cx_op op = {.kind = CX_OP_COPY, .src = src, .count = scount, .type = st,
                .dst = dst, .dcount = dcount, .dtype = dt};
    return add_op(s, &op);
}

int cx_sched_reduce(cx_sched *s, const void *in, void *inout, MPI_Aint count,
                    MPI_Datatype t, MPI_Op mop)
{
    if (count < 0)
        return MPI_ERR_INTERN;
    if (count == 0)
        return MPI_SUCCESS;
    cx_op op = {.kind = CX_OP_REDUCE, .src = in, .dst = inout, .count = count,
                .type = t, .op = mop};
    return add_op(s, &op);
}

int cx_sched_start(cx_sched *s, cx_start_fn fn, void *ctx)
{
    cx_op op = {.kind = CX_OP_START, .start = fn, .ctx = ctx};
    return add_op(s, &op);
}

int cx_sched_poll(cx_sched *s, cx_poll_fn fn, void *ctx)
{
    return cx_sched_poll_wait(s, fn, NULL, ctx);
}

int cx_sched_poll_wait(cx_sched *s, cx_poll_fn fn, cx_wait_fn wait, void *ctx)
{
    cx_op op = {.kind = CX_OP_POLL, .poll = fn, .wait = wait, .ctx = ctx};
    return add_op(s, &op);
}

/* Temporaries: the smallest from the schedule's arena (kept across
 * cx_sched_reset, so a blocking call's build allocates nothing), others
 * from malloc, large ones kept between calls (scratch.c), told apart in
 * temps by the low bit (both are aligned). */
#define ARENA_BYTES 4096
#define ARENA_MOST 512
#define ARENA_ALIGN 16

static void *from_arena(cx_sched *s, size_t bytes)
{
    size_t need = (bytes + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
    if (need == 0)
        need = ARENA_ALIGN;
    if (!s->arena) {
        if (!(s->arena = malloc(ARENA_BYTES)))
            return NULL;
        s->arena_cap = ARENA_BYTES;
        s->arena_used = 0;
    }
    if (s->arena_used + need > s->arena_cap)
        return NULL;
    void *p = s->arena + s->arena_used;
    s->arena_used += need;
    return p;
}

void *cx_sched_alloc(cx_sched *s, size_t bytes)
{
    void *p = bytes <= ARENA_MOST ? from_arena(s, bytes) : NULL;
    if (p)
        return p;
    if (cx_grow((void **)&s->temps, &s->temps_cap, s->ntemps + 1, sizeof *s->temps))
        return NULL;
    int large = bytes >= CX_SCRATCH_MIN;
    p = large ? cx_scratch_get(bytes) : malloc(bytes ? bytes : 1);
    if (p)
        s->temps[s->ntemps++] = (void *)((uintptr_t)p | (uintptr_t)large);
    return p;
}

/* Frees the temporaries, keeping the arrays that held them. */
static void release_temps(cx_sched *s)
{
    for (int i = 0; i < s->ntemps; i++) {
        uintptr_t t = (uintptr_t)s->temps[i];
        if (t & 1)
            cx_scratch_put((void *)(t & ~(uintptr_t)1));
        else
            free(s->temps[i]);
    }
    s->ntemps = 0;
    s->arena_used = 0;
}

void cx_sched_free_temps(cx_sched *s)
{
    release_temps(s);
    free(s->temps);
    free(s->arena);
    s->temps = NULL;
    s->arena = NULL;
    s->temps_cap = 0;
    s->arena_cap = 0;
}

void cx_sched_reset(cx_sched *s)
{
    cx_sched_release(s);
    release_temps(s);
    /* as cx_sched_init leaves it, the arrays and their capacities kept */
    cx_sched k = *s;
    cx_sched_init(s, MPI_COMM_NULL, 0);
    s->ops = k.ops, s->ops_cap = k.ops_cap;
    s->round_end = k.round_end, s->rounds_cap = k.rounds_cap;
    s->temps = k.temps, s->temps_cap = k.temps_cap;
    s->arena = k.arena, s->arena_cap = k.arena_cap;
    s->types = k.types, s->types_cap = k.types_cap;
    s->reqs = k.reqs, s->reqs_cap = k.reqs_cap;
    s->stats = k.stats, s->stats_cap = k.stats_cap;
}

int cx_sched_replayable(const cx_sched *s)
{
    if (s->err || s->cleanups || s->ntemps || s->before_round ||
        s->plan_state != CX_PLAN_NO_SETUP)
        return 0;
    for (int i = 0; i < s->nops; i++) {
        const cx_op *op = &s->ops[i];
        if (op->kind == CX_OP_START || op->kind == CX_OP_POLL)
            return 0;
        if ((op->kind == CX_OP_SEND || op->kind == CX_OP_RECV) &&
            (op->comm != s->comm || op->tag != s->tag))
            return 0;
    }
    return 1;
}

void cx_sched_reuse(cx_sched *s, MPI_Comm comm, int tag, int coll)
{
    s->comm = comm;
    s->tag = tag;
    s->keep_empty = !(cx_coll_shape((cx_coll)coll) &
                      (CX_SEND_V | CX_SEND_W | CX_RECV_V | CX_RECV_W));
}

/* One spare per thread (SMPI's ranks may share a thread: taking empties
 * the slot before any MPI call can switch to another rank). */
static _Thread_local cx_sched *spare;

cx_sched *cx_sched_take_spare(void)
{
    cx_sched *s = spare;
    spare = NULL;
    return s ? s : calloc(1, sizeof *s);
}

void cx_sched_give_spare(cx_sched *s)
{
    if (!s)
        return;
    cx_sched_reset(s);
    if (!spare) {
        spare = s;
        return;
    }
    cx_sched_free(s);
    free(s);
}

void *cx_sched_alloc_typed(cx_sched *s, MPI_Aint count, MPI_Datatype t)
{
    MPI_Aint extent, tlb, textent;
    cx_type_extents(t, &extent, &tlb, &textent);
    if (count == 0)
        return cx_sched_alloc(s, 1);
    MPI_Aint span = (count - 1) * extent + textent;
    char *p = cx_sched_alloc(s, (size_t)span);
    return p ? p - tlb : NULL;
}

int cx_sched_on_free(cx_sched *s, void (*fn)(void *ctx), void *ctx)
{
    cx_cleanup *c = cx_sched_alloc(s, sizeof *c);
    if (!c)
        return MPI_ERR_NO_MEM;
    *c = (cx_cleanup){fn, ctx, s->cleanups};
    s->cleanups = c;
    return MPI_SUCCESS;
}

int cx_sched_own_type(cx_sched *s, MPI_Datatype t)
{
    int err = cx_grow((void **)&s->types, &s->types_cap, s->ntypes + 1,
                      sizeof *s->types);
    if (err)
        return err;
    s->types[s->ntypes++] = t;
    return PMPI_Type_commit(&s->types[s->ntypes - 1]);
}

static int round_begin(const cx_sched *s, int r)
{
    return r == 0 ? 0 : s->round_end[r - 1];
}

static int round_stop(const cx_sched *s, int r)
{
    return r < s->nrounds ? s->round_end[r] : s->nops;
}

/* Peer of round r if all its ops are messages with one peer, else -1. */
static int single_peer(const cx_sched *s, int r)
{
    int b = round_begin(s, r), e = round_stop(s, r), peer = -1;
    for (int i = b; i < e; i++) {
        const cx_op *op = &s->ops[i];
        if ((op->kind != CX_OP_SEND && op->kind != CX_OP_RECV) ||
            (peer >= 0 && op->peer != peer))
            return -1;
        peer = op->peer;
    }
    return peer;
}

int cx_sched_sort_rounds(cx_sched *s, int from, const double *key)
{
    while (from < s->nrounds && single_peer(s, from) < 0)
        from++;   /* e.g. the root's own copy: stays first */
    int to = from;
    while (to < s->nrounds && single_peer(s, to) >= 0)
        to++;
    if (to - from < 2)
        return MPI_SUCCESS;
    int n = to - from, b0 = round_begin(s, from), nops = round_begin(s, to) - b0;
    int *idx = malloc(sizeof(int) * (size_t)n * 3), *beg = idx + n, *end = idx + 2 * n;
    cx_op *ops = malloc(sizeof(cx_op) * (size_t)nops);
    if (!idx || !ops) {
        free(idx);
        free(ops);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < n; i++) {   /* insertion sort: stable, n small */
        beg[i] = round_begin(s, from + i);
        end[i] = round_stop(s, from + i);
        double k = key[s->ops[beg[i]].peer];
        int j = i;
        while (j > 0 && key[s->ops[beg[idx[j - 1]]].peer] > k) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    int w = 0;
    for (int i = 0; i < n; i++) {
        int len = end[idx[i]] - beg[idx[i]];
        memcpy(&ops[w], &s->ops[beg[idx[i]]], sizeof(cx_op) * (size_t)len);
        w += len;
        s->round_end[from + i] = b0 + w;
    }
    memcpy(&s->ops[b0], ops, sizeof(cx_op) * (size_t)nops);
    free(idx);
    free(ops);
    return MPI_SUCCESS;
}

void cx_sched_fail(cx_sched *s, int err)
{
    if (err != MPI_SUCCESS && s->err == MPI_SUCCESS)
        s->err = err;
}
