/* Collective calls with data that check themselves, for the robust tests:
 * one call of any collective with data (or barrier) on a communicator,
 * blocking or CX_I<coll> + CX_Wait/CX_Test, on an element type that may
 * be sparse, with a pattern computed from (salt, rank) and checked after
 * the call. Thread-safe: no state besides the types made once. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collx.h"
#include "robust.h"
#include "robust_calls.h"

/* Blocking, or nonblocking completed by CX_Wait (nb = 1) or by polling
 * CX_Test (nb = 2). */
#define CALL(N, n, ...)                                                        \
    (c->nb ? complete(c, CX_I##n(__VA_ARGS__, &c->req)) : CX_##N(__VA_ARGS__))

static int complete(call *c, int err)
{
    if (err != MPI_SUCCESS)
        return err;
    if (c->nb == 1)
        return CX_Wait(&c->req);
    for (int flag = 0; !flag;)
        if ((err = CX_Test(&c->req, &flag)) != MPI_SUCCESS)
            return err;
    return MPI_SUCCESS;
}


etype t_char, t_long, t_mib, t_span;

/* Sum of the int64 data of span elements (stride = the extent). */
static void span_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*dt, &lb, &ext);
    for (int e = 0; e < *len; e++) {
        const int64_t *a = (const int64_t *)((char *)in + e * ext);
        int64_t *b = (int64_t *)((char *)inout + e * ext);
        for (int k = 0; k < SPAN_LONGS; k++)
            b[k] += a[k];
    }
}

void rc_make_types(void)
{
    t_char = (etype){"char", MPI_CHAR, 1, 1, 0, MPI_OP_NULL};
    t_long = (etype){"long", MPI_LONG, 8, 8, 0, MPI_SUM};
    MPI_Datatype c, s;
    MPI_Type_contiguous((int)MIB, MPI_CHAR, &c);
    MPI_Type_commit(&c);
    t_mib = (etype){"1MiB", c, MIB, (size_t)MIB, 0, MPI_OP_NULL};
    MPI_Type_contiguous(SPAN_LONGS, MPI_INT64_T, &c);
    MPI_Type_create_resized(c, 0, MIB, &s);
    MPI_Type_free(&c);
    MPI_Type_commit(&s);
    MPI_Op op;
    MPI_Op_create(span_sum, 1, &op);
    t_span = (etype){"512B-in-1MiB", s, MIB, SPAN_LONGS * 8, 1, op};
}

/* Memory for count elements: pages of a sparse buffer that are never
 * written cost nothing (malloc maps large blocks lazily). */
void rc_free_types(void)
{
    MPI_Type_free(&t_mib.t);
    MPI_Type_free(&t_span.t);
    MPI_Op_free(&t_span.sum);
}

