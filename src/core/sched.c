/* Schedules: rounds of nonblocking point-to-point plus local ops, and the
 * executors that run them (blocking, and step-wise for CX_I* requests). */
#include <stdlib.h>
#include <string.h>
#include "cx_internal.h"

void cx_sched_init(cx_sched *s, MPI_Comm comm, int tag)
{
    memset(s, 0, sizeof *s);
    s->comm = comm;
    s->tag = tag;
}

static int grow(void **arr, int *cap, int need, size_t elem)
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
    int err = grow((void **)&s->ops, &s->ops_cap, s->nops + 1, sizeof *s->ops);
    if (err)
        return err;
    s->ops[s->nops++] = *op;
    return MPI_SUCCESS;
}

/* First op index of round r. */
static int round_begin(const cx_sched *s, int r)
{
    return r == 0 ? 0 : s->round_end[r - 1];
}

static int round_stop(const cx_sched *s, int r)
{
    return r < s->nrounds ? s->round_end[r] : s->nops;
}

int cx_sched_barrier(cx_sched *s)
{
    int closed_end = s->nrounds ? s->round_end[s->nrounds - 1] : 0;
    if (s->nops == closed_end)
        return MPI_SUCCESS; /* empty round: nothing to close */
    int err = grow((void **)&s->round_end, &s->rounds_cap, s->nrounds + 1,
                   sizeof *s->round_end);
    if (err)
        return err;
    s->round_end[s->nrounds++] = s->nops;
    return MPI_SUCCESS;
}

int cx_sched_send(cx_sched *s, const void *buf, int count, MPI_Datatype t, int peer)
{
    if (cx_type_bytes(count, t) == 0)
        return MPI_SUCCESS;
    cx_op op = {.kind = CX_OP_SEND, .src = buf, .count = count, .type = t, .peer = peer};
    return add_op(s, &op);
}

int cx_sched_recv(cx_sched *s, void *buf, int count, MPI_Datatype t, int peer)
{
    if (cx_type_bytes(count, t) == 0)
        return MPI_SUCCESS;
    cx_op op = {.kind = CX_OP_RECV, .dst = buf, .count = count, .type = t, .peer = peer};
    return add_op(s, &op);
}

int cx_sched_copy(cx_sched *s, const void *src, int scount, MPI_Datatype st,
                  void *dst, int dcount, MPI_Datatype dt)
{
    if (cx_type_bytes(scount, st) == 0 || src == dst)
        return MPI_SUCCESS;
    cx_op op = {.kind = CX_OP_COPY, .src = src, .count = scount, .type = st,
                .dst = dst, .dcount = dcount, .dtype = dt};
    return add_op(s, &op);
}

int cx_sched_reduce(cx_sched *s, const void *in, void *inout, int count,
                    MPI_Datatype t, MPI_Op mop)
{
    if (count == 0)
        return MPI_SUCCESS;
    cx_op op = {.kind = CX_OP_REDUCE, .src = in, .dst = inout, .count = count,
                .type = t, .op = mop};
    return add_op(s, &op);
}

void *cx_sched_alloc(cx_sched *s, size_t bytes)
{
    if (grow((void **)&s->temps, &s->temps_cap, s->ntemps + 1, sizeof *s->temps))
        return NULL;
    void *p = malloc(bytes ? bytes : 1);
    if (p)
        s->temps[s->ntemps++] = p;
    return p;
}

void *cx_sched_alloc_typed(cx_sched *s, int count, MPI_Datatype t)
{
    MPI_Aint lb, extent, tlb, textent;
    PMPI_Type_get_extent(t, &lb, &extent);
    PMPI_Type_get_true_extent(t, &tlb, &textent);
    if (count == 0)
        return cx_sched_alloc(s, 1);
    MPI_Aint span = (MPI_Aint)(count - 1) * extent + textent;
    char *p = cx_sched_alloc(s, (size_t)span);
    return p ? p - tlb : NULL;
}

