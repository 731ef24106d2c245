/* LL ("low latency") protocol of the drop-in one-sided MPI_Bcast, for
 * small messages: the data carries its own flags, so a hop is one RMA
 * operation instead of the paper's data put, flush, flag, flush.
 *
 * The message is cut into 16-byte elements (MPI_C_DOUBLE_COMPLEX, a
 * predefined type, so every element of an MPI_Accumulate is applied
 * atomically): 15 bytes of data and a flag byte (never 0) that tells the
 * broadcast apart from the slot's 254 previous ones. A receiver reads its
 * slot with MPI_Get_accumulate(MPI_NO_OP) on itself (atomic per element
 * too) until every element has its flag: data and flag cannot be seen
 * apart, whatever order the MPI applies the elements in. Each rank zeroes
 * its slots every 4096 broadcasts (ll.c), so no element an older, longer
 * broadcast left behind is old enough to carry the same flag. Element 0
 * is a header (the root's size).
 *
 * Every rank has SLOTS slots (ll.c); broadcast n (counted alike on every
 * rank: MPI_Bcast calls come in collective order) goes to slot n mod
 * SLOTS. A writer may overwrite a slot only once its owner has read
 * the broadcast that used it before: owners publish how far they got
 * (every SLOTS / 2 broadcasts), writers read that value remotely
 * when their cached one is too old (credits, no acknowledgement per
 * broadcast). A receiver forwards the whole message to its children once
 * it has it. All of this runs in steps of the blocking MPI_Bcast's
 * schedule of each rank (dropin.c): no progress engine is involved. */
#ifndef CX_RMA_LL_H
#define CX_RMA_LL_H

#include <mpi.h>

typedef struct cx_rma_ll cx_rma_ll;
struct cx_rma;

/* Collective over the runtime's communicator, its window of the
 * runtime's memory kind. *out = NULL (and MPI_SUCCESS) where LL is off:
 * COLLX_RMA_LL_MAX=0, or a window could not be made on some rank. */
int cx_rma_ll_create(const struct cx_rma *rt, cx_rma_ll **out);
void cx_rma_ll_free(cx_rma_ll *ll);
/* The largest message (bytes) sent by LL (COLLX_RMA_LL_MAX). */
MPI_Aint cx_rma_ll_max(const cx_rma_ll *ll);

/* Broadcast n (n >= 1, consecutive over all broadcasts of the
 * communicator) in steps that return at once (polls set *done). The root
 * loads its total bytes at src; a receiver polls cx_rma_ll_take until it
 * has the message from root whole (*total = the root's size; it has
 * landed, or will). Then each passes it to its *nkids children in turn
 * (cx_rma_ll_to_child, a poll for child i = 0, 1, ...: the child's slot
 * must be free first) and a receiver decodes it (total bytes to dst). */
int cx_rma_ll_load(cx_rma_ll *ll, long long n, int alg, const char *src, MPI_Aint total,
                   int *nkids);
int cx_rma_ll_take(cx_rma_ll *ll, long long n, int root, int alg, int *done,
                   MPI_Aint *total, int *nkids);
int cx_rma_ll_to_child(cx_rma_ll *ll, int i, int *done);
void cx_rma_ll_decode(const cx_rma_ll *ll, char *dst, MPI_Aint total);
/* Whether broadcast n's header has landed here (non-blocking). */
int cx_rma_ll_landed(cx_rma_ll *ll, long long n, int *yes);
/* This rank is done with broadcast n (whatever protocol it used). */
int cx_rma_ll_done(cx_rma_ll *ll, long long n);

#endif
