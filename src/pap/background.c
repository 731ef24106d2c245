/* The thread engine of PAP, as a job of the core progress agent (needs
 * MPI_THREAD_MULTIPLE), as in the paper: after the edge the job waits
 * (polling) for the arrival exchange when its part depends on the order,
 * builds the registered call's schedule in the *current* predicted order
 * and runs its safe rounds while the application computes. The caller
 * takes everything back with cx_pap_sync (the agent never runs the job
 * again after that). */
#include "pap.h"

enum { JOB_WAIT_ORDER, JOB_RUN };

/* One nonblocking step; 1 when there is nothing more to do early. A part
 * that does not depend on the order (a linear leaf's) starts at once. */
static int step(void *ctx)
{
    cx_pap *pap = ctx;
    int done = 0;
    if (pap->job_state == JOB_WAIT_ORDER) {
        int need = cx_pap_early_needs_order(pap);
        if (need) {
            if (cx_pap_test(pap, &done))
                return 1;
            if (!done)
                return 0;
        }
        if (cx_pap_early_start(pap, need))
            return 1;
        pap->job_state = JOB_RUN;
    }
    cx_pap_early_progress(pap, &done);
    return done;
}

int cx_pap_thread_start(cx_pap *pap)
{
    (void)pap;
    return cx_progress_thread() ? MPI_SUCCESS : MPI_ERR_OTHER;
}

void cx_pap_thread_kick(cx_pap *pap)
{
    pap->job_state = JOB_WAIT_ORDER;
    pap->job_on = 1;
    cx_progress_add(&pap->job, step, pap);
}

void cx_pap_sync(cx_pap *pap)
{
    if (pap->job_on)
        cx_progress_remove(&pap->job);
    pap->job_on = 0;
}
