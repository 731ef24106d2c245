/* The one-sided family (Paznikov 2024): the drop-in MPI_Bcast on either
 * tree (dropin.c), the tree as its data. */
#include "dropin.h"

#define TREE(alg) .family_data = &(const int){alg}

const cx_algorithm cx_rma_algorithms[] = {
    CX_ALG(BCAST, "rma_linear", cx_rma_dropin, CX_REQ_BLOCKING,
           "one-sided: the root puts to every rank (Paznikov 2024)",
           .check = cx_rma_dropin_check, TREE(CX_RMA_LINEAR)),
    CX_ALG(BCAST, "rma_binomial", cx_rma_dropin, CX_REQ_BLOCKING,
           "one-sided binomial tree, forwarded by each rank's runtime, largest "
           "subtree first (Paznikov 2024)", .check = cx_rma_dropin_check,
           TREE(CX_RMA_BINOMIAL)),
    CX_ALG_END};
