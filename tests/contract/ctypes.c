/* Datatype cases of the contract test and guarded buffers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "contract.h"

/* Derived types built at start-up (the tside tables point at them). */
static MPI_Datatype t_vec, t_struct, t_contig2;

static tside s_int = {"int", MPI_INT, 1, 1, {0}, {'i'}, 4};
static tside s_dbl = {"double", MPI_DOUBLE, 1, 1, {0}, {'d'}, 8};
/* vector(2,1,3,int) resized to 5 ints: holes inside and after each element. */
static tside s_vec = {"vector", MPI_DATATYPE_NULL, 1, 2, {0, 12}, {'i', 'i'}, 20};
/* struct {int; (gap) double;} resized to 24 bytes: a gap and a tail. */
static tside s_struct = {"struct", MPI_DATATYPE_NULL, 1, 2, {0, 8}, {'i', 'd'}, 24};
/* Same signature as 2 ints: 2n MPI_INT or n contiguous(2, MPI_INT). */
static tside s_int2 = {"2xint", MPI_INT, 2, 1, {0}, {'i'}, 4};
static tside s_contig2 = {"contig2", MPI_DATATYPE_NULL, 1, 2, {0, 4}, {'i', 'i'}, 8};

static const tcase cases[] = {
    {"int", 1, 0, &s_int},
    {"double", 1, 0, &s_dbl},
    {"vector", 1, 0, &s_vec},
    {"struct", 0, 0, &s_struct},
    {"mixed", 0, 1, NULL},
    {"mixed-rank", 0, 2, NULL},
};

void types_init(void)
{
    MPI_Datatype v, st;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype tt[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_vector(2, 1, 3, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 20, &t_vec);
    MPI_Type_free(&v);
    MPI_Type_create_struct(2, bl, disp, tt, &st);
    MPI_Type_create_resized(st, 0, 24, &t_struct);
    MPI_Type_free(&st);
    MPI_Type_contiguous(2, MPI_INT, &t_contig2);
    MPI_Type_commit(&t_vec);
    MPI_Type_commit(&t_struct);
    MPI_Type_commit(&t_contig2);
    s_vec.type = t_vec;
    s_struct.type = t_struct;
    s_contig2.type = t_contig2;
}

void types_free(void)
{
    MPI_Type_free(&t_vec);
    MPI_Type_free(&t_struct);
    MPI_Type_free(&t_contig2);
}

int tcase_count(void) { return (int)(sizeof cases / sizeof *cases); }
const tcase *tcase_get(int i) { return &cases[i]; }

/* Mixed: every sender uses 2n MPI_INT, every receiver n strided vectors.
 * Mixed-rank: senders alternate 2n MPI_INT / n contiguous(2), receivers use
 * the strided vector except every third rank, which takes 2n MPI_INT. */
const tside *send_side(const tcase *tc, int r)
{
    if (!tc->mixed)
        return tc->same;
    return tc->mixed == 2 && r % 2 ? &s_contig2 : &s_int2;
}

const tside *recv_side(const tcase *tc, int r)
{
    if (!tc->mixed)
        return tc->same;
    return tc->mixed == 2 && r % 3 == 2 ? &s_int2 : &s_vec;
}

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

/* Integer values in [-1000, 1000]: sums over a few ranks stay exact. */
static int value(unsigned seed, size_t i)
{
    uint32_t h = seed * 2654435761u + (uint32_t)i * 40503u;
    h ^= h >> 13;
    return (int)(h % 2001u) - 1000;
}

void fill_side(char *p, int count, const tside *t, unsigned seed)
{
    for (int e = 0; e < count * t->mul; e++)
        for (int k = 0; k < t->nel; k++) {
            int v = value(seed, (size_t)e * t->nel + k);
            char *at = p + (MPI_Aint)e * t->ext + t->off[k];
            if (t->kind[k] == 'i') {
                memcpy(at, &v, sizeof v);
            } else {
                double d = v;
                memcpy(at, &d, sizeof d);
            }
        }
}
