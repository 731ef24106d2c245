/* One-sided (RMA) broadcast runtime (Paznikov 2024), collx's version.
 *
 * Per runtime (a communicator): one control window per process of
 * CX_RMA_WORDS 64-bit words (the paper's reqwin, descrwin and donecntrwin
 * as three regions of one MPI_Win_allocate window: one lock_all epoch, and
 * atomics on memory MPI allocated, which Open MPI's osc/rdma needs), the
 * list of registered data windows (index = the paper's wid), and a
 * forwarding job on the core progress agent (the paper's Broadcaster).
 *
 * Broadcasts of one runtime are SERIALISED: a root takes the runtime's lock
 * (a ticket lock at rank 0: fetch-and-add a ticket, wait until it is
 * served; SMPI 3.32's compare-and-swap is not atomic, its fetch-and-op is,
 * and tickets are served in order) before its first put and the lock is
 * released when the broadcast is acknowledged everywhere. Acknowledgements
 * go up the broadcast's tree (a process acknowledges its parent once it has
 * the data and all its children acknowledged it; linear: every target is a
 * child of the root), so the root hears O(log p) of them, not p - 1. So
 * every process holds at most one pending request, descriptors are never
 * overwritten before they are read and data of two broadcasts never mix in
 * a window. */
#ifndef CX_RMA_H
#define CX_RMA_H

#include <stdatomic.h>
#include <stdint.h>
#include "../core/select/select.h"

/* Control window words. */
enum {
    CX_RMA_FLAG = 0,   /* requests received (incremented by the parent) */
    CX_RMA_ACKS = 1,   /* acknowledgements from this process's children */
    CX_RMA_TICKET = 2, /* rank 0 only: next ticket of the runtime's lock */
    CX_RMA_SERVING = 3,/* rank 0 only: ticket that holds the lock */
    CX_RMA_DESC = 4,   /* descriptor: root, wid, disp, bytes, alg, aux[2] */
    CX_RMA_AUX = 2,    /* the caller's words in a descriptor */
    CX_RMA_DESC_WORDS = 5 + CX_RMA_AUX,
    CX_RMA_WORDS = CX_RMA_DESC + CX_RMA_DESC_WORDS
};

enum { CX_RMA_ENGINE_INLINE, CX_RMA_ENGINE_THREAD };

/* Bits of a descriptor's alg word above the algorithm (CX_RMA_LINEAR or
 * CX_RMA_BINOMIAL). PULL (binomial, runtime with a stage function): a
 * leaf reads the data from its parent's window itself, straight into its
 * owner's buffer, instead of being put to (and copied out of) its own;
 * PULLED marks the descriptor of a child that must do so. */
enum { CX_RMA_ALG_MASK = 3, CX_RMA_PULL = 4, CX_RMA_PULLED = 8 };

/* Makes bytes from src this process's data at disp of the broadcast's
 * window (the root's copy for children that pull), charged as local work. */
typedef int (*cx_rma_stage_fn)(void *ctx, const char *src, MPI_Aint bytes, MPI_Aint disp);

typedef struct cx_rma_win {
    MPI_Win win;          /* MPI_WIN_NULL: slot free */
    char *base;           /* this process's part */
    MPI_Aint *size;       /* [p] bytes of every process's part */
    int *unit;            /* [p] displacement unit of every process */
} cx_rma_win;

typedef struct cx_rma {
    MPI_Comm comm;        /* private duplicate */
    int rank, size;
    MPI_Win ctl;
    int64_t *ctl_base;
    cx_rma_win *wins;
    int nwins;
    int memory;           /* CX_RMA_MEM_* of its windows (same on every rank) */
    int engine;           /* CX_RMA_ENGINE_* (same on every rank) */
    int async;            /* passive target progresses without the target:
                           * 1 yes, 0 no, -1 not probed */
    int local_poll;       /* own control words read by plain loads after
                           * MPI_Win_sync (unified memory model), not by
                           * fetch-and-op + flush */
    cx_job job;
    /* Forwarder (touched by the job only, but for held). */
    int64_t seen;         /* requests handled */
    atomic_llong arrived; /* broadcasts received and forwarded here */
    atomic_llong delivered;  /* ... and acknowledged to the parent */
    int64_t last_bytes;   /* bytes field of the last descriptor handled */
    int64_t last_aux[CX_RMA_AUX];  /* its aux words (the caller's, e.g. the
                           * drop-in's total message size and call number) */
    int last_pulled;      /* ... it was PULLED: the data is at last_from's
                           * window last_wid, displacement last_disp */
    int last_from, last_wid;
    int64_t last_disp;
    cx_rma_stage_fn stage;   /* NULL: no child ever pulls from this root */
    void *stage_ctx;
    int hold_acks;        /* the owner releases each broadcast (cx_rma_ack) */
    atomic_int held;      /* the owner has not released the last one yet */
    int parent;           /* rank to acknowledge, -1 none pending */
    int64_t acks_want;    /* ACKS value that completes the pending part
                           * (cumulative: one broadcast at a time) */
    /* Root. */
    atomic_int active;    /* this rank holds the lock; a broadcast runs */
    int sticky;           /* the drop-in: broadcasts come in collective
                           * order, so a root keeps the lock after its
                           * broadcast completed and releases it only when
                           * another root comes (cx_rma_release) */
    atomic_int holding;   /* sticky: this rank holds the lock, idle */
    atomic_int err;       /* first error of a forwarding step */
    int64_t ticket;       /* this root's ticket of the lock */
    int64_t desc_out[CX_RMA_DESC_WORDS];  /* the descriptor being put */
} cx_rma;

