/* A thread's memory of its last lookup of a communicator's attribute, so
 * that back-to-back calls on one communicator need not ask MPI. A lookup
 * holds while the owner's count of deleted attributes has not changed: a
 * freed communicator's handle may come back for a new one. Simulated
 * ranks (SMPI) may share a thread and its thread-locals: no memory there.
 *
 *   static atomic_uint deleted;                  (the attribute's delete
 *   static CX_RECENT_LOCAL cx_recent recent;      callback: cx_recent_forget)
 */
#ifndef CX_RECENT_H
#define CX_RECENT_H

#include <stdatomic.h>
#include <stddef.h>
#include <mpi.h>
#include "../util/util.h"

typedef struct cx_recent {
    MPI_Comm comm;
    void *value;
    unsigned deleted;
} cx_recent;

/* Simulated ranks may share a thread and its thread-locals: no memory
 * there (sim.h). */
#define CX_RECENT_LOCAL CX_SIM_THREAD_LOCAL
static inline void *cx_recent_get(const cx_recent *r, atomic_uint *deleted, MPI_Comm comm)
{
    /* (never set: value NULL) */
    return !CX_SIMULATED && r->comm == comm &&
                   r->deleted == atomic_load_explicit(deleted, memory_order_acquire)
               ? r->value
               : NULL;
}
static inline void cx_recent_set(cx_recent *r, atomic_uint *deleted, MPI_Comm comm, void *v)
{
    if (CX_SIMULATED)
        return;
    r->deleted = atomic_load_explicit(deleted, memory_order_acquire);
    r->comm = comm;
    r->value = v;
}

/* An attribute was deleted: every thread's memory of one is stale. */
static inline void cx_recent_forget(atomic_uint *deleted)
{
    atomic_fetch_add_explicit(deleted, 1, memory_order_acq_rel);
}

#endif
