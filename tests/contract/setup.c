/* Builds the arguments and input buffers of one contract case for each
 * collective: block counts (with zero blocks for the v-collectives), block
 * placement (packed ascending, or reversed with gaps), MPI_IN_PLACE. */
#include <stdlib.h>
#include <string.h>
#include "cases.h"

#define GAP 3   /* elements between blocks in the gapped layout */

static unsigned seed_of(int rank, int block, int salt)
{
    return (unsigned)(rank * 7919 + block * 104729 + salt * 31);
}

/* Per-rank units for the v-collectives: zero blocks and uneven sizes. */
static int vcount(int n, int i, int salt)
{
    int k = (i * 5 + salt) % 4;
    return n == 0 || k == 0 ? 0 : n + k - 1;
}

/* Block counts (elements of a side with multiplier mul) and displacements
 * for the given units; returns the span in elements. */
static int plan(int p, const int *units, int mul, int layout, int *cnt, int *dsp)
{
    int d = 0;
    if (layout == LAYOUT_REV_GAPS) {
        d = GAP;
        for (int i = p - 1; i >= 0; i--) {
            cnt[i] = units[i] * mul;
            dsp[i] = d;
            d += cnt[i] + GAP;
        }
        return d;
    }
    for (int i = 0; i < p; i++) {
        cnt[i] = units[i] * mul;
        dsp[i] = d;
        d += cnt[i];
    }
    return d;
}

static char *at(const tbuf *b, int disp, const tside *t)
{
    return b->data + (MPI_Aint)disp * t->ext;
}

static void gather_like(call *c, const tcase *tc, int n, int salt, int *units)
{
    const tside *ss = send_side(tc, c->rank), *rs = recv_side(tc, c->rank);
    int p = c->size, me = c->rank, is_root = me == c->root;
    int allg = c->coll == C_ALLGATHER || c->coll == C_ALLGATHERV;
    c->stype = ss->type;
    c->scount = units[me] * ss->mul;
    tbuf_alloc(&c->sbuf, (size_t)c->scount * ss->ext, GAPFILL);
    fill_side(c->sbuf.data, units[me], ss, seed_of(me, 0, salt));
    c->rtype = rs->type;
    c->rcount = n * rs->mul;
    if (!(is_root || allg)) {
        tbuf_alloc(&c->rinit, 0, SENTINEL);
        return;
    }
    int span = plan(p, units, rs->mul, c->layout, c->rcounts, c->rdispls);
    tbuf_alloc(&c->rinit, (size_t)span * rs->ext, SENTINEL);
    if (c->in_place) {
        c->s_in_place = 1;
        fill_side(at(&c->rinit, c->rdispls[me], rs), units[me], rs, seed_of(me, 0, salt));
    }
}

static void scatter_like(call *c, const tcase *tc, int n, int salt, int *units)
{
    const tside *ss = send_side(tc, c->root), *rs = recv_side(tc, c->rank);
    int p = c->size, me = c->rank;
    c->stype = ss->type;
    c->scount = n * ss->mul;
    if (me == c->root) {
        int span = plan(p, units, ss->mul, c->layout, c->scounts, c->sdispls);
        tbuf_alloc(&c->sbuf, (size_t)span * ss->ext, GAPFILL);
        for (int i = 0; i < p; i++)
            fill_side(at(&c->sbuf, c->sdispls[i], ss), units[i], ss, seed_of(me, i, salt));
        c->r_in_place = c->in_place;
    } else {
        tbuf_alloc(&c->sbuf, 0, GAPFILL);
    }
    c->rtype = rs->type;
    c->rcount = units[me] * rs->mul;
    tbuf_alloc(&c->rinit, c->r_in_place ? 0 : (size_t)c->rcount * rs->ext, SENTINEL);
}

static void bcast(call *c, const tcase *tc, int n, int salt)
{
    int is_root = c->rank == c->root;
    const tside *t = is_root ? send_side(tc, c->rank) : recv_side(tc, c->rank);
    c->rtype = t->type;
    c->rcount = n * t->mul;
    tbuf_alloc(&c->sbuf, 0, GAPFILL);
    tbuf_alloc(&c->rinit, (size_t)c->rcount * t->ext, SENTINEL);
    if (is_root)
        fill_side(c->rinit.data, n, t, seed_of(c->root, 0, salt));
}