/* Runtime on comm (collective), forwarding (bcast.c).
 * MPI_ERR_UNSUPPORTED_OPERATION, identically on every rank, when the MPI
 * cannot create the windows or no window would be safe; then *why (if
 * why is not NULL) says why. */
int cx_rma_open(MPI_Comm comm, cx_rma **out, const char **why);
/* Completes this rank's broadcasts, waits for all ranks while forwarding,
 * stops forwarding, frees (collective). quiet = no barrier (the caller
 * knows nothing is pending). */
int cx_rma_close(cx_rma *rt, int quiet);
/* The runtime alone (runtime.c): created without forwarding, freed
 * after it stopped. */
int cx_rma_create(MPI_Comm comm, cx_rma **out, const char **why);
void cx_rma_destroy(cx_rma *rt);
/* Registers win (collective over the runtime's processes): *wid. */
int cx_rma_register(cx_rma *rt, MPI_Win win, int *wid);
void cx_rma_unregister(cx_rma *rt, int wid);
const char *cx_rma_engine_name(const cx_rma *rt);

/* The root's broadcast of bytes from src into window wid at disp on every
 * other rank (MPI_ERR_RMA_RANGE when a target's part is too small); returns
 * once src may be reused (its puts are flushed). aux travels with the
 * descriptor (last_aux at the targets). */
int cx_rma_bcast_bytes(cx_rma *rt, const void *src, MPI_Aint bytes, int wid,
                       MPI_Aint disp, int alg, const int64_t aux[CX_RMA_AUX]);
/* Waits until this rank's broadcasts completed everywhere (forwarding). */
int cx_rma_flush(cx_rma *rt);

/* The same in steps that return at once (a schedule's, the drop-in's).
 * cx_rma_bcast_bytes = check; unless the lock was kept, quiet (poll),
 * ticket, served (poll); put. Polls set *done and forward meanwhile. */
int cx_rma_bcast_check(const cx_rma *rt, MPI_Aint bytes, int wid, MPI_Aint disp, int alg);
/* Whether this root kept the lock from its last broadcast (sticky). */
int cx_rma_lock_kept(cx_rma *rt);
/* Poll: this root's last broadcast is complete everywhere. */
int cx_rma_quiet(cx_rma *rt, int *done);
/* Takes a ticket of the lock; poll: the ticket is served (lock held). */
int cx_rma_ticket(cx_rma *rt);
int cx_rma_served(cx_rma *rt, int *done);
/* The puts of a broadcast (the lock held). */
int cx_rma_bcast_put(cx_rma *rt, const void *src, MPI_Aint bytes, int wid, MPI_Aint disp,
                     int alg, const int64_t aux[CX_RMA_AUX]);
/* Poll: as cx_rma_quiet, then the first forwarding error (cx_rma_flush). */
int cx_rma_flushed(cx_rma *rt, int *done);
/* Poll: n broadcasts have been received and forwarded here (data there);
 * with acked, this rank acknowledged them too (its subtree has them).
 * Then the first forwarding error. */
int cx_rma_arrived(cx_rma *rt, long long n, int acked, int *done);
/* The data of the last broadcast handled here, when it was PULLED: bytes
 * read from the parent's window into to (flushed). */
int cx_rma_pull(cx_rma *rt, void *to, MPI_Aint bytes);
/* A wait's poll: one pass of the progress agent (the forwarding job
 * among its jobs), then a probe on comm: MPICH's progress, which lands
 * the atomics of requests for an idle job (whose step does not probe:
 * every collective call steps it), and in SMPI the quantum by which a
 * waiting rank's clock moves (smpi/iprobe). */
void cx_rma_poll(MPI_Comm comm);
/* With hold_acks the drop-in reads its staging window before its parent
 * hears that this rank is done (and the root may start the next
 * broadcast): it releases each broadcast here. */
void cx_rma_ack(cx_rma *rt);
/* Sticky lock: gives the lock back if this rank holds it (call it when
 * a broadcast from another root is due; the next root waits for it). */
int cx_rma_release(cx_rma *rt);
/* The children of relative rank v (ranks relative to the root) in the
 * tree of alg (CX_RMA_LINEAR/BINOMIAL) over p ranks, largest subtree
 * first: their number, and the children in kids unless NULL (at most
 * p - 1 for linear's root, 32 for a binomial rank). */
int cx_rma_children(int v, int p, int alg, int *kids);

/* Where windows get their memory (window.c says why): an MPI_Win_allocate
 * window, a shared one (one node), memory of collx's own (MPICH), or no
 * window that is safe here. */
enum { CX_RMA_MEM_NONE, CX_RMA_MEM_ALLOCATE, CX_RMA_MEM_SHARED, CX_RMA_MEM_OWN };
/* The kind for windows on comm (collective, the same on every rank); with
 * CX_RMA_MEM_NONE, *why says why and what to do. A negative value is an
 * MPI error of the probe (negated). */
int cx_rma_memory(MPI_Comm comm, const char **why);
/* A window of that kind over bytes of new memory at *(void **)base, and
 * its end. */
int cx_rma_win_alloc(int memory, MPI_Aint bytes, int unit, MPI_Info info, MPI_Comm comm,
                     void *base, MPI_Win *win);
void cx_rma_win_free(MPI_Win *win, void *base);

#endif
