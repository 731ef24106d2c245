/* Alltoall by exchanges posted a few at a time: rank r receives from r-i
 * and sends to r+i for i = 1..p-1 (the partners spread, so that no rank is
 * every rank's first), waiting for each batch before the next. The
 * algorithm's family_data is the batch (MVAPICH2's scatter-destination
 * throttle, 4; MPICH's "scattered" is the same with 32; Open MPI's linear
 * posts all p-1 at once). Batches keep a large communicator's network,
 * and a simulator's concurrent flows, at p * batch instead of p^2. */
#include <string.h>
#include "base.h"

int cx_base_alltoall_scattered(const cx_args *a, cx_sched *s)
{
    int p = a->size, r = a->rank, err;
    int batch = *(const int *)a->alg->family_data;
    cx_piece *out;
    if ((err = cx_alltoall_out_blocks(a, s, &out)))
        return err;
    if (a->sbuf != MPI_IN_PLACE) {
        cx_piece own = cx_a2a_block(a, 0, r);
        err = cx_sched_copy(s, out[r].buf, out[r].count, out[r].type, own.buf, own.count,
                            own.type);
    }
    for (int i = 1; i < p && !err; i++) {
        int to = (r + i) % p, from = (r - i + p) % p;
        cx_piece in = cx_a2a_block(a, 0, from);
        if (!(err = cx_sched_recv(s, in.buf, in.count, in.type, from)) &&
            !(err = cx_sched_send(s, out[to].buf, out[to].count, out[to].type, to)) &&
            (i % batch == 0 || i == p - 1))
            err = cx_sched_barrier(s);
    }
    return err;
}

/* Whether SMPI's own alltoall here posts every exchange at once at a size
 * SimGrid cannot carry (registry.c), so that native runs the scattered
 * exchange instead (what SMPI's own runs under its MPICH and Intel MPI
 * selectors at medium sizes): where SMPI follows Open MPI (its selector "ompi", or
 * "default", which is Open MPI's for alltoall), from 128 ranks, at the
 * block sizes where Open MPI 4.1's fixed decision (coll_tuned, as SimGrid
 * 3.32 has it) takes linear or linear_sync rather than modified Bruck
 * (small blocks) or pairwise (large). */
int cx_base_alltoall_smpi_throttles(const cx_args *a, const char *selector)
{
    static const struct {
        int below_ranks;
        MPI_Aint bruck_below, pairwise_from;   /* bytes per block; 0: never */
    } open_mpi[] = {{256, 1024, 262144}, {512, 1024, 32768}, {1024, 512, 262144},
                    {2048, 512, 0},      {4096, 1024, 0},    {0, 2048, 0}};
    if (a->size < 128 || (strcmp(selector, "ompi") && strcmp(selector, "default")))
        return 0;
    MPI_Aint block = (MPI_Aint)cx_type_bytes(a->sbuf == MPI_IN_PLACE ? a->rcount : a->scount,
                                             a->sbuf == MPI_IN_PLACE ? a->rtype : a->stype);
    int row = 0;
    while (open_mpi[row].below_ranks && a->size >= open_mpi[row].below_ranks)
        row++;
    return block >= open_mpi[row].bruck_below &&
           (!open_mpi[row].pairwise_from || block < open_mpi[row].pairwise_from);
}
