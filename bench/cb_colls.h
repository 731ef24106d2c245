/* One benchmarked operation: a collective (through collx, so the algorithm
 * chosen with CX_Algorithm_set runs), its buffers, and its validation. The
 * collectives are those of include/collx_colls.h. */
#ifndef CB_COLLS_H
#define CB_COLLS_H

#include <mpi.h>
#include "collx.h"

typedef enum {
#define CB_ENUM(E, N, n) CB_##E,
    CX_COLLECTIVES(CB_ENUM)
#undef CB_ENUM
    CB_NCOLL
} cb_coll;

int cb_coll_from_name(const char *name); /* -1 if unknown */
const char *cb_coll_name(cb_coll c);

typedef struct {
    cb_coll coll;
    int padded_g2;       /* Guideline (2): MPI_Allreduce(1 int, MAX) first */
    MPI_Comm comm;
    int rank, p;
    const int *m;        /* block sizes (MPI_INT) of every rank */
    int local;           /* this rank's true block (the allreduce input) */
    int *counts, *displs;    /* v-side counts and displacements */
    int *scounts, *sdispls;  /* alltoallv send side */
    int *sbytes, *rbytes;    /* alltoallw displacements (bytes) */
    MPI_Datatype *types;     /* alltoallw: MPI_INT everywhere */
    int *sbuf, *rbuf;
    long long stotal, rtotal;
    int shared;          /* buffers from SMPI_SHARED_MALLOC */
} cb_op;

/* m: p block sizes. Regular collectives use m[0] on every rank (the caller
 * passes equal sizes). any_root: every rank may be root (allocate the
 * root-side buffers everywhere). shared: SMPI only, contents not needed. */
int cb_op_setup(cb_op *op, cb_coll coll, const int *m, int local,
                int padded_g2, MPI_Comm comm, int root, int any_root,
                int shared);
int cb_op_run(cb_op *op, int root);
/* The same as CX_I<coll> (started into *req) and as CX_<Coll>_init. */
int cb_op_start(cb_op *op, int root, CX_Request *req);
int cb_op_init(cb_op *op, int root, CX_Request *req);
/* Runs once more and compares with the PMPI_ result. Collective; returns
 * 1 if every rank got the same data as PMPI_, 0 otherwise. */
int cb_op_validate(cb_op *op, int root);
void cb_op_free(cb_op *op);

#endif
