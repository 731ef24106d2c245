/* Progress thread engine (needs MPI_THREAD_MULTIPLE), as in the paper:
 * after the edge it waits (polling) for the arrival exchange when its part
 * depends on the order, builds the registered call's schedule in the
 * *current* predicted order and runs its safe rounds while the application
 * computes. The caller takes everything back with
 * cx_pap_sync (which waits for the thread to stop between two steps). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <time.h>
#include "pap.h"

/* Poll interval: short against message times, long enough not to steal
 * the application's core. */
#define PAP_POLL_NS 20000L

static int stop_requested(cx_pap *pap)
{
    pthread_mutex_lock(&pap->mu);
    int stop = pap->th_stop || pap->th_quit;
    pthread_mutex_unlock(&pap->mu);
    return stop;
}

/* Polls (never blocks), so the caller can take over at once. A part that
 * does not depend on the order (a linear leaf's) starts at once. */
static void run_job(cx_pap *pap)
{
    const struct timespec nap = {0, PAP_POLL_NS};
    int need = cx_pap_early_needs_order(pap), done = !need;
    while (!done && !stop_requested(pap)) {
        if (cx_pap_test(pap, &done))
            return;
        if (!done)
            nanosleep(&nap, NULL);
    }
    if (!done || cx_pap_early_start(pap, need))
        return;
    done = 0;
    while (!done && !stop_requested(pap)) {
        cx_pap_early_progress(pap, &done);
        if (!done)
            nanosleep(&nap, NULL);
    }
}

static void *main_loop(void *arg)
{
    cx_pap *pap = arg;
    pthread_mutex_lock(&pap->mu);
    for (;;) {
        while (!pap->th_job && !pap->th_quit)
            pthread_cond_wait(&pap->cv, &pap->mu);
        if (pap->th_quit)
            break;
        pap->th_job = 0;
        pap->th_busy = 1;
        pthread_mutex_unlock(&pap->mu);
        run_job(pap);
        pthread_mutex_lock(&pap->mu);
        pap->th_busy = 0;
        pthread_cond_broadcast(&pap->cv);
    }
    pthread_mutex_unlock(&pap->mu);
    return NULL;
}

int cx_pap_thread_start(cx_pap *pap)
{
    pthread_mutex_init(&pap->mu, NULL);
    pthread_cond_init(&pap->cv, NULL);
    if (pthread_create(&pap->th, NULL, main_loop, pap)) {
        pthread_mutex_destroy(&pap->mu);
        pthread_cond_destroy(&pap->cv);
        return MPI_ERR_OTHER;
    }
    pap->th_on = 1;
    return MPI_SUCCESS;
}

void cx_pap_thread_kick(cx_pap *pap)
{
    pthread_mutex_lock(&pap->mu);
    pap->th_job = 1;
    pthread_cond_broadcast(&pap->cv);
    pthread_mutex_unlock(&pap->mu);
}

void cx_pap_thread_stop(cx_pap *pap)
{
    pthread_mutex_lock(&pap->mu);
    pap->th_quit = 1;
    pthread_cond_broadcast(&pap->cv);
    pthread_mutex_unlock(&pap->mu);
    pthread_join(pap->th, NULL);
    pthread_mutex_destroy(&pap->mu);
    pthread_cond_destroy(&pap->cv);
    pap->th_on = 0;
}
