/* Datatype cases of the contract test: the sides every collective uses. */
#include <string.h>
#include "contract.h"
#include "../common/absolute.h"

/* Derived types built at start-up (the tside tables point at them). */
static MPI_Datatype t_vec, t_struct, t_contig2, t_mat, t_matgap;

static tside s_int = {"int", MPI_INT, 1, 1, {0}, {'i'}, 4};
static tside s_dbl = {"double", MPI_DOUBLE, 1, 1, {0}, {'d'}, 8};
/* vector(2,1,3,int) resized to 5 ints: holes inside and after each element. */
static tside s_vec = {"vector", MPI_DATATYPE_NULL, 1, 2, {0, 12}, {'i', 'i'}, 20};
/* struct {int; (gap) double;} resized to 24 bytes: a gap and a tail. */
static tside s_struct = {"struct", MPI_DATATYPE_NULL, 1, 2, {0, 8}, {'i', 'd'}, 24};
/* Same signature as 2 ints: 2n MPI_INT or n contiguous(2, MPI_INT). */
static tside s_int2 = {"2xint", MPI_INT, 2, 1, {0}, {'i'}, 4};
static tside s_contig2 = {"contig2", MPI_DATATYPE_NULL, 1, 2, {0, 4}, {'i', 'i'}, 8};
/* 2x2 matrices of the non-commutative operation: contiguous(4, int), and
 * vector(2,2,3,int) resized to 6 ints (holes after each row pair). */
static tside s_mat = {"mat", MPI_DATATYPE_NULL, 1, 4, {0, 4, 8, 12},
                      {'i', 'i', 'i', 'i'}, 16};
static tside s_matgap = {"matgap", MPI_DATATYPE_NULL, 1, 4, {0, 4, 12, 16},
                         {'i', 'i', 'i', 'i'}, 24};

static const tside *const all_sides[] = {&s_int, &s_dbl, &s_vec, &s_struct,
                                         &s_contig2, &s_mat, &s_matgap};

static const tcase cases[] = {
    {"int", 0, &s_int, 0},
    {"double", 0, &s_dbl, 0},
    {"vector", 0, &s_vec, 0},
    {"struct", 0, &s_struct, 0},
    {"mixed", 1, NULL, 0},
    {"mixed-rank", 2, NULL, 0},
    {"bottom", 1, NULL, 1},   /* mixed at MPI_BOTTOM (allgatherv takes it) */
};

static void resized(MPI_Datatype in, MPI_Aint ext, MPI_Datatype *out)
{
    MPI_Type_create_resized(in, 0, ext, out);
    MPI_Type_free(&in);
    MPI_Type_commit(out);
}

void types_init(void)
{
    MPI_Datatype v, st, m;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype tt[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_vector(2, 1, 3, MPI_INT, &v);
    resized(v, 20, &t_vec);
    MPI_Type_create_struct(2, bl, disp, tt, &st);
    resized(st, 24, &t_struct);
    MPI_Type_vector(2, 2, 3, MPI_INT, &m);
    resized(m, 24, &t_matgap);
    MPI_Type_contiguous(2, MPI_INT, &t_contig2);
    MPI_Type_commit(&t_contig2);
    MPI_Type_contiguous(4, MPI_INT, &t_mat);
    MPI_Type_commit(&t_mat);
    s_vec.type = t_vec;
    s_struct.type = t_struct;
    s_contig2.type = t_contig2;
    s_mat.type = t_mat;
    s_matgap.type = t_matgap;
}

void types_free(void)
{
    MPI_Type_free(&t_vec);
    MPI_Type_free(&t_struct);
    MPI_Type_free(&t_contig2);
    MPI_Type_free(&t_mat);
    MPI_Type_free(&t_matgap);
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

/* Absolute types of the call being run, with the type they move. */
#define MAX_ABSOLUTE 1024
static struct absolute {
    MPI_Datatype type, of;
    MPI_Aint at;
} absolute[MAX_ABSOLUTE];
static int nabsolute;

MPI_Datatype absolute_type(MPI_Datatype t, const void *at)
{
    MPI_Aint addr;
    if (t == MPI_DATATYPE_NULL || nabsolute == MAX_ABSOLUTE)
        return t;
    MPI_Get_address(at, &addr);
    MPI_Datatype out = absolute_at(t, at);
    absolute[nabsolute++] = (struct absolute){out, t, addr};
    return out;
}

int absolute_mark(void) { return nabsolute; }

void absolute_release(int mark)
{
    while (nabsolute > mark)
        MPI_Type_free(&absolute[--nabsolute].type);
}

const tside *side_of_type(MPI_Datatype t, MPI_Aint *shift)
{
    *shift = 0;
    for (int i = 0; i < nabsolute; i++)
        if (absolute[i].type == t) {
            *shift = absolute[i].at;
            t = absolute[i].of;
            break;
        }
    for (size_t i = 0; i < sizeof all_sides / sizeof *all_sides; i++)
        if (all_sides[i]->type == t)
            return all_sides[i];
    return NULL;
}

const tside *side_named(const char *name)
{
    for (size_t i = 0; i < sizeof all_sides / sizeof *all_sides; i++)
        if (strcmp(all_sides[i]->name, name) == 0)
            return all_sides[i];
    return NULL;
}
