/* The node's synchronization, as cache lines (issue 61; the table of who
 * writes which word is in README.md, "Node synchronization"): the steps
 * of a node barrier, and a blocking wait for a node's flags. The
 * numbering of barriers, which slots and persistent calls depend on, is
 * hier.c's. */
#include <stdint.h>
#include "hier.h"

/* Node barrier in shared memory: each rank counts the node barriers it
 * entered in its own line of the node's control block (HIER_LINE_ARRIVED,
 * stored with release), and barrier b is passed once every rank of the
 * node has counted b (loaded with acquire): one cache-line handoff from
 * the last to arrive to each waiter, no read-modify-write on a line all
 * ranks share. A waiter remembers how many ranks it has seen arrive, so
 * a wait reads each line once after it changed. Every rank of a node
 * enters the same barriers in the same order.
 *
 * A barrier also shares errors: a rank that arrives with an error (e.g.
 * the leader's collective reported MPI_ERR_TRUNCATE, so the node's data is
 * wrong) leaves its class in the word of the barrier's parity (relaxed:
 * its arrival's release orders it), and every rank of the node records it
 * when the barrier is passed. A rank reaches barrier b + 2, which reuses
 * the word, only after all passed b + 1. */
enum { CTL_ERROR = 1 };   /* 8-byte words of the block; CTL_ERROR + b % 2 */

static volatile uint64_t *arrived_word(cx_comm *c, int local)
{
    return (volatile uint64_t *)(void *)cx_comm_node_line(c, local) + HIER_LINE_ARRIVED;
}

/* Whether every rank of the node has arrived (no charge: the writer's
 * check as well as the waiter's). */
static int counted(hier_arrival *x)
{
    while (x->seen < x->c->local_size &&
           __atomic_load_n(arrived_word(x->c, x->seen), __ATOMIC_ACQUIRE) >= x->b)
        x->seen++;
    return x->seen == x->c->local_size;
}

static int arrive(cx_sched *s, void *ctx, MPI_Request *req)
{
    hier_arrival *x = ctx;
    *req = MPI_REQUEST_NULL;
    if (s->err != MPI_SUCCESS) {
        int cls = MPI_ERR_OTHER;
        PMPI_Error_class(s->err, &cls);
        __atomic_store_n(&x->ctl[CTL_ERROR + x->b % 2], x->b << 16 | (unsigned)cls,
                         __ATOMIC_RELAXED);
    }
    x->seen = 0;
    hier_pause();
    __atomic_store_n(arrived_word(x->c, x->c->local_rank), x->b, __ATOMIC_RELEASE);
    if (cx_bell_wanted(x->c) && counted(x))   /* SMPI: the last to arrive wakes */
        cx_bell_ring(x->c);
    return MPI_SUCCESS;
}

static int all_arrived(cx_sched *s, void *ctx, int *done)
{
    hier_arrival *x = ctx;
    *done = counted(x);
    if (*done) {
        cx_charge_sync(x->c->local_size);
        hier_pause();
        unsigned long long e = __atomic_load_n(&x->ctl[CTL_ERROR + x->b % 2],
                                               __ATOMIC_RELAXED);
        if (e >> 16 == x->b)
            cx_sched_fail(s, (int)(e & 0xffff));
    }
    return MPI_SUCCESS;
}

int hier_sync_barrier(cx_sched *s, hier_arrival *x)
{
    int err;
    x->seen = 0;
    if ((err = cx_sched_start(s, arrive, x)) || (err = cx_sched_poll_rung(s, x->c, all_arrived, x)))
        return err;
    return cx_sched_barrier(s);
}

int hier_wait(cx_comm *c, cx_poll_fn fn, void *ctx)
{
    return cx_wait_poll(c->priv, fn, ctx);
}
