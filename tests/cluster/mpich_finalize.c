/* LD_PRELOAD helper for MPICH 4.0 ch4:ucx between hosts (cluster/run.sh
 * preloads it for MPICH): MPI_Finalize must not hang.
 *
 * MPICH 4.0's finalize closes every UCX endpoint (ucp_disconnect_nb, a
 * flush), progresses until its own closes complete, then waits in a PMI
 * barrier without progressing UCX. Over UCX's TCP transport a flush needs
 * the peer's answer (a zero-byte put and its acknowledgement after any
 * active message), so a rank whose peer already sits in the barrier waits
 * forever: on the emulated cluster 1-2 runs in 8 of an 8-rank MPI_Barrier
 * + MPI_Finalize program hung (none in 50 with this helper). MPICH 4.2
 * barriers first (pmodels/mpich 08d8105b, d6c7cd5b). Here, once finalize
 * has started closing endpoints, a blocking read (the PMI barrier's) keeps
 * progressing the UCX worker until its descriptor has data, so every
 * rank answers its peers' flushes while it waits for them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

typedef unsigned (*progress_fn)(void *worker);
typedef void *(*disconnect_fn)(void *ep);
typedef void (*destroy_fn)(void *worker);
typedef ssize_t (*read_fn)(int fd, void *buf, size_t n);

static void *_Atomic last_worker;   /* the worker MPICH progresses */
static atomic_int finalizing;
static pthread_t finalizer;         /* the thread in MPI_Finalize */

static void *next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

unsigned ucp_worker_progress(void *worker)
{
    static progress_fn real;
    if (!real && !(real = (progress_fn)next("ucp_worker_progress")))
        return 0;
    atomic_store(&last_worker, worker);
    return real(worker);
}

void *ucp_disconnect_nb(void *ep)
{
    static disconnect_fn real;
    if (!real)
        real = (disconnect_fn)next("ucp_disconnect_nb");
    finalizer = pthread_self();
    atomic_store(&finalizing, 1);
    return real(ep);
}

void ucp_worker_destroy(void *worker)
{
    static destroy_fn real;
    if (!real)
        real = (destroy_fn)next("ucp_worker_destroy");
    atomic_store(&last_worker, NULL);   /* no progress on it from now on */
    real(worker);
}

ssize_t read(int fd, void *buf, size_t n)
{
    static read_fn real;
    if (!real)
        real = (read_fn)next("read");
    void *worker = atomic_load(&last_worker);
    if (worker && atomic_load(&finalizing) && pthread_equal(pthread_self(), finalizer)) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        while (poll(&p, 1, 1) == 0)
            ucp_worker_progress(worker);
    }
    return real(fd, buf, n);
}
