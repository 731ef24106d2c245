/* Process-arrival-pattern (PAP) awareness, Proficz 2020: per-communicator
 * state, arrival prediction and exchange, predicted order, and the two
 * background engines (progress thread, eager posting). */
#ifndef CX_PAP_H
#define CX_PAP_H

#include "../base/base.h"

typedef enum { CX_PAP_EAGER, CX_PAP_THREAD } cx_pap_engine;

/* Which part of a background algorithm may run before its call. */
typedef enum { CX_BG_NONE, CX_BG_BSLN, CX_BG_BSBN, CX_BG_BSLS } cx_bg_kind;

typedef struct cx_pap {
    MPI_Comm comm;          /* own duplicate: exchange + background schedules */
    cx_comm *cc;            /* collx state of the user's comm (selection) */
    double last_end;        /* end of the last blocking collx call on comm */
    int rank, size;
    cx_pap_engine engine;
    double offset;          /* local clock minus rank 0's clock */
    double start;           /* explicit iteration start (init, CX_Pat_start) */
    /* prediction: pred = raw + bias, bias = EMA of (arrival - raw) */
    double raw, bias;
    int have_raw, nobs;
    /* exchange of predicted arrivals (rank 0's clock) */
    double mine;
    double *next, *cur, *snap;  /* in flight / last completed / cur at the edge */
    int have_cur, have_snap;
    MPI_Request xreq;
    int *order;
    /* background: the registered call and its early-started schedule */
    unsigned seq;           /* tag sequence of background calls on comm */
    int has_reg;
    cx_args reg;
    cx_sched early;
    int early_live, early_rounds, early_safe;
    long n_early, n_adopted;  /* statistics for tests and tools */
    /* thread engine: a job of the core progress agent (background.c) */
    cx_job job;
    int job_on, job_state;
} cx_pap;

/* The family's state: its key (state.c) and hooks (pat.c). */
extern int cx_pap_slot;
void cx_pap_release(void *state);
void cx_pap_after_call(void *state);

/* PAP state of comm when CX_Pat_init was called on it, else NULL. */
cx_pap *cx_pap_get(MPI_Comm comm);
/* At the call: records the arrival (now) against this iteration's
 * prediction. */
void cx_pap_record_arrival(cx_pap *pap);
/* Takes the state back from the progress thread (no-op for eager). */
void cx_pap_sync(cx_pap *pap);
/* Completes the pending exchange, if any (test: without blocking). */
int cx_pap_complete(cx_pap *pap);
int cx_pap_test(cx_pap *pap, int *done);
/* Predicted order, root first; stale = the vector known at the last edge.
 * NULL when nothing was exchanged yet (the builders then use rotation). */
const int *cx_pap_order(cx_pap *pap, int root, int stale);
int cx_pap_tag(unsigned seq);

/* The algorithm selected for the registered call (NULL if none). */
const cx_algorithm *cx_pap_reg_alg(cx_pap *pap);

/* An algorithm of the family (register.c): the base schedule on the
 * predicted order, and which part may run before the call. */
typedef struct cx_pap_alg {
    cx_bg_kind bg;
    cx_build_fn base;
} cx_pap_alg;
/* The one builder of the family (build.c); alg's data if it is the
 * family's, else NULL (state.c). */
int cx_pap_build(const cx_args *a, cx_sched *s);
const cx_pap_alg *cx_pap_alg_of(const cx_algorithm *alg);

/* Early start (early.c): builds the registered call's schedule and starts
 * the part that may run before the call; and hands it to the call. */
int cx_pap_early_start(cx_pap *pap, int current_order);
/* Whether this rank's early part depends on the order (binomial trees, the
 * root of the linear ones): only then must the exchange complete first. */
int cx_pap_early_needs_order(cx_pap *pap);
void cx_pap_early_progress(cx_pap *pap, int *done);
int cx_pap_early_adopt(cx_pap *pap, const cx_args *a, cx_sched *s, int *adopted);
void cx_pap_early_drop(cx_pap *pap);

/* Thread engine (background.c): the progress agent's thread must run;
 * kick hands the edge's work to it. */
int cx_pap_thread_start(cx_pap *pap);
void cx_pap_thread_kick(cx_pap *pap);

#endif
