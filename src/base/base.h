/* The classic algorithms (the papers' baselines), each a schedule builder.
 * Shared builders are also used by other families (PAP sorts the ranks of
 * linear and binomial trees; hierarchical and topology-aware variants run
 * them on other orders). */
#ifndef CX_BASE_H
#define CX_BASE_H

#include "../core/blocks.h"

/* Rooted gather/scatter (and their v forms where noted). */
int cx_build_linear_rooted(const cx_args *a, cx_sched *s, int sequential);
int cx_build_binomial_rooted(const cx_args *a, cx_sched *s);
int cx_base_linear_seq(const cx_args *a, cx_sched *s);
int cx_base_linear_all(const cx_args *a, cx_sched *s);
int cx_base_linear_sync(const cx_args *a, cx_sched *s);
int cx_build_ring_allgather(const cx_args *a, cx_sched *s);

int cx_base_bcast_linear(const cx_args *a, cx_sched *s);
int cx_base_bcast_binomial(const cx_args *a, cx_sched *s);
int cx_base_allgather_rdoubling(const cx_args *a, cx_sched *s);
int cx_base_alltoallv_pairwise(const cx_args *a, cx_sched *s);
int cx_base_reduce_scatter_ring(const cx_args *a, cx_sched *s);

#endif
