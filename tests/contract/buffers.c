/* Guarded buffers of the contract test and the values written into them. */
#include <stdlib.h>
#include <string.h>
#include "contract.h"

void tbuf_alloc(tbuf *b, size_t data_bytes, int fill)
{
    b->bytes = data_bytes;
    b->base = malloc(data_bytes + 2 * GUARD);
    if (!b->base)
        MPI_Abort(MPI_COMM_WORLD, 3);
    memset(b->base, SENTINEL, GUARD);
    memset(b->base + GUARD, fill, data_bytes);
    memset(b->base + GUARD + data_bytes, SENTINEL, GUARD);
    b->data = b->base + GUARD;
}

void tbuf_free(tbuf *b)
{
    free(b->base);
    b->base = b->data = NULL;
}

void tbuf_copy(tbuf *dst, const tbuf *src)
{
    memcpy(dst->base, src->base, src->bytes + 2 * GUARD);
}

ptrdiff_t tbuf_diff(const tbuf *a, const tbuf *b, size_t *ndiff)
{
    size_t n = a->bytes + 2 * GUARD;
    ptrdiff_t first = PTRDIFF_MIN;
    *ndiff = 0;
    if (memcmp(a->base, b->base, n) == 0)
        return first;
    for (size_t i = 0; i < n; i++)
        if (a->base[i] != b->base[i]) {
            if (first == PTRDIFF_MIN)
                first = (ptrdiff_t)i - GUARD;
            ++*ndiff;
        }
    return first;
}

static int value(unsigned seed, size_t i, int vals)
{
    static const int prod[4] = {-2, -1, 1, 2};
    uint32_t h = seed * 2654435761u + (uint32_t)i * 40503u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    switch (vals) {
    case VALS_PROD:
        return prod[h & 3];
    case VALS_U16:
        return (int)(h & 0xffffu);
    default:   /* [-1000, 1000]: sums over a few ranks stay exact */
        return (int)(h % 2001u) - 1000;
    }
}

void fill_vals(char *p, int count, const tside *t, unsigned seed, int vals)
{
    for (int e = 0; e < count * t->mul; e++)
        for (int k = 0; k < t->nel; k++) {
            int v = value(seed, (size_t)e * t->nel + k, vals);
            char *at = p + (MPI_Aint)e * t->ext + t->off[k];
            if (t->kind[k] == 'i') {
                memcpy(at, &v, sizeof v);
            } else {
                double d = v;
                memcpy(at, &d, sizeof d);
            }
        }
}
