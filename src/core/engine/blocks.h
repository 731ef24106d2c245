/* Shared vocabulary of the algorithms: where rank i's block lives, the
 * caller's own contribution, the virtual-rank order and binomial trees. */
#ifndef CX_BLOCKS_H
#define CX_BLOCKS_H

#include "../util/util.h"
#include "dtype.h"
#include "sched.h"
#include "comm.h"

/* One typed piece of a buffer. */
typedef struct cx_piece {
    char *buf;
    MPI_Aint count;
    MPI_Datatype type;
} cx_piece;

/* Rank i's block in the buffer that holds all blocks: the root's receive
 * buffer (gather, gatherv), its send buffer (scatter, scatterv), or the
 * receive buffer of allgather(v). */
cx_piece cx_all_block(const cx_args *a, int i);
/* Blocks [first, first + n) as one piece (regular collectives, or v ones
 * whose blocks are back to back). */
cx_piece cx_all_range(const cx_args *a, int first, int n);
/* The caller's own piece: what it sends in gather/allgather, what it
 * receives in scatter. For allgather with MPI_IN_PLACE it is its block. */
cx_piece cx_own_piece(const cx_args *a);
/* True when the caller's own block is already in place (MPI_IN_PLACE). */
int cx_own_in_place(const cx_args *a);
/* Adds the copy between the caller's own piece and its block of the
 * all-blocks buffer (gather-like: own -> block; scatter-like: block ->
 * own), unless it is in place. */
int cx_sched_own_block(const cx_args *a, cx_sched *s);
/* Block i of the send (send = 1) or receive side of alltoall, alltoallv
 * or alltoallw: the three differ only in where block i lives. The send
 * side of an MPI_IN_PLACE call is the receive side. */
cx_piece cx_a2a_block(const cx_args *a, int send, int i);
/* Bytes of one block of a regular collective, from this rank's side. */
MPI_Count cx_block_bytes(const cx_args *a);

/* Virtual rank v -> rank, and back. Without an explicit order, the root
 * is virtual rank 0 and the others follow cyclically. */
int cx_rank_of(const cx_args *a, int v);
int cx_vrank_of(const cx_args *a, int rank);
/* True when virtual ranks [v, v+n) are consecutive ranks. */
int cx_vrange_contiguous(const cx_args *a, int v, int n);
/* The blocks of virtual ranks [v, v+n) (v + n <= p) of the all-blocks
 * buffer as one piece: cx_all_range when they are consecutive ranks back
 * to back in the buffer, else one element
 * of an hindexed type over them (owned by s). Sender and receiver build
 * the same block list, so the type signatures match. */
int cx_vrange_piece(const cx_args *a, cx_sched *s, int v, int n, cx_piece *out);
/* Sends (recv = 0) or receives (recv = 1) the blocks of virtual ranks
 * [v, v+n) to or from peer: one message, or, when the ranges are not
 * consecutive ranks and the blocks are large (CX_RUN_BYTES), one message
 * per run of consecutive ranks. The runs depend on the order and the
 * counts only, so sender and receiver post the same messages. */
int cx_sched_vrange(const cx_args *a, cx_sched *s, int v, int n, int peer, int recv);

/* Binomial tree on virtual ranks: the lowest set bit of v (p's next power
 * of two for v = 0) and the number of virtual ranks in v's subtree. */
int cx_binomial_span(int v, int p);
int cx_binomial_subtree(int v, int p);

#endif
