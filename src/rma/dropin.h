/* The one-sided broadcast as a drop-in MPI_Bcast (dropin.c), for the
 * family's catalogue (register.c). */
#ifndef CX_RMA_DROPIN_H
#define CX_RMA_DROPIN_H

#include "rma.h"

/* The builder: the tree (CX_RMA_LINEAR or CX_RMA_BINOMIAL) is the
 * algorithm's family_data, an int. */
int cx_rma_dropin(const cx_args *a, cx_sched *s);
/* NULL where the drop-in can serve (identical on every rank), else why
 * not. */
const char *cx_rma_dropin_check(const cx_args *a, cx_comm *c);

#endif
