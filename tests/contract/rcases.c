/* Reduction cases: predefined operations on predefined and derived types,
 * and two user-defined operations, a commutative one and a non-commutative
 * one (2x2 matrix product) that catches any algorithm combining the ranks'
 * contributions out of order. */
#include <string.h>
#include "contract.h"

static MPI_Op op_comm, op_noncomm;
static long misuse;

/* Element k of element e of side t at p, as an unsigned 16-bit value. */
static uint32_t get(const char *p, const tside *t, int e, int k)
{
    int v;
    memcpy(&v, p + (MPI_Aint)e * t->ext + t->off[k], sizeof v);
    return (uint32_t)v & 0xffffu;
}

static void put(char *p, const tside *t, int e, int k, uint32_t v)
{
    int w = (int)(v & 0xffffu);
    memcpy(p + (MPI_Aint)e * t->ext + t->off[k], &w, sizeof w);
}

/* MPI hands the user function the datatype of the call: the side tells
 * where the ints are (an absolute type's at the pointers plus its
 * address: *in and *inout are moved there). Anything else is counted as
 * misuse. */
static const tside *side_for(const MPI_Datatype *dt, int need_nel, void **in, void **inout)
{
    MPI_Aint shift;
    const tside *t = side_of_type(*dt, &shift);
    if (!t || t->nel < need_nel || t->kind[0] != 'i') {
        misuse++;
        return NULL;
    }
    *in = (char *)*in + shift;
    *inout = (char *)*inout + shift;
    return t;
}

/* x o y = x + y + xy (mod 2^16) = (x+1)(y+1) - 1: commutative, associative. */
static void comm_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const tside *t = side_for(dt, 1, &in, &inout);
    if (!t)
        return;
    for (int e = 0; e < *len; e++)
        for (int k = 0; k < t->nel; k++) {
            uint32_t x = get(in, t, e, k), y = get(inout, t, e, k);
            put(inout, t, e, k, x + y + x * y);
        }
}

/* inout = in x inout, 2x2 matrices (a b; c d) mod 2^16: MPI applies the
 * operation in rank order, so the result is rank 0's matrix x ... x the
 * last rank's. */
static void mat_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const tside *t = side_for(dt, 4, &in, &inout);
    if (!t)
        return;
    for (int e = 0; e < *len; e++) {
        uint32_t a = get(in, t, e, 0), b = get(in, t, e, 1), c = get(in, t, e, 2),
                 d = get(in, t, e, 3);
        uint32_t w = get(inout, t, e, 0), x = get(inout, t, e, 1),
                 y = get(inout, t, e, 2), z = get(inout, t, e, 3);
        put(inout, t, e, 0, a * w + b * y);
        put(inout, t, e, 1, a * x + b * z);
        put(inout, t, e, 2, c * w + d * y);
        put(inout, t, e, 3, c * x + d * z);
    }
}

static rcase cases[] = {
    {"int+sum", NULL, MPI_OP_NULL, VALS_WIDE, 1, 0},
    {"double+sum", NULL, MPI_OP_NULL, VALS_WIDE, 0, 0},
    {"int+max", NULL, MPI_OP_NULL, VALS_WIDE, 0, 0},
    {"double+min", NULL, MPI_OP_NULL, VALS_WIDE, 0, 0},
    {"int+prod", NULL, MPI_OP_NULL, VALS_PROD, 0, 0},
    {"vector+sum", NULL, MPI_OP_NULL, VALS_WIDE, 0, 0},   /* where the MPI can */
    {"vector+user", NULL, MPI_OP_NULL, VALS_U16, 0, 0},
    {"mat+noncomm", NULL, MPI_OP_NULL, VALS_U16, 1, 0},
    {"matgap+noncomm", NULL, MPI_OP_NULL, VALS_U16, 0, 0},
    {"bottom+noncomm", NULL, MPI_OP_NULL, VALS_U16, 1, 1},   /* matgap at MPI_BOTTOM */
};

void rcases_init(void)
{
    MPI_Op_create(comm_fn, 1, &op_comm);
    MPI_Op_create(mat_fn, 0, &op_noncomm);
    const char *side[] = {"int", "double", "int", "double", "int",
                          "vector", "vector", "mat", "matgap", "matgap"};
    MPI_Op op[] = {MPI_SUM, MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD,
                   MPI_SUM, op_comm, op_noncomm, op_noncomm, op_noncomm};
    for (int i = 0; i < rcase_count(); i++) {
        cases[i].side = side_named(side[i]);
        cases[i].op = op[i];
    }
}

void rcases_free(void)
{
    MPI_Op_free(&op_comm);
    MPI_Op_free(&op_noncomm);
}

int rcase_count(void) { return (int)(sizeof cases / sizeof *cases); }
const rcase *rcase_get(int i) { return &cases[i]; }

long user_op_misuse(void)
{
    long m = misuse;
    misuse = 0;
    return m;
}
