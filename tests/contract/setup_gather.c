/* Setup of the rooted data-movement collectives and the allgathers: block
 * counts (zero blocks for the v-collectives), block placement (packed
 * ascending, or reversed with gaps), MPI_IN_PLACE. */
#include <stdlib.h>
#include "setup.h"

/* units[i] = blocks of rank i: n, or uneven with zeros for v-collectives. */
static int *units_of(const call *c, int n, int salt, int v)
{
    int *u = ints(c);
    for (int i = 0; i < c->size; i++)
        u[i] = v ? vcount(n, i, salt) : n;
    return u;
}

static void gather_like(call *c, int n, int salt, int v, int all)
{
    const tside *ss = send_side(c->tc, c->rank), *rs = recv_side(c->tc, c->rank);
    int p = c->size, me = c->rank;
    int *units = units_of(c, n, salt, v);
    c->stype = ss->type;
    c->scount = units[me] * ss->mul;
    tbuf_alloc(&c->sdata, (size_t)c->scount * ss->ext, GAPFILL);
    fill_side(c->sdata.data, units[me], ss, seed_of(me, 0, salt));
    c->rtype = rs->type;
    c->rcount = n * rs->mul;
    c->rcounts = ints(c);
    c->rdispls = ints(c);
    if (me == c->root || all) {
        int span = plan(p, units, rs->mul, c->layout, c->rcounts, c->rdispls);
        tbuf_alloc(&c->rinit, (size_t)span * rs->ext, SENTINEL);
        if (c->in_place) {
            c->s_in_place = 1;
            fill_side(at(&c->rinit, c->rdispls[me], rs), units[me], rs,
                      seed_of(me, 0, salt));
        }
    }
    free(units);
}

static void scatter_like(call *c, int n, int salt, int v)
{
    const tside *ss = send_side(c->tc, c->root), *rs = recv_side(c->tc, c->rank);
    int p = c->size, me = c->rank;
    int *units = units_of(c, n, salt, v);
    c->stype = ss->type;
    c->scount = n * ss->mul;
    c->scounts = ints(c);
    c->sdispls = ints(c);
    if (me == c->root) {
        int span = plan(p, units, ss->mul, c->layout, c->scounts, c->sdispls);
        tbuf_alloc(&c->sdata, (size_t)span * ss->ext, GAPFILL);
        for (int i = 0; i < p; i++)
            fill_side(at(&c->sdata, c->sdispls[i], ss), units[i], ss,
                      seed_of(me, i, salt));
        c->r_in_place = c->in_place;
    }
    c->rtype = rs->type;
    c->rcount = units[me] * rs->mul;
    tbuf_alloc(&c->rinit, c->r_in_place ? 0 : (size_t)c->rcount * rs->ext, SENTINEL);
    free(units);
}

void setup_gather(call *c, int n, int salt) { gather_like(c, n, salt, 0, 0); }
void setup_gatherv(call *c, int n, int salt) { gather_like(c, n, salt, 1, 0); }
void setup_allgather(call *c, int n, int salt) { gather_like(c, n, salt, 0, 1); }
void setup_allgatherv(call *c, int n, int salt) { gather_like(c, n, salt, 1, 1); }
void setup_scatter(call *c, int n, int salt) { scatter_like(c, n, salt, 0); }
void setup_scatterv(call *c, int n, int salt) { scatter_like(c, n, salt, 1); }

void setup_bcast(call *c, int n, int salt)
{
    int is_root = c->rank == c->root;
    const tside *t = is_root ? send_side(c->tc, c->rank) : recv_side(c->tc, c->rank);
    c->rtype = t->type;
    c->rcount = n * t->mul;
    tbuf_alloc(&c->rinit, (size_t)c->rcount * t->ext, SENTINEL);
    if (is_root)
        fill_side(c->rinit.data, n, t, seed_of(c->root, 0, salt));
}
