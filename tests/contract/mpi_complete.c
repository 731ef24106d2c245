/* See mpi_complete.h. Polling loops yield: the tests run oversubscribed. */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include "mpi_complete.h"

#define RING_TAG 4242

const char *const by_names[BY_COUNT] = {
    "MPI_Wait", "MPI_Test", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome",
    "MPI_Testall", "MPI_Testany", "MPI_Testsome", "MPI_Request_get_status"};

typedef struct ring {
    int rank, size, token, got;
    MPI_Request r[3];      /* the collective, the receive, the send */
    MPI_Status st[3];
} ring;

static void ring_post(ring *g, MPI_Comm comm, MPI_Request coll)
{
    static int seq;
    MPI_Comm_rank(comm, &g->rank);
    MPI_Comm_size(comm, &g->size);
    g->token = g->rank * 1000 + seq++ % 1000;
    g->got = -1;
    g->r[0] = coll;
    memset(g->st, 0, sizeof g->st);
    int left = (g->rank + g->size - 1) % g->size, right = (g->rank + 1) % g->size;
    MPI_Irecv(&g->got, 1, MPI_INT, left, RING_TAG, comm, &g->r[1]);
    MPI_Isend(&g->token, 1, MPI_INT, right, RING_TAG, comm, &g->r[2]);
}

/* What the ring received and the receive's status say; the collective's
 * request: released, or (persistent) kept as it was. */
static int ring_check(const ring *g, const MPI_Status *recv_status, MPI_Request coll_after,
                      char *msg, size_t len)
{
    int left = (g->rank + g->size - 1) % g->size, count = -1;
    int want = left * 1000;   /* seq agrees on every rank: calls are collective */
    if (g->got < want || g->got >= want + 1000)
        return snprintf(msg, len, "the point-to-point message beside it: got %d", g->got),
               MPI_ERR_OTHER;
    if (recv_status) {
        MPI_Get_count(recv_status, MPI_INT, &count);
        if (recv_status->MPI_SOURCE != left || recv_status->MPI_TAG != RING_TAG || count != 1)
            return snprintf(msg, len, "the receive beside it: status source %d tag %d "
                            "count %d", recv_status->MPI_SOURCE, recv_status->MPI_TAG, count),
                   MPI_ERR_OTHER;
    }
    for (int i = 0; i < 3; i++)
        if (g->r[i] != (i ? MPI_REQUEST_NULL : coll_after))
            return snprintf(msg, len, "request %d of the array %s", i,
                            i || coll_after == MPI_REQUEST_NULL ? "not released"
                                                                : "(persistent) released"),
                   MPI_ERR_OTHER;
    return MPI_SUCCESS;
}

/* The collective's status: not cancelled (all MPI defines for it). */
static int coll_status(const MPI_Status *st, char *msg, size_t len)
{
    int cancelled = 1;
    MPI_Test_cancelled(st, &cancelled);
    if (cancelled)
        return snprintf(msg, len, "status says cancelled"), MPI_ERR_OTHER;
    return MPI_SUCCESS;
}

static int by_array(ring *g, int by, MPI_Request coll_after, char *msg, size_t len)
{
    int err = MPI_SUCCESS, flag = 0, left = 3, index, out, idx[3];
    MPI_Status one;
    switch (by) {
    case BY_WAITALL:
        err = MPI_Waitall(3, g->r, g->st);
        break;
    case BY_TESTALL:
        while (!err && !flag && !(err = MPI_Testall(3, g->r, &flag, g->st)) && !flag)
            sched_yield();
        break;
    case BY_WAITANY:
    case BY_TESTANY:
        while (!err && left > 0) {
            flag = 1;
            err = by == BY_WAITANY ? MPI_Waitany(3, g->r, &index, &one)
                                   : MPI_Testany(3, g->r, &index, &flag, &one);
            if (err || !flag) {
                sched_yield();
                continue;
            }
            if (index == MPI_UNDEFINED)
                return snprintf(msg, len, "%s: no active request left with %d to go",
                                by_names[by], left), MPI_ERR_OTHER;
            g->st[index] = one;
            left--;
        }
        break;
    case BY_WAITSOME:
    case BY_TESTSOME:
        while (!err && left > 0) {
            MPI_Status got[3];   /* in completion order */
            err = by == BY_WAITSOME ? MPI_Waitsome(3, g->r, &out, idx, got)
                                    : MPI_Testsome(3, g->r, &out, idx, got);
            if (err == MPI_ERR_IN_STATUS)
                for (int i = 0; i < out; i++)
                    g->st[idx[i]] = got[i];
            if (err)
                break;
            if (out == MPI_UNDEFINED)
                return snprintf(msg, len, "%s: no active request left with %d to go",
                                by_names[by], left), MPI_ERR_OTHER;
            if (out == 0)
                sched_yield();
            for (int i = 0; i < out; i++)
                g->st[idx[i]] = got[i];
            left -= out;
        }
        break;
    }
    if (err == MPI_ERR_IN_STATUS)
        err = g->st[0].MPI_ERROR;   /* the collective's, if any */
    if (err)
        return err;
    if ((err = coll_status(&g->st[0], msg, len)))
        return err;
    return ring_check(g, &g->st[1], coll_after, msg, len);
}

int mpi_complete(MPI_Request *q, int by, int persistent, MPI_Comm comm, char *msg,
                 size_t len)
{
    int err = MPI_SUCCESS, flag = 0;
    MPI_Status st;
    MPI_Request after = persistent ? *q : MPI_REQUEST_NULL;
    if (by == BY_WAIT) {
        err = MPI_Wait(q, &st);
    } else if (by == BY_TEST) {
        while (!(err = MPI_Test(q, &flag, &st)) && !flag)
            sched_yield();
    } else if (by == BY_GET_STATUS) {
        while (!(err = MPI_Request_get_status(*q, &flag, &st)) && !flag)
            sched_yield();
        if (!err && *q == MPI_REQUEST_NULL)
            return snprintf(msg, len, "MPI_Request_get_status released the request"),
                   MPI_ERR_OTHER;   /* (a persistent one stays anyway) */
        if (!err && (err = coll_status(&st, msg, len)))
            return err;
        if (!err)   /* complete: the wait returns at once and releases it */
            err = MPI_Wait(q, MPI_STATUS_IGNORE);
    } else {
        ring g;
        ring_post(&g, comm, *q);
        err = by_array(&g, by, after, msg, len);
        *q = g.r[0];
        if (err)
            return err;
    }
    if (err)
        return err;
    if (*q != after)
        return snprintf(msg, len, "%s %s", by_names[by],
                        persistent ? "released a persistent request"
                                   : "did not release the request"),
               MPI_ERR_OTHER;
    return by == BY_WAIT || by == BY_TEST ? coll_status(&st, msg, len) : MPI_SUCCESS;
}
