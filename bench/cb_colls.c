#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "collx.h"
#include "cb_colls.h"

static const char *const names[CB_NCOLL] = {
#define CB_NAME(E, N, n) #n,
    CX_COLLECTIVES(CB_NAME)
#undef CB_NAME
};

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
    op->counts = malloc(sizeof(int) * (size_t)p * 6);
    op->displs = op->counts + p;
    op->scounts = op->counts + 2 * p;
    op->sdispls = op->counts + 3 * p;
    op->sbytes = op->counts + 4 * p;
    op->rbytes = op->counts + 5 * p;
    op->types = malloc(sizeof(MPI_Datatype) * (size_t)p);
    for (int i = 0; i < p; i++) {
        op->counts[i] = m[i];
        op->displs[i] = (int)sum;
        op->rbytes[i] = (int)(sum * sizeof(int));
        sum += m[i];
        op->scounts[i] = m[r];
        op->sdispls[i] = i * m[r];
        op->sbytes[i] = (int)(i * m[r] * sizeof(int));
        op->types[i] = MPI_INT;
    }
    long long c = m[0];
    /* Elements of the send and receive buffers (one layout per
     * collective: the list's entries differ in meaning, not only shape). */
    switch (coll) {
    case CB_BARRIER: op->stotal = 0; op->rtotal = 0; break;
    case CB_BCAST: op->stotal = c; op->rtotal = 0; break;
    case CB_GATHER: op->stotal = c; op->rtotal = is_root ? p * c : 0; break;
    case CB_GATHERV: op->stotal = m[r]; op->rtotal = is_root ? sum : 0; break;
    case CB_SCATTER: op->stotal = is_root ? p * c : 0; op->rtotal = c; break;
    case CB_SCATTERV: op->stotal = is_root ? sum : 0; op->rtotal = m[r]; break;
    case CB_ALLGATHER: op->stotal = c; op->rtotal = p * c; break;
    case CB_ALLGATHERV: op->stotal = m[r]; op->rtotal = sum; break;
    case CB_ALLTOALL: op->stotal = p * c; op->rtotal = p * c; break;
    case CB_ALLTOALLV: case CB_ALLTOALLW:
        op->stotal = (long long)p * m[r]; op->rtotal = sum; break;
    case CB_REDUCE: op->stotal = c; op->rtotal = is_root ? c : 0; break;
    case CB_ALLREDUCE: case CB_SCAN: case CB_EXSCAN: op->stotal = c; op->rtotal = c; break;
    case CB_REDUCE_SCATTER: op->stotal = sum; op->rtotal = m[r]; break;
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

/* Every call below comes from the list, with CX_Call's fields. */
typedef CX_Call cb_args;

#define CB_ARG(kind, name, field) , x->field
static int call_collx(cb_coll c, const cb_args *x)
{
    switch (c) {
#define CB_CASE(E, N, n) case CB_##E: return CX_##N(CX_DROP_FIRST(CX_PARAMS_##E(CB_ARG)));
    CX_COLLECTIVES(CB_CASE)
#undef CB_CASE
    default: return MPI_ERR_ARG;
    }
}

static int start_collx(cb_coll c, const cb_args *x, CX_Request *req)
{
    switch (c) {
#define CB_CASE(E, N, n)                                                       \
    case CB_##E: return CX_I##n(CX_DROP_FIRST(CX_PARAMS_##E(CB_ARG)), req);
    CX_COLLECTIVES(CB_CASE)
#undef CB_CASE
    default: return MPI_ERR_ARG;
    }
}

static int init_collx(cb_coll c, const cb_args *x, CX_Request *req)
{
    switch (c) {
#define CB_CASE(E, N, n)                                                       \
    case CB_##E:                                                               \
        return CX_##N##_init(CX_DROP_FIRST(CX_PARAMS_##E(CB_ARG)), MPI_INFO_NULL, req);
    CX_COLLECTIVES(CB_CASE)
#undef CB_CASE
    default: return MPI_ERR_ARG;
    }
}

static int call_pmpi(cb_coll c, const cb_args *x)
{
    switch (c) {
#define CB_CASE(E, N, n) case CB_##E: return PMPI_##N(CX_DROP_FIRST(CX_PARAMS_##E(CB_ARG)));
    CX_COLLECTIVES(CB_CASE)
#undef CB_CASE
    default: return MPI_ERR_ARG;
    }
}

/* Arguments of op's collective: v-collectives and reduce_scatter get the
 * block sizes m[], alltoallv sends m[me] to everyone, alltoallw does the
 * same with byte displacements; regular ones use c per rank. */
static cb_args args_of(const cb_op *op, int root, int *rbuf, int c)
{
    int r = op->rank, v = op->coll == CB_GATHERV || op->coll == CB_SCATTERV ||
                          op->coll == CB_ALLGATHERV;
    cb_args x = {.sbuf = op->sbuf, .scount = v ? op->m[r] : c, .stype = MPI_INT,
                 .rbuf = rbuf, .rcount = v ? op->m[r] : c, .rtype = MPI_INT,
                 .rcounts = op->counts, .rdispls = op->displs, .op = MPI_SUM,
                 .root = root, .comm = op->comm};
    switch (op->coll) {
    case CB_SCATTERV:
        x.scounts = op->counts;
        x.sdispls = op->displs;
        break;
    case CB_ALLTOALLV:
        x.scounts = op->scounts;
        x.sdispls = op->sdispls;
        break;
    case CB_ALLTOALLW:
        x.scounts = op->scounts;
        x.sdispls = op->sbytes;
        x.rdispls = op->rbytes;
        x.stypes = x.rtypes = op->types;
        break;
    case CB_BCAST:
        x.rbuf = op->sbuf;   /* in place in sbuf */
        break;
    default:
        break;
    }
    return x;
}

/* collx calls (the selected algorithm); ref = 1: the PMPI_ reference. */
static int call(cb_op *op, int root, int *rbuf, int ref)
{
    int c = op->m[0];
    if (op->padded_g2) {
        /* Guideline (2): agree on the padded block size first */
        int mx;
        int rc = MPI_Allreduce(&op->local, &mx, 1, MPI_INT, MPI_MAX, op->comm);
        if (rc != MPI_SUCCESS)
            return rc;
        c = mx;
    }
    cb_args x = args_of(op, root, rbuf, c);
    return ref ? call_pmpi(op->coll, &x) : call_collx(op->coll, &x);
}

int cb_op_run(cb_op *op, int root) { return call(op, root, op->rbuf, 0); }

int cb_op_start(cb_op *op, int root, CX_Request *req)
{
    cb_args x = args_of(op, root, op->rbuf, op->m[0]);
    return start_collx(op->coll, &x, req);
}

int cb_op_init(cb_op *op, int root, CX_Request *req)
{
    cb_args x = args_of(op, root, op->rbuf, op->m[0]);
    return init_collx(op->coll, &x, req);
}

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
    /* non-roots of gathers and reduce, rank 0 of exscan: no result */
    int has_result = !((op->coll == CB_GATHER || op->coll == CB_GATHERV ||
                        op->coll == CB_REDUCE) && op->rank != root) &&
                     !(op->coll == CB_EXSCAN && op->rank == 0);
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
    free(op->types);
    memset(op, 0, sizeof *op);
}
