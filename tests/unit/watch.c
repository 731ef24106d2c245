/* The watchdog's numbering (src/core/engine/watchdog.mpi.c): what the
 * watcher reads while blocking calls are in flight, nested in one thread
 * and interleaved between two. A call that returned must never stay
 * watched: the watcher would warn about a call long over. The watcher
 * itself is off (COLLX_WAIT_WARN=0: it would ask MPI for the rank). */
#include <pthread.h>
#include "unit.h"
#include "engine/engine.h"

/* Each case in a child of its own, whose COLLX_ environment is fresh. */
static void no_watcher(void)
{
    setenv("COLLX_WAIT_WARN", "0", 1);
}

static void nested(void)
{
    no_watcher();
    unsigned long outer = cx_watch_enter(CX_COLL_BCAST);
    unsigned long a = cx_watch_current();
    EXPECT(outer == 0, "a thread's first call has no outer call (got %lu)", outer);
    EXPECT(a != 0 && (a & 63) == CX_COLL_BCAST, "the call's number names bcast (%#lx)", a);
    unsigned long inner_was = cx_watch_enter(CX_COLL_ALLREDUCE);
    unsigned long b = cx_watch_current();
    EXPECT(inner_was == a, "an inner call's return gives back the outer number");
    EXPECT(b != a && (b & 63) == CX_COLL_ALLREDUCE, "the inner call has its own number");
    cx_watch_leave(inner_was);
    EXPECT(cx_watch_current() == a, "after the inner call, the outer one is watched again");
    cx_watch_leave(outer);
    EXPECT(cx_watch_current() == 0, "after the outer call, none is watched");
    unsigned long again = cx_watch_enter(CX_COLL_BCAST);
    EXPECT(cx_watch_current() != a, "the next call has a new number");
    cx_watch_leave(again);
}

static pthread_barrier_t step;
static unsigned long other_number;

/* The other thread: enters (1), lets main enter (2), returns (3). */
static void *other(void *unused)
{
    (void)unused;
    unsigned long was = cx_watch_enter(CX_COLL_GATHER);
    other_number = cx_watch_current();
    pthread_barrier_wait(&step);   /* 1: in flight */
    pthread_barrier_wait(&step);   /* 2: main entered too */
    cx_watch_leave(was);
    pthread_barrier_wait(&step);   /* 3: returned */
    return NULL;
}

static void interleaved(void)
{
    no_watcher();
    pthread_t t;
    pthread_barrier_init(&step, NULL, 2);
    pthread_create(&t, NULL, other, NULL);
    pthread_barrier_wait(&step);
    unsigned long was = cx_watch_enter(CX_COLL_SCATTER);
    unsigned long mine = cx_watch_current();
    EXPECT(was == 0, "this thread's first call has no outer call of its own (got %#lx)", was);
    EXPECT(mine != other_number, "two threads' calls have different numbers");
    pthread_barrier_wait(&step);
    pthread_barrier_wait(&step);
    cx_watch_leave(was);
    EXPECT(cx_watch_current() != other_number,
           "a call of another thread that returned is not watched again (%#lx)",
           cx_watch_current());
    EXPECT(cx_watch_current() == 0, "with both calls over none is watched (%#lx)",
           cx_watch_current());
    pthread_join(t, NULL);
    pthread_barrier_destroy(&step);
}

int main(void)
{
    unit_begin("unit_watch");
    unit_run("watch.nested", nested, 1);
    unit_run("watch.interleaved", interleaved, 1);
    return unit_end();
}
