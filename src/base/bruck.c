/* Bruck's alltoall (Bruck et al. 1997), for small blocks: ceil(log2 p)
 * rounds instead of p-1. Blocks are packed into a rotated work buffer
 * (slot i = the block for rank r+i); in round k every slot whose index has
 * bit k travels k ranks further (sent to r+k, received from r-k into the
 * same slots); at the end slot i holds the block from rank r-i. */
#include "base.h"

/* The slots of work whose index has bit k, as one type over work. */
static int slots_type(cx_sched *s, int p, int k, MPI_Aint bb, MPI_Datatype *t, int *n)
{
    int *lens = cx_sched_alloc(s, sizeof(int) * (size_t)p);
    MPI_Aint *disp = cx_sched_alloc(s, sizeof(MPI_Aint) * (size_t)p);
    if (!lens || !disp)
        return MPI_ERR_NO_MEM;
    *n = 0;
    for (int i = 1; i < p; i++)
        if (i & k) {
            lens[*n] = 1;
            disp[(*n)++] = i * bb;
        }
    MPI_Datatype block = MPI_DATATYPE_NULL;
    int err = PMPI_Type_contiguous((int)bb, MPI_BYTE, &block);
    if (!err)
        err = PMPI_Type_create_hindexed(*n, lens, disp, block, t);
    if (block != MPI_DATATYPE_NULL)
        PMPI_Type_free(&block);
    return err ? err : cx_sched_own_type(s, *t);
}

int cx_base_alltoall_bruck(const cx_args *a, cx_sched *s)
{
    int p = a->size, r = a->rank, err = MPI_SUCCESS;
    MPI_Aint bb = (MPI_Aint)cx_type_bytes(a->rcount, a->rtype);
    cx_piece *out;
    if (bb == 0 || bb > 0x7fffffff)
        return cx_base_alltoall_pairwise(a, s);   /* nothing to move / too big */
    char *work = cx_sched_alloc(s, (size_t)(p * bb)), *land = cx_sched_alloc(s, (size_t)(p * bb));
    if (!work || !land || (err = cx_alltoall_out_blocks(a, s, &out)))
        return work && land ? err : MPI_ERR_NO_MEM;
    for (int i = 0; i < p && !err; i++) {
        cx_piece o = out[(r + i) % p];
        err = cx_sched_copy(s, o.buf, o.count, o.type, work + i * bb, bb, MPI_PACKED);
    }
    for (int k = 1; k < p && !err; k <<= 1) {
        MPI_Datatype slots;
        int n;
        if ((err = slots_type(s, p, k, bb, &slots, &n)))
            return err;
        /* send the slots, land the incoming ones packed, move them in */
        if ((err = cx_sched_send(s, work, 1, slots, (r + k) % p)) ||
            (err = cx_sched_recv(s, land, n * bb, MPI_BYTE, (r - k + p) % p)) ||
            (err = cx_sched_barrier(s)))
            return err;
        err = cx_sched_copy(s, land, n * bb, MPI_BYTE, work, 1, slots);
    }
    for (int i = 0; i < p && !err; i++) {
        cx_piece in = cx_a2a_block(a, 0, (r - i + p) % p);
        err = cx_sched_copy(s, work + i * bb, bb, MPI_PACKED, in.buf, in.count, in.type);
    }
    return err;
}
