/* The start of online tuning (online.h), at MPI_Init (or a linked
 * program's first collx call), collective over MPI_COMM_WORLD, once: rank
 * 0 reads the cache kept under the machine fingerprint and every rank gets
 * its choices, so that every rank starts from the same settled sites; the
 * end (online_end.c) is hooked at MPI_Finalize; the selection gets the
 * policy. Anything that fails on one rank turns online tuning off on all
 * (no policy). */
#include <pthread.h>
#include "online.h"
#include "../stats/stats.h"

static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static int end_keyval = MPI_KEYVAL_INVALID;   /* the end's attribute, while set */

static int at_end(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm; (void)keyval; (void)attr; (void)extra;
    cx_online_finish();
    return MPI_SUCCESS;
}

static int hook_end(void)
{
    int keyval, err = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_end, &keyval, NULL);
    if (!err && !(err = PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL)))
        end_keyval = keyval;
    return err;
}

void cx_online_end_now(void)
{
    int keyval = end_keyval;
    if (keyval != MPI_KEYVAL_INVALID) {
        end_keyval = MPI_KEYVAL_INVALID;   /* once: the attribute goes with it */
        PMPI_Comm_delete_attr(MPI_COMM_SELF, keyval);
    }
}

/* Its sites are a section of COLLX_STATS's report; finishing first (once,
 * whoever is first: here or the report) gathers them. */
static const cx_stats_section report_section = {cx_online_finish, cx_online_report};

static void start(void)
{
    cx_comm *w;
    int n = 0, ok;
    cx_stats_add_section(&report_section);
    if (cx_comm_get(MPI_COMM_WORLD, &w) || cx_comm_nodes(w)) {
        cx_online_set_started(0);
        cx_say("online tuning: cannot learn MPI_COMM_WORLD's nodes; off");
        return;
    }
    if (w->rank == 0) {
        n = cx_online_cache_load(w->size, w->nnodes, w->max_ranks_per_node);
        if (cx_online_end_prepare(w->size))
            n = -1;
    }
    ok = PMPI_Bcast(&n, 1, MPI_INT, 0, w->priv) == MPI_SUCCESS && n >= 0;
    ok = cx_online_cache_share(w, ok ? n : 0) && ok && hook_end() == MPI_SUCCESS;
    if (PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, w->priv) || !ok) {
        cx_online_set_started(0);
        if (w->rank == 0)
            cx_say("online tuning: could not start (out of memory); off");
        return;
    }
    cx_online_set_started(1);
    cx_select_set_policy(&cx_online_policy);   /* the calls from here on */
}

void cx_online_start(void)
{
    if (cx_online_on())
        pthread_once(&start_once, start);
}
