/* MPI's completion calls, interposed. While collx has schedules in flight
 * (a nonblocking collective it serves, behind a generalized request),
 * waiting is a loop: move collx's schedules on, test the program's
 * requests (the MPI's own and collx's alike, in any array), back off
 * (cx_backoff: yields, then sleeps of a few microseconds). A program that
 * waits on collx's requests thus completes them without a progress
 * thread, also in arrays mixed with point-to-point and RMA requests, and
 * a request of the MPI's own that waits for a peer's collx schedule sees
 * this rank's part of it move on. A test moves collx's schedules on once,
 * then tests. With nothing in flight every call is the MPI's own. After
 * each, collx frees the requests that MPI let go of inside the call
 * (cx_request_bury). */
#include "../core/persist/persist.h"

static int cx_buried(int err)
{
    cx_request_bury();
    return err;
}

/* collx's own requests among requests[0..count): each schedule runs to
 * its end here, as a blocking call's does (the others of collx move on
 * meanwhile), instead of a loop of tests and naps. Only where every
 * request must complete anyway (MPI_Wait, MPI_Waitall): MPI_Waitany and
 * MPI_Waitsome may return as soon as a point-to-point request is done. */
static void run_here(int count, const MPI_Request requests[])
{
    for (int i = 0; i < count && cx_progress_pending(); i++)
        if (!cx_request_wait_mpi(requests[i]))
            cx_plan_wait_mpi(requests[i]);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    int err, flag = 0;
    run_here(1, request);
    for (int spins = 0;; cx_backoff(&spins)) {
        if (!cx_progress_pending())
            return cx_buried(PMPI_Wait(request, status));
        cx_progress_poke();
        if ((err = PMPI_Test(request, &flag, status)) || flag)
            return cx_buried(err);
    }
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    int err, flag = 0;
    run_here(count, requests);
    for (int spins = 0;; cx_backoff(&spins)) {
        if (!cx_progress_pending())
            return cx_buried(PMPI_Waitall(count, requests, statuses));
        cx_progress_poke();
        if ((err = PMPI_Testall(count, requests, &flag, statuses)) || flag)
            return cx_buried(err);
    }
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    int err, flag = 0;
    for (int spins = 0;; cx_backoff(&spins)) {
        if (!cx_progress_pending())
            return cx_buried(PMPI_Waitany(count, requests, index, status));
        cx_progress_poke();
        if ((err = PMPI_Testany(count, requests, index, &flag, status)) || flag)
            return cx_buried(err);
    }
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    int err;
    for (int spins = 0;; cx_backoff(&spins)) {
        if (!cx_progress_pending())
            return cx_buried(PMPI_Waitsome(incount, requests, outcount, indices, statuses));
        cx_progress_poke();
        if ((err = PMPI_Testsome(incount, requests, outcount, indices, statuses)) ||
            *outcount != 0)
            return cx_buried(err);
    }
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    cx_progress_poke();
    return cx_buried(PMPI_Test(request, flag, status));
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    cx_progress_poke();
    return cx_buried(PMPI_Testall(count, requests, flag, statuses));
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                MPI_Status *status)
{
    cx_progress_poke();
    return cx_buried(PMPI_Testany(count, requests, index, flag, status));
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    cx_progress_poke();
    return cx_buried(PMPI_Testsome(incount, requests, outcount, indices, statuses));
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    cx_progress_poke();
    return cx_buried(PMPI_Request_get_status(request, flag, status));
}