char *rc_alloc(const etype *e, MPI_Aint count)
{
    size_t n = (size_t)(count > 0 ? count : 1) * (size_t)e->ext;
    char *b = malloc(n);
    if (!b) {
        fprintf(stderr, "robust: cannot allocate %zu bytes\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return b;
}

/* ---- patterns: byte blocks ---- */
static uint64_t seed(int salt, int r) { return (uint64_t)salt << 20 | (uint64_t)r; }

static void fill(const etype *e, char *buf, MPI_Aint count, uint64_t sd)
{
    if (!e->sparse) {
        rb_fill(buf, (size_t)count * (size_t)e->ext, sd);
        return;
    }
    for (MPI_Aint i = 0; i < count; i++)
        rb_fill(buf + i * e->ext, e->data, sd * 1000003 + (uint64_t)i);
}

/* Offset of the first wrong byte, or -1. */
static long long check(const etype *e, const char *buf, MPI_Aint count, uint64_t sd)
{
    if (!e->sparse)
        return rb_check(buf, (size_t)count * (size_t)e->ext, sd);
    for (MPI_Aint i = 0; i < count; i++) {
        long long bad = rb_check(buf + i * e->ext, e->data, sd * 1000003 + (uint64_t)i);
        if (bad >= 0)
            return i * e->ext + bad;
    }
    return -1;
}

/* ---- patterns: int64 values for reductions ----
 * Rank r's value at data index i: (r+1)*1000003 + 7*i + salt, so a sum
 * over a set of ranks is A*1000003 + B*(7*i + salt) with A = sum (r+1),
 * B = how many ranks. Index i counts int64 data, from block `first`. */
static int64_t *at(const etype *e, char *buf, MPI_Aint i)
{
    MPI_Aint per = (MPI_Aint)(e->data / 8);
    return (int64_t *)(buf + (i / per) * e->ext) + i % per;
}

static void rfill(const etype *e, char *buf, MPI_Aint count, int r, int salt)
{
    MPI_Aint n = count * (MPI_Aint)(e->data / 8);
    for (MPI_Aint i = 0; i < n; i++)
        *at(e, buf, i) = (int64_t)(r + 1) * 1000003 + 7 * i + salt;
}

/* Checks count elements of buf against the sum over ranks lo..hi-1, for
 * data indices starting at `first` (elements). */
static long long rcheck(const etype *e, char *buf, MPI_Aint count, MPI_Aint first, int lo,
                        int hi, int salt)
{
    int64_t a = 0, b = hi - lo;
    for (int r = lo; r < hi; r++)
        a += r + 1;
    MPI_Aint per = (MPI_Aint)(e->data / 8), n = count * per;
    for (MPI_Aint i = 0; i < n; i++)
        if (*at(e, buf, i) != a * 1000003 + b * (7 * (i + first * per) + salt))
            return (long long)i;
    return -1;
}

/* Notes the first wrong offset: in `what` (of rank j when j >= 0). */
static void wrong(call *c, long long off, const char *what, int j)
{
    if (off >= 0 && c->bad < 0) {
        c->bad = off;
        if (j >= 0)
            snprintf(c->where, sizeof c->where, "%s %d", what, j);
        else
            snprintf(c->where, sizeof c->where, "%s", what);
    }
}

/* v-layouts: block j has counts[j] elements; blocks in reverse rank order
 * with one element of gap; returns the elements spanned. */
static MPI_Aint v_layout(int size, const int *counts, int *displs)
{
    MPI_Aint d = 0;
    for (int j = size - 1; j >= 0; j--) {
        displs[j] = (int)d;
        d += counts[j] + 1;
    }
    return d;
}

/* v-collectives: counts around c->count that sum to p * count (large
 * cases); small counts get a zero block (rank 1) instead. */
static int v_count(const call *c, int j)
{
    int n = (int)c->count, p = c->size;
    if (n >= 10 * (p - 1))
        return n + 20 * j - 10 * (p - 1);
    return j == 1 ? 0 : n + j;
}

static int run_rooted(call *c)
{
    int rank = c->rank, size = c->size;
    const etype *e = c->e;
    int p = size, root = c->root, err = MPI_SUCCESS, is_root = rank == root;
    int counts[64], displs[64];
    MPI_Aint n = c->count;
    const char *k = c->coll;
    if (!strcmp(k, "gather") || !strcmp(k, "scatter")) {
        char *one = rc_alloc(e, n), *all = is_root ? rc_alloc(e, n * p) : NULL;
        if (!strcmp(k, "gather")) {
            fill(e, one, n, seed(c->salt, rank));
            err = CALL(Gather, gather, one, (int)n, e->t, all, (int)n, e->t, root, c->comm);
            for (int j = 0; is_root && j < p; j++)
                wrong(c, check(e, all + j * n * e->ext, n, seed(c->salt, j)), "block of rank", j);
        } else {
            for (int j = 0; is_root && j < p; j++)
                fill(e, all + j * n * e->ext, n, seed(c->salt, j));
            err = CALL(Scatter, scatter, all, (int)n, e->t, one, (int)n, e->t, root, c->comm);
            wrong(c, check(e, one, n, seed(c->salt, rank)), "own block", -1);
        }
        free(one);
        free(all);
        return err;
    }
    /* gatherv / scatterv: counts differ per rank, reversed blocks. */
    for (int j = 0; j < p; j++)
        counts[j] = v_count(c, j);
    MPI_Aint span = v_layout(size, counts, displs), mine = counts[rank];
    char *one = rc_alloc(e, mine), *all = is_root ? rc_alloc(e, span) : NULL;
    if (!strcmp(k, "gatherv")) {
        fill(e, one, mine, seed(c->salt, rank));
        err = CALL(Gatherv, gatherv, one, (int)mine, e->t, all, counts, displs, e->t, root, c->comm);
        for (int j = 0; is_root && j < p; j++)
            wrong(c, check(e, all + displs[j] * e->ext, counts[j], seed(c->salt, j)),
                  "block of rank", j);
    } else {
        for (int j = 0; is_root && j < p; j++)
            fill(e, all + displs[j] * e->ext, counts[j], seed(c->salt, j));
        err = CALL(Scatterv, scatterv, all, counts, displs, e->t, one, (int)mine, e->t, root, c->comm);
        wrong(c, check(e, one, mine, seed(c->salt, rank)), "own block", -1);
    }
    free(one);
    free(all);
    return err;
}

static int run_all(call *c)
{
    int rank = c->rank, size = c->size;
    const etype *e = c->e;
    int p = size, err = MPI_SUCCESS, counts[64], displs[64];
    MPI_Aint n = c->count;
    const char *k = c->coll;
    if (!strcmp(k, "bcast")) {
        char *b = rc_alloc(e, n);
        if (rank == c->root)
            fill(e, b, n, seed(c->salt, c->root));
        err = CALL(Bcast, bcast, b, (int)n, e->t, c->root, c->comm);
        wrong(c, check(e, b, n, seed(c->salt, c->root)), "buffer", -1);
        free(b);
    } else if (!strcmp(k, "allgather")) {
        char *one = rc_alloc(e, n), *all = rc_alloc(e, n * p);
        fill(e, one, n, seed(c->salt, rank));
        err = CALL(Allgather, allgather, one, (int)n, e->t, all, (int)n, e->t, c->comm);
        for (int j = 0; j < p; j++)
            wrong(c, check(e, all + j * n * e->ext, n, seed(c->salt, j)), "block of rank", j);
        free(one);
        free(all);
    } else if (!strcmp(k, "allgatherv")) {
        for (int j = 0; j < p; j++)
            counts[j] = v_count(c, j);
        MPI_Aint span = v_layout(size, counts, displs);
        char *all = rc_alloc(e, span);   /* in place: own block already there */
        fill(e, all + displs[rank] * e->ext, counts[rank], seed(c->salt, rank));
        err = CALL(Allgatherv, allgatherv, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts,
                   displs, e->t, c->comm);
        for (int j = 0; j < p; j++)
            wrong(c, check(e, all + displs[j] * e->ext, counts[j], seed(c->salt, j)),
                  "block of rank", j);
        free(all);
    } else if (!strcmp(k, "alltoall")) {
        char *s = rc_alloc(e, n * p), *r = rc_alloc(e, n * p);
        for (int j = 0; j < p; j++)
            fill(e, s + j * n * e->ext, n, seed(c->salt, rank * 64 + j));
        err = CALL(Alltoall, alltoall, s, (int)n, e->t, r, (int)n, e->t, c->comm);
        for (int j = 0; j < p; j++)
            wrong(c, check(e, r + j * n * e->ext, n, seed(c->salt, j * 64 + rank)),
                  "block from rank", j);
        free(s);
        free(r);
    } else if (!strcmp(k, "alltoallv") || !strcmp(k, "alltoallw")) {
        /* Every rank sends n elements to rank 0 and n/8+j to the others:
         * rank 0 receives more than 2^31 bytes, the others little.
         * alltoallw: byte displacements (int), so the blocks are placed
         * (largest count + 4) elements apart, which keeps them below 2^31. */
        int w = !strcmp(k, "alltoallw");
        int sc[64], sd[64], rc[64], rd[64], sdb[64], rdb[64], most = 0;
        MPI_Datatype types[64];
        for (int j = 0; j < p; j++) {
            sc[j] = j == 0 ? (int)n : (int)(n / 8) + rank;
            rc[j] = rank == 0 ? (int)n : (int)(n / 8) + j;
            types[j] = e->t;
            most = sc[j] > most ? sc[j] : most;
            most = rc[j] > most ? rc[j] : most;
        }
        MPI_Aint ss, rs;
        if (w) {
            for (int j = 0; j < p; j++) {
                sd[j] = j * (most + 4);
                rd[j] = j * (most + 4);
                sdb[j] = (int)(sd[j] * e->ext);
                rdb[j] = (int)(rd[j] * e->ext);
            }
            ss = rs = (MPI_Aint)(p - 1) * (most + 4) + most;
        } else {
            ss = v_layout(size, sc, sd);
            rs = v_layout(size, rc, rd);
        }
        char *s = rc_alloc(e, ss), *r = rc_alloc(e, rs);
        for (int j = 0; j < p; j++)
            fill(e, s + sd[j] * e->ext, sc[j], seed(c->salt, rank * 64 + j));
        err = w ? CALL(Alltoallw, alltoallw, s, sc, sdb, types, r, rc, rdb, types, c->comm)
                : CALL(Alltoallv, alltoallv, s, sc, sd, e->t, r, rc, rd, e->t, c->comm);
        for (int j = 0; j < p; j++)
            wrong(c, check(e, r + rd[j] * e->ext, rc[j], seed(c->salt, j * 64 + rank)),
                  "block from rank", j);
        free(s);
        free(r);
    }
    return err;
}

static int run_reduction(call *c)
{
    int rank = c->rank, size = c->size;
    const etype *e = c->e;
    int p = size, err = MPI_SUCCESS, counts[64];
    MPI_Aint n = c->count;
    const char *k = c->coll;
    if (!strcmp(k, "reduce_scatter_block") || !strcmp(k, "reduce_scatter")) {
        /* In place: the input is p blocks in the receive buffer. */
        int v = !strcmp(k, "reduce_scatter");
        MPI_Aint total = 0, first = 0;
        for (int j = 0; j < p; j++) {
            counts[j] = v ? v_count(c, j) : (int)n;
            first += j < rank ? counts[j] : 0;
            total += counts[j];
        }
        char *b = rc_alloc(e, total);
        rfill(e, b, total, rank, c->salt);
        err = v ? CALL(Reduce_scatter, reduce_scatter, MPI_IN_PLACE, b, counts, e->t, e->sum, c->comm)
                : CALL(Reduce_scatter_block, reduce_scatter_block, MPI_IN_PLACE, b, (int)n, e->t, e->sum, c->comm);
        wrong(c, rcheck(e, b, counts[rank], first, 0, p, c->salt), "own block", -1);
        free(b);
        return err;
    }
    char *s = rc_alloc(e, n), *r = rc_alloc(e, n);
    rfill(e, s, n, rank, c->salt);
    if (!strcmp(k, "reduce")) {
        err = CALL(Reduce, reduce, s, r, (int)n, e->t, e->sum, c->root, c->comm);
        if (rank == c->root)
            wrong(c, rcheck(e, r, n, 0, 0, p, c->salt), "result", -1);
    } else if (!strcmp(k, "allreduce")) {
        err = CALL(Allreduce, allreduce, s, r, (int)n, e->t, e->sum, c->comm);
        wrong(c, rcheck(e, r, n, 0, 0, p, c->salt), "result", -1);
    } else if (!strcmp(k, "scan")) {
        err = CALL(Scan, scan, s, r, (int)n, e->t, e->sum, c->comm);
        wrong(c, rcheck(e, r, n, 0, 0, rank + 1, c->salt), "result", -1);
    } else if (!strcmp(k, "exscan")) {
        err = CALL(Exscan, exscan, s, r, (int)n, e->t, e->sum, c->comm);
        if (rank > 0)   /* rank 0's result is undefined */
            wrong(c, rcheck(e, r, n, 0, 0, rank, c->salt), "result", -1);
    }
    free(s);
    free(r);
    return err;
}

static int is_reduction(const char *k)
{
    return !strcmp(k, "reduce") || !strcmp(k, "allreduce") || !strcmp(k, "scan") ||
           !strcmp(k, "exscan") || !strncmp(k, "reduce_scatter", 14);
}

static int is_rooted_gs(const char *k)
{
    return !strcmp(k, "gather") || !strcmp(k, "scatter") || !strcmp(k, "gatherv") ||
           !strcmp(k, "scatterv");
}

int rc_run(call *c)
{
    MPI_Comm_rank(c->comm, &c->rank);
    MPI_Comm_size(c->comm, &c->size);
    c->bad = -1;
    c->where[0] = 0;
    c->req = CX_REQUEST_NULL;
    if (c->size > 64)
        return MPI_ERR_COMM;
    if (!strcmp(c->coll, "barrier"))
        return c->nb ? complete(c, CX_Ibarrier(c->comm, &c->req)) : CX_Barrier(c->comm);
    return is_reduction(c->coll) ? run_reduction(c)
           : is_rooted_gs(c->coll) ? run_rooted(c) : run_all(c);
}
