/* The classic algorithms (the papers' baselines), each a schedule builder.
 * Shared builders are also used by other families (PAP sorts the ranks of
 * linear and binomial trees; hierarchical and topology-aware variants run
 * them on other orders). */
#ifndef CX_BASE_H
#define CX_BASE_H

#include "../core/select/select.h"

/* Rooted gather/scatter (and their v forms where noted). */
int cx_build_linear_rooted(const cx_args *a, cx_sched *s, int sequential);
int cx_build_binomial_rooted(const cx_args *a, cx_sched *s);
int cx_base_linear_seq(const cx_args *a, cx_sched *s);
int cx_base_linear_all(const cx_args *a, cx_sched *s);
int cx_base_linear_sync(const cx_args *a, cx_sched *s);
int cx_build_ring_allgather(const cx_args *a, cx_sched *s);

int cx_base_bcast_linear(const cx_args *a, cx_sched *s);
int cx_base_bcast_binomial(const cx_args *a, cx_sched *s);
int cx_base_bcast_scatter_allgather(const cx_args *a, cx_sched *s);
int cx_base_bcast_pipelined(const cx_args *a, cx_sched *s);
int cx_base_allgather_rdoubling(const cx_args *a, cx_sched *s);
int cx_base_allgather_bruck(const cx_args *a, cx_sched *s);
int cx_base_allgather_neighbor_exchange(const cx_args *a, cx_sched *s);
int cx_base_reduce_scatter_ring(const cx_args *a, cx_sched *s);
int cx_base_barrier_dissemination(const cx_args *a, cx_sched *s);
int cx_base_reduce_binomial(const cx_args *a, cx_sched *s);
int cx_base_allreduce_reduce_bcast(const cx_args *a, cx_sched *s);
int cx_base_allreduce_rdoubling(const cx_args *a, cx_sched *s);
int cx_base_allreduce_rdoubling_far(const cx_args *a, cx_sched *s);
int cx_base_allreduce_rabenseifner(const cx_args *a, cx_sched *s);
int cx_base_allreduce_rabenseifner_far(const cx_args *a, cx_sched *s);
int cx_base_alltoall_pairwise(const cx_args *a, cx_sched *s);
int cx_base_alltoall_bruck(const cx_args *a, cx_sched *s);
int cx_base_alltoall_scattered(const cx_args *a, cx_sched *s);
int cx_base_alltoall_smpi_throttles(const cx_args *a, const char *selector);
int cx_base_scan_rdoubling(const cx_args *a, cx_sched *s);
int cx_base_exscan_rdoubling(const cx_args *a, cx_sched *s);
int cx_base_scan_linear(const cx_args *a, cx_sched *s);
int cx_base_exscan_linear(const cx_args *a, cx_sched *s);

/* A broadcast's message as bytes (bytes.c): buf is the user's buffer when
 * its type is plain bytes, else a packed copy (the root's filled by open,
 * the others' unpacked by close, after the schedule's last receive). */
typedef struct cx_byte_message {
    char *buf;
    MPI_Aint bytes;
    int packed;
} cx_byte_message;
int cx_byte_message_open(const cx_args *a, cx_sched *s, int is_root, cx_byte_message *m);
int cx_byte_message_close(const cx_args *a, cx_sched *s, int is_root, const cx_byte_message *m);
/* Pieces i .. i+n-1 of the message cut into `of` byte pieces of (nearly)
 * equal size: bytes [bytes i / of, bytes (i + n) / of). */
cx_piece cx_byte_pieces(const cx_byte_message *m, int i, int n, int of);

/* Alltoall(v,w) block views: block i to receive; the blocks to send (the
 * send buffer's, or with MPI_IN_PLACE packed copies taken first). */
int cx_alltoall_out_blocks(const cx_args *a, cx_sched *s, cx_piece **out);

/* Reductions: whether op is commutative; the input (sbuf, or rbuf with
 * MPI_IN_PLACE). */
int cx_op_commutative(MPI_Op op);
const void *cx_reduce_input(const cx_args *a);

#endif
