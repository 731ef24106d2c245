/* Setup of the reductions: input of n_in elements of the case's datatype
 * (values that any legal order combines to the same bits), output of n_out
 * elements, MPI_IN_PLACE (input taken from the receive buffer). */
#include <string.h>
#include "setup.h"

/* ip: this rank passes MPI_IN_PLACE. The receive buffer has
 * max(n_in, n_out) elements in place, else n_out. In place, the input also
 * goes to c->alt (see cases.h). */
static void reduction(call *c, int n_in, int n_out, int ip, int salt)
{
    const tside *t = c->rc->side;
    unsigned seed = seed_of(c->rank, 0, salt);
    c->rtype = t->type;
    c->op = c->rc->op;
    size_t in = (size_t)n_in * (size_t)t->ext, out = (size_t)n_out * (size_t)t->ext;
    if (ip) {
        c->s_in_place = 1;
        tbuf_alloc(&c->rinit, in > out ? in : out, SENTINEL);
        fill_vals(c->rinit.data, n_in, t, seed, c->rc->vals);
        c->rkeep = out;   /* the input beyond the result is undefined after */
        tbuf_alloc(&c->alt, c->rinit.bytes, GAPFILL);
        memcpy(c->alt.data, c->rinit.data, c->rinit.bytes);
    } else {
        tbuf_alloc(&c->sdata, in, GAPFILL);
        fill_vals(c->sdata.data, n_in, t, seed, c->rc->vals);
        tbuf_alloc(&c->rinit, out, SENTINEL);
    }
}

/* Non-roots' recvbuf is not significant: it must stay untouched. */
void setup_reduce(call *c, int n, int salt)
{
    c->rcount = n;
    reduction(c, n, n, c->in_place && c->rank == c->root, salt);
}

void setup_allreduce(call *c, int n, int salt)
{
    c->rcount = n;
    reduction(c, n, n, c->in_place, salt);
}

void setup_scan(call *c, int n, int salt) { setup_allreduce(c, n, salt); }

/* Rank 0's recvbuf is undefined after an exscan. */
void setup_exscan(call *c, int n, int salt)
{
    setup_allreduce(c, n, salt);
    if (c->rank == 0)
        c->rkeep = 0;
}

void setup_reduce_scatter_block(call *c, int n, int salt)
{
    c->rcount = n;
    reduction(c, n * c->size, n, c->in_place, salt);
}

/* Uneven blocks with zeros, the same on every rank. */
void setup_reduce_scatter(call *c, int n, int salt)
{
    int total = 0;
    c->rcounts = ints(c);
    for (int i = 0; i < c->size; i++)
        total += c->rcounts[i] = vcount(n, i, salt);
    reduction(c, total, c->rcounts[c->rank], c->in_place, salt);
}
