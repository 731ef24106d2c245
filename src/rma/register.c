/* The one-sided family (Paznikov 2024): the drop-in MPI_Bcast on either
 * tree (dropin.c), the tree as its data. */
#include "dropin.h"

#define TREE(alg) .family_data = &(const int){alg}
/* Known bug (issue 12): with several threads calling collectives, a
 * forwarding job crashed in MPI_Win_sync (tests/robust/threads.c).
 * Windows are made by blocking collective calls only, so a nonblocking or
 * persistent call (or a communicator without windows) runs the same tree
 * two-sided: the base family's schedule, not the MPI's own (SMPI's
 * MPI_Ibcast is linear: a started rma_binomial plan was 8x the blocking
 * call at p = 256). */
#define RMA_NEEDS (CX_REQ_BLOCKING | CX_REQ_NO_THREAD_MULTIPLE)

static const cx_algorithm algorithms[] = {
    CX_ALG(BCAST, "rma_linear", cx_rma_dropin, RMA_NEEDS,
           "one-sided: the root puts to every rank (Paznikov 2024)",
           .check = cx_rma_dropin_check, .fallback = "linear", TREE(CX_RMA_LINEAR)),
    CX_ALG(BCAST, "rma_binomial", cx_rma_dropin, RMA_NEEDS,
           "one-sided binomial tree, forwarded by each rank's runtime, largest "
           "subtree first (Paznikov 2024)", .check = cx_rma_dropin_check,
           .fallback = "binomial", TREE(CX_RMA_BINOMIAL)),
    CX_ALG_END};

const cx_family cx_rma_family = {
    .name = "rma",
    .algorithms = algorithms,
    .slot = &cx_rma_slot,
    .release = cx_rma_dropin_release};
