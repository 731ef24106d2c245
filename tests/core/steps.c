/* Schedule steps beyond send/recv (internal API), on real MPI and in SMPI:
 *  - messages on other communicators and tags than the schedule's (the
 *    node and leader communicators, as a hierarchical schedule uses them);
 *  - a start step that starts a native nonblocking collective on a
 *    sub-communicator (MPI_Ibarrier on the node communicator) and whose
 *    round ends when it completes;
 *  - a poll step on a flag in the node-shared segment, set by the node's
 *    leader after a delay: the waiting ranks must see it (in SMPI only if
 *    the executor calls into MPI while polling);
 *  - a start step that adds rounds to the running schedule;
 *  - empty messages in a schedule without keep_empty: left out, unless
 *    flagged CX_MSG_EMPTY (then sent: the ring's receives complete). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "persist/persist.h"

static int bad, rank;

static void expect(int ok, const char *what)
{
    if (!ok) {
        printf("FAIL rank %d: %s\n", rank, what);
        bad++;
    }
}

static int start_ibarrier(cx_sched *s, void *ctx, MPI_Request *req)
{
    (void)s;
    return PMPI_Ibarrier(*(MPI_Comm *)ctx, req);
}

typedef struct { volatile int *flag, *data; int want; } flag_wait;

static int flag_set(cx_sched *s, void *ctx, int *done)
{
    (void)s;
    flag_wait *w = ctx;
    *done = __atomic_load_n(w->flag, __ATOMIC_ACQUIRE) == w->want;
    return MPI_SUCCESS;
}

/* Adds one more round: a copy of 'from' to 'to' (ints). */
typedef struct { int *from, *to; } grow_ctx;

static int add_round(cx_sched *s, void *ctx, MPI_Request *req)
{
    grow_ctx *g = ctx;
    *req = MPI_REQUEST_NULL;
    return cx_sched_copy(s, g->from, 1, MPI_INT, g->to, 1, MPI_INT);
}

int main(int argc, char **argv)
{
    int p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    cx_comm *c;
    char *seg;
    if (cx_comm_get(comm, &c) || cx_comm_nodes(c) || cx_comm_shm(c, 64, &seg)) {
        printf("FAIL rank %d: set-up\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    volatile int *flag = (volatile int *)seg, *data = flag + 1;
    if (c->local_rank == 0)
        *flag = *data = 0;
    MPI_Barrier(c->node);

    cx_sched s;
    cx_sched_init(&s, c->priv, 5);
    /* Round 1: barrier of the node, natively. */
    expect(!cx_sched_start(&s, start_ibarrier, &c->node), "start step");
    cx_sched_barrier(&s);
    /* Round 2: leaders pass a token around on the leader comm (tag 9). */
    int token = c->my_node, got = -1, nn = c->nnodes;
    if (c->leaders != MPI_COMM_NULL && nn > 1) {
        cx_sched_send_on(&s, &token, 1, MPI_INT, (c->my_node + 1) % nn, c->leaders, 9);
        cx_sched_recv_on(&s, &got, 1, MPI_INT, (c->my_node + nn - 1) % nn, c->leaders, 9);
    }
    cx_sched_barrier(&s);
    /* An empty ring on every rank: only the flagged messages exist. */
    int before = s.nops, right = (rank + 1) % p, left = (rank + p - 1) % p;
    cx_sched_send_on(&s, NULL, 0, MPI_INT, right, c->priv, 7);
    expect(s.nops == before, "empty message without the flag left out");
    cx_sched_send_flags(&s, NULL, 0, MPI_INT, right, c->priv, 7, CX_MSG_EMPTY | CX_MSG_EARLY);
    cx_sched_recv_flags(&s, NULL, 0, MPI_INT, left, c->priv, 7, CX_MSG_EMPTY);
    expect(s.nops == before + 2, "flagged empty messages kept");
    cx_sched_barrier(&s);
    /* Round 3: non-leaders wait for the leader's flag. */
    flag_wait w = {flag, data, 1};
    if (c->local_rank != 0)
        cx_sched_poll(&s, flag_set, &w);
    cx_sched_barrier(&s);
    /* Round 4: a start step that appends round 5. */
    int one = 42, copy = 0;
    grow_ctx g = {&one, &copy};
    cx_sched_start(&s, add_round, &g);

    if (c->local_rank == 0) {   /* the leader sets the flag after a while */
        cx_sched_begin(&s);
        int done = 0;
        while (!done)
            cx_sched_progress(&s, &done);
    }
    if (c->local_rank == 0) {
        struct timespec nap = {0, 2000000};
        nanosleep(&nap, NULL);  /* simulated in SMPI */
        *data = 1234;
        __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
    } else {
        expect(cx_sched_run(&s) == MPI_SUCCESS, "schedule run");
        expect(*data == 1234, "data written before the flag");
    }
    if (c->leaders != MPI_COMM_NULL && nn > 1)
        expect(got == (c->my_node + nn - 1) % nn, "token on the leader communicator");
    expect(copy == 42, "round added by a start step ran");
    cx_sched_free(&s);
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("steps: p=%d, %d nodes: %s\n", p, c->nnodes, total ? "FAILED" : "OK");
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return total ? 1 : 0;
}