/* Units rank i sends to rank j; symmetric for MPI_IN_PLACE. */
static int a2a_units(const call *c, int n, int i, int j, int salt)
{
    return c->in_place ? vcount(n, i + j, salt) : vcount(n, i * c->size + j, salt);
}

static void alltoallv(call *c, const tcase *tc, int n, int salt, int *units)
{
    const tside *ss = send_side(tc, c->rank), *rs = recv_side(tc, c->rank);
    int p = c->size, me = c->rank;
    c->stype = ss->type;
    c->rtype = rs->type;
    for (int j = 0; j < p; j++)
        units[j] = a2a_units(c, n, me, j, salt);
    int span = plan(p, units, ss->mul, c->layout, c->scounts, c->sdispls);
    tbuf_alloc(&c->sbuf, (size_t)span * ss->ext, GAPFILL);
    for (int j = 0; j < p; j++)
        fill_side(at(&c->sbuf, c->sdispls[j], ss), units[j], ss, seed_of(me, j, salt));
    for (int i = 0; i < p; i++)
        units[i] = a2a_units(c, n, i, me, salt);
    span = plan(p, units, rs->mul, c->layout, c->rcounts, c->rdispls);
    tbuf_alloc(&c->rinit, (size_t)span * rs->ext, SENTINEL);
    if (c->in_place) {
        c->s_in_place = 1;
        for (int i = 0; i < p; i++)  /* what this rank sends to i */
            fill_side(at(&c->rinit, c->rdispls[i], rs), units[i], rs, seed_of(me, i, salt));
    }
}

static void reduce_scatter_block(call *c, const tcase *tc, int n, int salt)
{
    const tside *t = tc->same;
    int p = c->size;
    c->rtype = t->type;
    c->rcount = n;
    c->op = MPI_SUM;
    size_t block = (size_t)n * t->ext;
    c->rkeep = block;
    if (c->in_place) {
        c->s_in_place = 1;
        tbuf_alloc(&c->sbuf, 0, GAPFILL);
        tbuf_alloc(&c->rinit, block * p, SENTINEL);
        fill_side(c->rinit.data, n * p, t, seed_of(c->rank, 0, salt));
    } else {
        tbuf_alloc(&c->sbuf, block * p, GAPFILL);
        fill_side(c->sbuf.data, n * p, t, seed_of(c->rank, 0, salt));
        tbuf_alloc(&c->rinit, block, SENTINEL);
    }
}

void call_setup(call *c, const tcase *tc, int n)
{
    int p = c->size, salt = c->root + 3 * c->layout + n;
    int *units = malloc(sizeof(int) * (size_t)p);
    c->scounts = calloc((size_t)p, sizeof(int));
    c->sdispls = calloc((size_t)p, sizeof(int));
    c->rcounts = calloc((size_t)p, sizeof(int));
    c->rdispls = calloc((size_t)p, sizeof(int));
    if (!units || !c->scounts || !c->sdispls || !c->rcounts || !c->rdispls)
        MPI_Abort(MPI_COMM_WORLD, 3);
    int v = c->coll == C_GATHERV || c->coll == C_SCATTERV || c->coll == C_ALLGATHERV;
    for (int i = 0; i < p; i++)
        units[i] = v ? vcount(n, i, salt) : n;
    c->rkeep = (size_t)-1;
    switch (c->coll) {
    case C_GATHER: case C_GATHERV: case C_ALLGATHER: case C_ALLGATHERV:
        gather_like(c, tc, n, salt, units);
        break;
    case C_SCATTER: case C_SCATTERV:
        scatter_like(c, tc, n, salt, units);
        break;
    case C_BCAST:
        bcast(c, tc, n, salt);
        break;
    case C_ALLTOALLV:
        alltoallv(c, tc, n, salt, units);
        break;
    case C_REDUCE_SCATTER_BLOCK:
        reduce_scatter_block(c, tc, n, salt);
        break;
    }
    free(units);
    tbuf_alloc(&c->ssave, c->sbuf.bytes, 0);
    tbuf_copy(&c->ssave, &c->sbuf);
}

void call_free(call *c)
{
    tbuf_free(&c->sbuf);
    tbuf_free(&c->ssave);
    tbuf_free(&c->rinit);
    free(c->scounts);
    free(c->sdispls);
    free(c->rcounts);
    free(c->rdispls);
}
