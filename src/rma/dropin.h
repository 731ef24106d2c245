/* The one-sided broadcast as a drop-in MPI_Bcast: the per-communicator
 * state (dropin.c), one call as schedule steps (call.c), both for the
 * family's catalogue (register.c). */
#ifndef CX_RMA_DROPIN_H
#define CX_RMA_DROPIN_H

#include "ll.h"
#include "rma.h"

typedef struct dropin {
    cx_rma *rt;           /* NULL: no RMA here (decided alike everywhere) */
    const char *why;      /* ... and why (static text), if known */
    MPI_Win stage;
    char *stage_base;
    MPI_Aint cap;
    int wid;
    cx_rma_ll *ll;        /* small messages (ll.h); NULL: off */
    long long calls;      /* MPI_Bcast calls so far (the LL sequence) */
    long long recvs;      /* descriptor broadcasts received so far */
    struct dropin *next;  /* live states (freed at MPI_Finalize) */
} dropin;

/* The state of the communicator's drop-in, set up at its first call
 * (collective); NULL and *err on failure. */
dropin *cx_rma_dropin_state(cx_comm *c, int *err);
/* NULL where the drop-in can serve (identical on every rank), else why
 * not. */
const char *cx_rma_dropin_check(const cx_args *a, cx_comm *c);
/* Staging grown (collective) for a message of total bytes that did not
 * fit: to a size every rank computes alike (from the old size and the
 * root's total, which the first descriptor told everyone). */
int cx_rma_dropin_grow(dropin *d, MPI_Aint total);

/* The family's state: its key and release hook. */
extern int cx_rma_slot;
void cx_rma_dropin_release(void *state);

/* The builder (call.c): the tree (CX_RMA_LINEAR or CX_RMA_BINOMIAL) is the
 * algorithm's family_data, an int. */
int cx_rma_dropin(const cx_args *a, cx_sched *s);

#endif
