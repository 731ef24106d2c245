/* Builds the arguments and input buffers of one contract case: the shared
 * helpers, and the dispatch to each collective's setup_<coll> (generated
 * from collx_colls.h, so a new collective only needs its setup function). */
#include <stdlib.h>
#include <string.h>
#include "setup.h"

unsigned seed_of(int rank, int block, int salt)
{
    return (unsigned)(rank * 7919 + block * 104729 + salt * 31);
}

int vcount(int n, int i, int salt)
{
    int k = (i * 5 + salt) % 4;
    return n == 0 || k == 0 ? 0 : n + k - 1;
}

int plan(int p, const int *units, int mul, int layout, int *cnt, int *dsp)
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

char *at(const tbuf *b, MPI_Aint disp, const tside *t)
{
    return b->data + disp * t->ext;
}

static void *array(const call *c, size_t elem)
{
    void *a = calloc((size_t)c->size, elem);
    if (!a)
        MPI_Abort(MPI_COMM_WORLD, 3);
    return a;
}

int *ints(const call *c) { return array(c, sizeof(int)); }
MPI_Datatype *types(const call *c) { return array(c, sizeof(MPI_Datatype)); }

void setup_barrier(call *c, int n, int salt)
{
    (void)n;
    (void)salt;
    /* Nothing to move: the test checks that no rank leaves before the
     * late one (c->root) entered. */
    c->late = c->root;
}

static void (*const setups[C_NCOLL])(call *, int, int) = {
#define SETUP(E, N, l) [C_##E] = setup_##l,
    CX_COLLECTIVES(SETUP)
#undef SETUP
};

void call_setup(call *c, int n)
{
    int salt = c->root + 3 * c->layout + n + c->salt;
    c->rkeep = (size_t)-1;
    c->late = -1;
    c->stype = c->rtype = MPI_DATATYPE_NULL;
    c->op = MPI_OP_NULL;
    setups[c->coll](c, n, salt);
    if (!c->sdata.base)   /* no send input on this rank */
        tbuf_alloc(&c->sdata, 0, GAPFILL);
    if (!c->rinit.base)
        tbuf_alloc(&c->rinit, 0, SENTINEL);
    tbuf_alloc(&c->ssave, c->sdata.bytes, 0);
    tbuf_copy(&c->ssave, &c->sdata);
}

void call_free(call *c)
{
    call_forget_view(c);
    tbuf_free(&c->sdata);
    tbuf_free(&c->ssave);
    tbuf_free(&c->rinit);
    tbuf_free(&c->alt);
    free(c->scounts);
    free(c->sdispls);
    free(c->stypes);
    free(c->rcounts);
    free(c->rdispls);
    free(c->rtypes);
}
