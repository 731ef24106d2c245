/* The COLLX_STATS profile's message size of the v- and w-collectives
 * (src/core/stats/v_size.c): with equal counts, what collbench's -m is
 * for that collective on every rank (so the tuner can measure the
 * profile's class there); with uneven ones, each rank's view of the
 * counts it holds. */
#include "unit.h"
#include "mpi_seam.h"
#include "stats/stats.h"

#define P 4

static const int same[P] = {25, 25, 25, 25};   /* collbench -m 100: 25 ints */
static const int uneven[P] = {1, 2, 3, 4};     /* rank r: r + 1 (stats_app's gatherv) */

static long long size_at(cx_args a, int rank)
{
    return cx_v_msg_size(&a, rank, P);
}

/* Every rank, root or not, says collbench's -m 100 for equal counts. */
static void equal_counts(void)
{
    const MPI_Datatype ints[P] = {MPI_INT, MPI_INT, MPI_INT, MPI_INT};
    int sb[P * 25];
    cx_args v[] = {
        {.coll = CX_COLL_GATHERV, .sbuf = sb, .scount = 25, .stype = MPI_INT,
         .rcounts = same, .rtype = MPI_INT},
        {.coll = CX_COLL_SCATTERV, .sbuf = sb, .scounts = same, .stype = MPI_INT,
         .rcount = 25, .rtype = MPI_INT},
        {.coll = CX_COLL_ALLGATHERV, .sbuf = sb, .scount = 25, .stype = MPI_INT,
         .rcounts = same, .rtype = MPI_INT},
        {.coll = CX_COLL_ALLTOALLV, .sbuf = sb, .scounts = same, .stype = MPI_INT,
         .rcounts = same, .rtype = MPI_INT},
        {.coll = CX_COLL_ALLTOALLV, .sbuf = MPI_IN_PLACE, .rcounts = same, .rtype = MPI_INT},
        {.coll = CX_COLL_ALLTOALLW, .sbuf = sb, .scounts = same, .stypes = ints,
         .rcounts = same, .rtypes = ints},
        {.coll = CX_COLL_REDUCE_SCATTER, .sbuf = sb, .rcounts = same, .rtype = MPI_INT},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        for (int r = 0; r < P; r++)
            EXPECT(size_at(v[i], r) == 100, "%s (case %zu) at rank %d: %lld, want 100",
                   cx_coll_name(v[i].coll), i, r, size_at(v[i], r));
}

/* Uneven counts: the root of a gatherv/scatterv averages them, another
 * rank gives its own block; allgatherv and reduce_scatter average on
 * every rank (they have every count). */
static void uneven_counts(void)
{
    int sb[16];
    for (int r = 0; r < P; r++) {
        cx_args g = {.coll = CX_COLL_GATHERV, .sbuf = sb, .scount = uneven[r],
                     .stype = MPI_DOUBLE, .rcounts = r == 0 ? uneven : NULL,
                     .rtype = MPI_DOUBLE};
        EXPECT_INT(size_at(g, r), r == 0 ? 8 * 10 / P : 8 * (r + 1));
        cx_args s = {.coll = CX_COLL_SCATTERV, .root = 1, .sbuf = sb,
                     .scounts = r == 1 ? uneven : NULL, .stype = MPI_INT,
                     .rcount = uneven[r], .rtype = MPI_INT};
        EXPECT_INT(size_at(s, r), r == 1 ? 4 * 10 / P : 4 * (r + 1));
        cx_args ag = {.coll = CX_COLL_ALLGATHERV, .sbuf = sb, .scount = uneven[r],
                      .stype = MPI_INT, .rcounts = uneven, .rtype = MPI_INT};
        EXPECT_INT(size_at(ag, r), 4 * 10 / P);
        cx_args rs = {.coll = CX_COLL_REDUCE_SCATTER, .sbuf = sb, .rcounts = uneven,
                      .rtype = MPI_DOUBLE};
        EXPECT_INT(size_at(rs, r), 8 * 10 / P);
    }
}

/* alltoallv/w: the mean of what the rank sends and receives per peer;
 * w with a type per peer; negative counts as none. */
static void alltoall_sides(void)
{
    int sb[64];
    const int two[P] = {2, 2, 2, 2}, eight[P] = {8, 8, 8, 8}, bad[P] = {-5, 4, 4, 4};
    const MPI_Datatype dbl[P] = {MPI_DOUBLE, MPI_DOUBLE, MPI_DOUBLE, MPI_DOUBLE};
    const MPI_Datatype mix[P] = {MPI_BYTE, MPI_INT, MPI_DOUBLE, MPI_CHAR};
    cx_args v = {.coll = CX_COLL_ALLTOALLV, .sbuf = sb, .scounts = two, .stype = MPI_INT,
                 .rcounts = eight, .rtype = MPI_INT};
    EXPECT_INT(size_at(v, 0), (4 * 8 + 4 * 32) / (2 * P));   /* 8 B sent, 32 received */
    cx_args w = {.coll = CX_COLL_ALLTOALLW, .sbuf = sb, .scounts = two, .stypes = dbl,
                 .rcounts = eight, .rtypes = mix};
    EXPECT_INT(size_at(w, 2), (4 * 16 + (8 + 32 + 64 + 8)) / (2 * P));
    cx_args n = {.coll = CX_COLL_ALLTOALLV, .sbuf = MPI_IN_PLACE, .rcounts = bad,
                 .rtype = MPI_INT};
    EXPECT_INT(size_at(n, 1), 4 * 12 / P);
}

/* The sized collectives are not its business: 0 (the profile takes the
 * rules' msg_size for them). */
static void sized_ones(void)
{
    cx_args a = {.coll = CX_COLL_ALLREDUCE, .rcount = 8, .rtype = MPI_DOUBLE};
    EXPECT_INT(size_at(a, 0), 0);
}

int main(void)
{
    unit_begin("unit_v_size");
    unit_run("v_size.equal_counts", equal_counts, 0);
    unit_run("v_size.uneven_counts", uneven_counts, 0);
    unit_run("v_size.alltoall_sides", alltoall_sides, 0);
    unit_run("v_size.sized_ones", sized_ones, 0);
    return unit_end();
}
