/* The end of online tuning (online.h), at MPI_Finalize, collective over
 * MPI_COMM_WORLD, once: every rank's site records to rank 0, which writes
 * the cache file and keeps them for the COLLX_STATS report. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "online.h"

/* Rank 0's arrays for the gather, allocated at the start (a rank 0 that
 * could not take part at MPI_Finalize would strand the others). */
static int *counts, *displs;
static pthread_once_t finish_once = PTHREAD_ONCE_INIT;

int cx_online_end_prepare(int world_size)
{
    counts = calloc((size_t)world_size, sizeof *counts);
    displs = calloc((size_t)world_size, sizeof *displs);
    return counts && displs ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static int same_site(const cx_online_site *a, const cx_online_site *b)
{
    return a->coll == b->coll && a->comm_size == b->comm_size &&
           a->ranks_per_node == b->ranks_per_node && a->cls == b->cls;
}

/* One record per site, the first kept: communicators of the same size and
 * node size are one site to the cache. */
static int unique(cx_online_site *s, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < k && !seen; j++)
            seen = same_site(&s[j], &s[i]);
        if (!seen)
            s[k++] = s[i];
    }
    return k;
}

/* MPI finalized before the end (SMPI without the SMPI build's
 * MPI_Finalize): every MPI call would fail; rank 0 (the one with counts)
 * says so rather than nothing. */
static int finalized(void)
{
    int done = 0;
    PMPI_Finalized(&done);
    if (done && counts)
        cx_say("online tuning: MPI was finalized before its end could run (SMPI: collx's "
               "MPI_Finalize not linked in?); no cache written");
    return done;
}

/* Records are plain data and every rank runs the same binary. A rank 0
 * without room for them receives nothing: MPI truncates there and says
 * so, and no rank waits. */
static void finish(void)
{
    MPI_Comm world;
    int rank, size, total = 0;
    const cx_online_site *mine;
    int bytes = cx_online_mine(&mine) * (int)sizeof *mine;
    if (!cx_online_active() || finalized() ||
        PMPI_Comm_dup(MPI_COMM_WORLD, &world) != MPI_SUCCESS)
        return;
    PMPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(world, &rank);
    PMPI_Comm_size(world, &size);
    int err = PMPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, world);
    for (int r = 0; rank == 0 && r < size; r++) {
        displs[r] = total;
        total += counts[r];
    }
    char *got = rank == 0 ? malloc((size_t)total + 1) : NULL;
    if (rank == 0 && !got)
        memset(counts, 0, sizeof *counts * (size_t)size);
    int err2 = PMPI_Gatherv(mine, bytes, MPI_BYTE, got, counts, displs, MPI_BYTE, 0, world);
    err = err ? err : err2;
    if (rank == 0 && !err && got) {
        cx_online_site *all = (cx_online_site *)(void *)got;
        int n = unique(all, total / (int)sizeof *all);
        cx_online_set_sites(all, n);
        cx_online_cache_write(all, n);
    } else if (rank == 0) {
        free(got);
        cx_say("online tuning: the ranks' choices could not be gathered (error %d); "
               "no cache written", err);
    }
    PMPI_Comm_free(&world);
}

void cx_online_finish(void)
{
    pthread_once(&finish_once, finish);
}