int cx_sched_own_type(cx_sched *s, MPI_Datatype t)
{
    int err = grow((void **)&s->types, &s->types_cap, s->ntypes + 1, sizeof *s->types);
    if (err)
        return err;
    s->types[s->ntypes++] = t;
    return PMPI_Type_commit(&s->types[s->ntypes - 1]);
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

/* Runs the local ops of round r and posts its communication. */
static int start_round(cx_sched *s, int r)
{
    if (s->before_round)
        s->before_round(s, r);
    int b = round_begin(s, r), e = round_stop(s, r), err = MPI_SUCCESS;
    s->nreqs = 0;
    err = grow((void **)&s->reqs, &s->reqs_cap, e - b, sizeof *s->reqs);
    if (err)
        return err;
    for (int i = b; i < e && !err; i++) {
        cx_op *op = &s->ops[i];
        if (op->kind == CX_OP_COPY)
            err = cx_copy(op->src, op->count, op->type, op->dst, op->dcount, op->dtype);
        else if (op->kind == CX_OP_REDUCE)
            err = PMPI_Reduce_local(op->src, op->dst, op->count, op->type, op->op);
    }
    /* Receives first, so an early sender finds them posted. */
    for (int i = b; i < e && !err; i++) {
        cx_op *op = &s->ops[i];
        if (op->kind == CX_OP_RECV)
            err = PMPI_Irecv(op->dst, op->count, op->type, op->peer, s->tag,
                             s->comm, &s->reqs[s->nreqs++]);
    }
    for (int i = b; i < e && !err; i++) {
        cx_op *op = &s->ops[i];
        if (op->kind == CX_OP_SEND)
            err = PMPI_Isend(op->src, op->count, op->type, op->peer, s->tag,
                             s->comm, &s->reqs[s->nreqs++]);
    }
    return err;
}

int cx_sched_start(cx_sched *s)
{
    if (s->started)
        return MPI_SUCCESS;   /* started early (PAP background), continue it */
    cx_sched_barrier(s);
    s->started = 1;
    s->cur = 0;
    s->nreqs = 0;
    if (s->nrounds == 0)
        return MPI_SUCCESS;
    return start_round(s, 0);
}

/* MPI_Waitall (flag == NULL) or MPI_Testall. A failed request makes them
 * return MPI_ERR_IN_STATUS, whose cause is only in the statuses; the user
 * never sees our requests, so return that cause instead. */
static int all_done(int n, MPI_Request *reqs, int *flag)
{
    MPI_Status stack[16], *st = n <= 16 ? stack : malloc((size_t)n * sizeof *st);
    int err = flag ? PMPI_Testall(n, reqs, flag, st ? st : MPI_STATUSES_IGNORE)
                   : PMPI_Waitall(n, reqs, st ? st : MPI_STATUSES_IGNORE);
    for (int i = 0; err == MPI_ERR_IN_STATUS && st && i < n; i++)
        if (st[i].MPI_ERROR != MPI_SUCCESS && st[i].MPI_ERROR != MPI_ERR_PENDING)
            err = st[i].MPI_ERROR;
    if (st != stack)
        free(st);
    return err;
}

int cx_sched_progress(cx_sched *s, int *done)
{
    int err = MPI_SUCCESS;
    *done = 0;
    while (s->cur < s->nrounds) {
        int flag = 1;
        if (s->nreqs) {
            err = all_done(s->nreqs, s->reqs, &flag);
            if (err || !flag)
                return err;
        }
        s->nreqs = 0;
        if (++s->cur < s->nrounds && (err = start_round(s, s->cur)))
            return err;
    }
    *done = 1;
    return err;
}

/* SMPI's MPI_Waitall is a loop of MPI_Waitany: O(n^2) simulator work for n
 * requests (a linear gather root at p=560 took 0.7 s of host time per call).
 * Waiting in order completes the same set in the same simulated time, O(n). */
static int wait_all(int n, MPI_Request *reqs)
{
#ifdef SMPI_H
    for (int i = 0; i < n; i++) {
        int err = PMPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
#else
    return all_done(n, reqs, NULL);
#endif
}

int cx_sched_finish(cx_sched *s)
{
    int err = MPI_SUCCESS;
    while (s->cur < s->nrounds) {
        if (s->nreqs && (err = wait_all(s->nreqs, s->reqs)))
            return err;
        s->nreqs = 0;
        if (++s->cur < s->nrounds && (err = start_round(s, s->cur)))
            return err;
    }
    return err;
}

int cx_sched_run(cx_sched *s)
{
    int err = cx_sched_start(s);
    return err ? err : cx_sched_finish(s);
}

void cx_sched_free(cx_sched *s)
{
    for (int i = 0; i < s->ntemps; i++)
        free(s->temps[i]);
    for (int i = 0; i < s->ntypes; i++)
        PMPI_Type_free(&s->types[i]);
    free(s->temps);
    free(s->types);
    free(s->ops);
    free(s->round_end);
    free(s->reqs);
    memset(s, 0, sizeof *s);
}
