/* The progress agent (see progress.h): a list of jobs under one mutex,
 * passed over inline by collx calls and, when it runs, by a thread that
 * sleeps briefly between passes (short against message times, long enough
 * not to steal the application's core). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>
#include "progress.h"
#include "../util/util.h"

#define NAP_NS 20000L

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static cx_job *jobs;
static atomic_int njobs;
static atomic_int nbusy;   /* jobs on the list that are not idle */
static pthread_t thread;
static int thread_on, thread_quit;

static void add(cx_job *job, int (*step)(void *ctx), void (*finish)(void *ctx), void *ctx)
{
    job->step = step;
    job->ctx = ctx;
    job->finished = 0;
    job->finish = finish;
    job->idle = 0;
    pthread_mutex_lock(&mu);
    job->next = jobs;
    jobs = job;
    atomic_fetch_add(&nbusy, 1);
    atomic_fetch_add(&njobs, 1);
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&mu);
}

void cx_progress_add(cx_job *job, int (*step)(void *ctx), void *ctx)
{
    add(job, step, NULL, ctx);
}

void cx_progress_hand_over(cx_job *job, int (*step)(void *ctx), void (*finish)(void *ctx),
                           void *ctx)
{
    add(job, step, finish, ctx);
}

int cx_progress_pending(void)
{
    return atomic_load_explicit(&nbusy, memory_order_relaxed) > 0;
}

void cx_progress_idle(cx_job *job, int idle)
{
    idle = idle != 0;
    if (job->idle != idle)
        atomic_fetch_add(&nbusy, idle ? -1 : 1);
    job->idle = idle;
}

/* job leaves the list (under mu). */
static void gone(cx_job *job)
{
    if (!job->idle)
        atomic_fetch_sub(&nbusy, 1);
    atomic_fetch_sub(&njobs, 1);
}

int cx_progress_remove(cx_job *job)
{
    pthread_mutex_lock(&mu);   /* a pass holds mu: job is not running */
    for (cx_job **j = &jobs; *j; j = &(*j)->next)
        if (*j == job) {
            *j = job->next;
            gone(job);
            break;
        }
    pthread_mutex_unlock(&mu);
    return job->finished;
}

cx_job *cx_progress_take(int (*match)(const cx_job *job, const void *arg), const void *arg)
{
    cx_job *found = NULL;
    if (atomic_load_explicit(&njobs, memory_order_relaxed) == 0)
        return NULL;
    pthread_mutex_lock(&mu);   /* a pass holds mu: no job is running */
    for (cx_job **j = &jobs; *j; j = &(*j)->next)
        if ((*j)->finish && !(*j)->finished && match(*j, arg)) {
            found = *j;
            *j = found->next;
            gone(found);
            break;
        }
    pthread_mutex_unlock(&mu);
    return found;
}

/* Runs every job's step once; drops the handed-over jobs that finished
 * (their finish may free them: nothing of j is read after it). The count
 * drops after finish: whoever sees no job pending may hand MPI a
 * generalized request, which must be complete by then (MPICH's
 * MPI_Waitall asserts it). */
static void pass(void)
{
    cx_job **link = &jobs;
    while (*link) {
        cx_job *j = *link;
        if (!j->finished)
            j->finished = j->step(j->ctx);
        if (j->finished && j->finish) {
            *link = j->next;
            int idle = j->idle;
            j->finish(j->ctx);   /* may free j */
            if (!idle)
                atomic_fetch_sub(&nbusy, 1);
            atomic_fetch_sub(&njobs, 1);
            continue;
        }
        link = &j->next;
    }
}

void cx_progress_poke(void)
{
    if (atomic_load_explicit(&njobs, memory_order_relaxed) == 0)
        return;
    /* Another thread passing right now makes this pass redundant. */
    if (pthread_mutex_trylock(&mu) == 0) {
        pass();
        pthread_mutex_unlock(&mu);
    }
}

static void *agent(void *arg)
{
    (void)arg;
    const struct timespec nap = {0, NAP_NS};
    pthread_mutex_lock(&mu);
    while (!thread_quit) {
        int busy = 0;
        for (cx_job *j = jobs; j; j = j->next)
            busy |= !j->finished;
        if (!busy) {
            pthread_cond_wait(&wake, &mu);
            continue;
        }
        pass();
        pthread_mutex_unlock(&mu);
        nanosleep(&nap, NULL);
        pthread_mutex_lock(&mu);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: stop there. */
static int stop_at_finalize(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm; (void)keyval; (void)attr; (void)extra;
    pthread_mutex_lock(&mu);
    thread_quit = 1;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&mu);
    pthread_join(thread, NULL);
    thread_on = 0;
    return MPI_SUCCESS;
}

int cx_progress_thread_wanted(void)
{
    return cx_knob_int(CX_KNOB_PROGRESS) == 1;   /* "thread" */
}

int cx_progress_thread(void)
{
    static pthread_mutex_t start_mu = PTHREAD_MUTEX_INITIALIZER;
    int provided = MPI_THREAD_SINGLE, keyval;
    if (CX_SIMULATED)
        return 0;   /* a pthread cannot call SMPI */
    pthread_mutex_lock(&start_mu);
    if (!thread_on) {
        PMPI_Query_thread(&provided);
        if (provided == MPI_THREAD_MULTIPLE &&
            PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, stop_at_finalize, &keyval,
                                    NULL) == MPI_SUCCESS &&
            PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL) == MPI_SUCCESS) {
            thread_quit = 0;
            thread_on = pthread_create(&thread, NULL, agent, NULL) == 0;
        }
    }
    pthread_mutex_unlock(&start_mu);
    return thread_on;
}
