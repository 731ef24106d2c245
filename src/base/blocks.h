/* Shared vocabulary of the base algorithms: where rank i's block lives,
 * the caller's own contribution, and the virtual-rank order. */
#ifndef CX_BLOCKS_H
#define CX_BLOCKS_H

#include "../core/cx_internal.h"

/* One typed piece of a buffer. */
typedef struct cx_piece {
    char *buf;
    int count;
    MPI_Datatype type;
} cx_piece;

/* Rank i's block in the buffer that holds all blocks: the root's receive
 * buffer (gather, gatherv), its send buffer (scatter, scatterv), or the
 * receive buffer of allgather(v). */
cx_piece cx_all_block(const cx_args *a, int i);
/* The caller's own piece: what it sends in gather/allgather, what it
 * receives in scatter. For allgather with MPI_IN_PLACE it is its block. */
cx_piece cx_own_piece(const cx_args *a);
/* True when the caller's own block is already in place (MPI_IN_PLACE). */
int cx_own_in_place(const cx_args *a);

/* Virtual rank v -> rank, and back. Without an explicit order, the root
 * is virtual rank 0 and the others follow cyclically. */
int cx_rank_of(const cx_args *a, int v);
int cx_vrank_of(const cx_args *a, int rank);
/* True when virtual ranks [v, v+n) are consecutive ranks. */
int cx_vrange_contiguous(const cx_args *a, int v, int n);

/* Binomial tree on virtual ranks: the lowest set bit of v (p's next power
 * of two for v = 0) and the number of virtual ranks in v's subtree. */
int cx_binomial_span(int v, int p);
int cx_binomial_subtree(int v, int p);

/* Builders shared by several registered algorithms. */
int cx_build_linear_rooted(const cx_args *a, cx_sched *s, int sequential);
int cx_build_binomial_rooted(const cx_args *a, cx_sched *s);
int cx_build_ring_allgather(const cx_args *a, cx_sched *s);

/* Registered algorithms (register.c). */
int cx_base_linear_seq(const cx_args *a, cx_sched *s);
int cx_base_linear_all(const cx_args *a, cx_sched *s);
int cx_base_linear_sync(const cx_args *a, cx_sched *s);
int cx_base_bcast_linear(const cx_args *a, cx_sched *s);
int cx_base_bcast_binomial(const cx_args *a, cx_sched *s);
int cx_base_allgather_rdoubling(const cx_args *a, cx_sched *s);
int cx_base_alltoallv_pairwise(const cx_args *a, cx_sched *s);
int cx_base_reduce_scatter_ring(const cx_args *a, cx_sched *s);

#endif
