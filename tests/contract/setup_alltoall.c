/* Setup of the all-to-all collectives: uneven blocks with zeros (v and w),
 * packed ascending or reversed with gaps, a different datatype case for
 * every pair of ranks (w), MPI_IN_PLACE (symmetric blocks). */
#include <stdlib.h>
#include <string.h>
#include "setup.h"

/* Units rank i sends to rank j; symmetric for MPI_IN_PLACE. */
static int a2a_units(const call *c, int n, int i, int j, int salt)
{
    return c->in_place ? vcount(n, i + j, salt) : vcount(n, i * c->size + j, salt);
}

void setup_alltoall(call *c, int n, int salt)
{
    const tside *ss = send_side(c->tc, c->rank), *rs = recv_side(c->tc, c->rank);
    int p = c->size, me = c->rank;
    c->stype = ss->type;
    c->scount = n * ss->mul;
    c->rtype = rs->type;
    c->rcount = n * rs->mul;
    MPI_Aint sblock = (MPI_Aint)n * ss->mul, rblock = (MPI_Aint)n * rs->mul;
    tbuf_alloc(&c->rinit, (size_t)(rblock * p * rs->ext), SENTINEL);
    if (c->in_place) {   /* block j of recvbuf goes to rank j */
        c->s_in_place = 1;
        for (int j = 0; j < p; j++)
            fill_side(at(&c->rinit, j * rblock, rs), n, rs, seed_of(me, j, salt));
        return;
    }
    tbuf_alloc(&c->sdata, (size_t)(sblock * p * ss->ext), GAPFILL);
    for (int j = 0; j < p; j++)
        fill_side(at(&c->sdata, j * sblock, ss), n, ss, seed_of(me, j, salt));
}

void setup_alltoallv(call *c, int n, int salt)
{
    const tside *ss = send_side(c->tc, c->rank), *rs = recv_side(c->tc, c->rank);
    int p = c->size, me = c->rank, *units = ints(c);
    c->stype = ss->type;
    c->rtype = rs->type;
    c->scounts = ints(c);
    c->sdispls = ints(c);
    c->rcounts = ints(c);
    c->rdispls = ints(c);
    for (int j = 0; j < p; j++)
        units[j] = a2a_units(c, n, me, j, salt);
    int span = plan(p, units, ss->mul, c->layout, c->scounts, c->sdispls);
    tbuf_alloc(&c->sdata, (size_t)span * ss->ext, GAPFILL);
    for (int j = 0; j < p; j++)
        fill_side(at(&c->sdata, c->sdispls[j], ss), units[j], ss, seed_of(me, j, salt));
    for (int i = 0; i < p; i++)
        units[i] = a2a_units(c, n, i, me, salt);
    span = plan(p, units, rs->mul, c->layout, c->rcounts, c->rdispls);
    tbuf_alloc(&c->rinit, (size_t)span * rs->ext, SENTINEL);
    if (c->in_place) {
        c->s_in_place = 1;
        for (int i = 0; i < p; i++)  /* what this rank sends to i */
            fill_side(at(&c->rinit, c->rdispls[i], rs), units[i], rs, seed_of(me, i, salt));
    }
    free(units);
}

/* Datatype case of the block rank i sends to rank j: the pairs cycle
 * through all cases from c->tci on (symmetric for MPI_IN_PLACE). */
static const tcase *w_case(const call *c, int i, int j)
{
    int nt = tcase_count();
    int k = (c->tci + i + (c->in_place ? 1 : 2) * j) % nt;
    if (!c->struct_ok && strcmp(tcase_get(k)->name, "struct") == 0)
        k = (k + 1) % nt;
    return tcase_get(k);
}

/* Byte displacements of blocks of the given sizes: packed ascending, or
 * reversed with gaps (8-byte aligned); returns the span. */
static size_t wplan(int p, const size_t *bytes, int layout, int *dsp)
{
    int rev = layout == LAYOUT_REV_GAPS;
    size_t d = rev ? 8 * GAP : 0;
    for (int k = 0; k < p; k++) {
        int i = rev ? p - 1 - k : k;
        dsp[i] = (int)d;
        d += rev ? (bytes[i] + 7) / 8 * 8 + 8 * GAP : bytes[i];
    }
    return d;
}

/* One side of alltoallw: block i exchanged with rank i. */
static void w_side(const call *c, int n, int salt, int send, int *cnt, int *dsp,
                   MPI_Datatype *typ, tbuf *b, int fill)
{
    int p = c->size, me = c->rank;
    size_t bytes[p];
    const tside *side[p];
    int units[p];
    for (int i = 0; i < p; i++) {
        side[i] = send ? send_side(w_case(c, me, i), me) : recv_side(w_case(c, i, me), me);
        units[i] = send ? a2a_units(c, n, me, i, salt) : a2a_units(c, n, i, me, salt);
        cnt[i] = units[i] * side[i]->mul;
        typ[i] = side[i]->type;
        bytes[i] = (size_t)cnt[i] * (size_t)side[i]->ext;
    }
    tbuf_alloc(b, wplan(p, bytes, c->layout, dsp), send ? GAPFILL : SENTINEL);
    if (fill)   /* what this rank sends to i */
        for (int i = 0; i < p; i++)
            fill_side(b->data + dsp[i], units[i], side[i], seed_of(me, i, salt));
}

void setup_alltoallw(call *c, int n, int salt)
{
    c->scounts = ints(c);
    c->sdispls = ints(c);
    c->stypes = types(c);
    c->rcounts = ints(c);
    c->rdispls = ints(c);
    c->rtypes = types(c);
    if (c->in_place) {   /* send arguments are ignored */
        c->s_in_place = 1;
        for (int i = 0; i < c->size; i++)
            c->stypes[i] = MPI_DATATYPE_NULL;
        w_side(c, n, salt, 0, c->rcounts, c->rdispls, c->rtypes, &c->rinit, 1);
        return;
    }
    w_side(c, n, salt, 1, c->scounts, c->sdispls, c->stypes, &c->sdata, 1);
    w_side(c, n, salt, 0, c->rcounts, c->rdispls, c->rtypes, &c->rinit, 0);
}
