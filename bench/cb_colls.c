#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "collx.h"
#include "cb_colls.h"

static const char *const names[CB_NCOLL] = {
    "gather", "gatherv", "scatter", "scatterv", "bcast", "allgather",
    "allgatherv", "alltoallv", "reduce_scatter_block"};

int cb_coll_from_name(const char *name)
{
    for (int i = 0; i < CB_NCOLL; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

const char *cb_coll_name(cb_coll c) { return names[c]; }

/* Large buffers whose contents do not matter are shared between the SMPI
 * ranks of one simulation (O(1) host memory instead of O(p)). */
static int *alloc_ints(long long n, int shared)
{
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(int);
#ifdef CB_SMPI
    if (shared)
        return SMPI_SHARED_MALLOC(bytes);
#else
    (void)shared;
#endif
    return calloc(1, bytes);
}

static void free_ints(int *p, int shared)
{
#ifdef CB_SMPI
    if (shared) {
        SMPI_SHARED_FREE(p);
        return;
    }
#else
    (void)shared;
#endif
    free(p);
}

static void fill(int *b, long long n, int rank)
{
    for (long long i = 0; i < n; i++)
        b[i] = (int)(rank * 1000003LL + i * 7 + 1);
}

int cb_op_setup(cb_op *op, cb_coll coll, const int *m, int local,
                int padded_g2, MPI_Comm comm, int root, int any_root, int shared)
{
    memset(op, 0, sizeof *op);
    op->coll = coll;
    op->padded_g2 = padded_g2;
    op->comm = comm;
    op->m = m;
    op->local = local;
    op->shared = shared;
    MPI_Comm_rank(comm, &op->rank);
    MPI_Comm_size(comm, &op->p);
    int p = op->p, r = op->rank;
    int is_root = any_root || r == root;
    long long sum = 0;
    op->counts = malloc(sizeof(int) * (size_t)p);
    op->displs = malloc(sizeof(int) * (size_t)p);
    op->scounts = malloc(sizeof(int) * (size_t)p);
    op->sdispls = malloc(sizeof(int) * (size_t)p);
    for (int i = 0; i < p; i++) {
        op->counts[i] = m[i];
        op->displs[i] = (int)sum;
        sum += m[i];
        op->scounts[i] = m[r];
        op->sdispls[i] = i * m[r];
    }
    long long c = m[0];
    switch (coll) {
    case CB_GATHER: op->stotal = c; op->rtotal = is_root ? p * c : 0; break;
    case CB_GATHERV: op->stotal = m[r]; op->rtotal = is_root ? sum : 0; break;
    case CB_SCATTER: op->stotal = is_root ? p * c : 0; op->rtotal = c; break;
    case CB_SCATTERV: op->stotal = is_root ? sum : 0; op->rtotal = m[r]; break;
    case CB_BCAST: op->stotal = c; op->rtotal = 0; break;
    case CB_ALLGATHER: op->stotal = c; op->rtotal = p * c; break;
    case CB_ALLGATHERV: op->stotal = m[r]; op->rtotal = sum; break;
    case CB_ALLTOALLV: op->stotal = (long long)p * m[r]; op->rtotal = sum; break;
    case CB_REDUCE_SCATTER_BLOCK: op->stotal = p * c; op->rtotal = c; break;
    default: return MPI_ERR_ARG;
    }
    if (op->stotal > 2147483647LL || op->rtotal > 2147483647LL)
        return MPI_ERR_COUNT;
    /* the send side stays private: validation needs its pattern */
    op->sbuf = alloc_ints(op->stotal, shared && op->stotal > 4096);
    op->rbuf = alloc_ints(op->rtotal, shared);
    fill(op->sbuf, op->stotal, r);
    return MPI_SUCCESS;
}

/* collx calls (the selected algorithm); ref = 1: the PMPI_ reference. */
static int call(cb_op *op, int root, int *rbuf, int ref)
{
    MPI_Comm comm = op->comm;
    int *s = op->sbuf, c = op->m[0], r = op->rank;
    MPI_Datatype T = MPI_INT;
    if (op->padded_g2) {
        /* Guideline (2): agree on the padded block size first */
        int mx;
        int rc = MPI_Allreduce(&op->local, &mx, 1, MPI_INT, MPI_MAX, comm);
        if (rc != MPI_SUCCESS)
            return rc;
        c = mx;
    }
    switch (op->coll) {
    case CB_GATHER:
        return ref ? PMPI_Gather(s, c, T, rbuf, c, T, root, comm)
                   : CX_Gather(s, c, T, rbuf, c, T, root, comm);
    case CB_GATHERV:
        return ref ? PMPI_Gatherv(s, op->m[r], T, rbuf, op->counts, op->displs, T, root, comm)
                   : CX_Gatherv(s, op->m[r], T, rbuf, op->counts, op->displs, T, root, comm);
    case CB_SCATTER:
        return ref ? PMPI_Scatter(s, c, T, rbuf, c, T, root, comm)
                   : CX_Scatter(s, c, T, rbuf, c, T, root, comm);
    case CB_SCATTERV:
        return ref ? PMPI_Scatterv(s, op->counts, op->displs, T, rbuf, op->m[r], T, root, comm)
                   : CX_Scatterv(s, op->counts, op->displs, T, rbuf, op->m[r], T, root, comm);
    case CB_BCAST:
        (void)rbuf; /* in place in sbuf */
        return ref ? PMPI_Bcast(s, c, T, root, comm) : CX_Bcast(s, c, T, root, comm);
    case CB_ALLGATHER:
        return ref ? PMPI_Allgather(s, c, T, rbuf, c, T, comm)
                   : CX_Allgather(s, c, T, rbuf, c, T, comm);
    case CB_ALLGATHERV:
        return ref ? PMPI_Allgatherv(s, op->m[r], T, rbuf, op->counts, op->displs, T, comm)
                   : CX_Allgatherv(s, op->m[r], T, rbuf, op->counts, op->displs, T, comm);
    case CB_ALLTOALLV:
        return ref ? PMPI_Alltoallv(s, op->scounts, op->sdispls, T, rbuf,
                                    op->counts, op->displs, T, comm)
                   : CX_Alltoallv(s, op->scounts, op->sdispls, T, rbuf,
                                  op->counts, op->displs, T, comm);
    case CB_REDUCE_SCATTER_BLOCK:
        return ref ? PMPI_Reduce_scatter_block(s, rbuf, c, T, MPI_SUM, comm)
                   : CX_Reduce_scatter_block(s, rbuf, c, T, MPI_SUM, comm);
    default:
        return MPI_ERR_ARG;
    }
}

int cb_op_run(cb_op *op, int root) { return call(op, root, op->rbuf, 0); }

int cb_op_validate(cb_op *op, int root)
{
    int ok = 1;
    long long n = op->rtotal;
    int *mine, *ref;
    if (op->coll == CB_BCAST) {
        /* in place: non-roots must end with the root's pattern */
        n = op->m[0];
        if (op->rank == root)
            fill(op->sbuf, n, root);
        else
            memset(op->sbuf, 0, sizeof(int) * (size_t)n);
        if (call(op, root, op->rbuf, 0) != MPI_SUCCESS)
            ok = 0;
        mine = op->sbuf;
        ref = alloc_ints(n, 0);
        fill(ref, n, root);
    } else {
        mine = alloc_ints(n, 0);
        ref = alloc_ints(n, 0);
        fill(op->sbuf, op->stotal, op->rank);
        if (call(op, root, mine, 0) != MPI_SUCCESS ||
            call(op, root, ref, 1) != MPI_SUCCESS)
            ok = 0;
    }
    /* non-roots of rooted gathers have no result to compare */
    int has_result = !((op->coll == CB_GATHER || op->coll == CB_GATHERV) &&
                       op->rank != root);
    if (ok && has_result && n > 0 && memcmp(mine, ref, sizeof(int) * (size_t)n))
        ok = 0;
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, op->comm);
    if (op->coll != CB_BCAST)
        free(mine);
    free(ref);
    return all;
}

void cb_op_free(cb_op *op)
{
    free_ints(op->sbuf, op->shared && op->stotal > 4096);
    free_ints(op->rbuf, op->shared);
    free(op->counts);
    free(op->displs);
    free(op->scounts);
    free(op->sdispls);
    memset(op, 0, sizeof *op);
}
