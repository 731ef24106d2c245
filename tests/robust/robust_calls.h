/* Self-checking collective calls (robust_calls.c), shared by the large
 * and thread tests. */
#ifndef ROBUST_CALLS_H
#define ROBUST_CALLS_H

#include "collx.h"

#define MIB ((MPI_Aint)1 << 20)
#define SPAN_LONGS 64   /* int64 of data at the start of a span element */

/* An element type: dense (data = extent) or sparse (data bytes at the
 * start of each extent); sum = an MPI_Op adding the int64 data. */
typedef struct {
    const char *name;
    MPI_Datatype t;
    MPI_Aint ext;
    size_t data;
    int sparse;
    MPI_Op sum;
} etype;

/* MPI_CHAR; MPI_LONG (MPI_SUM); 1 MiB of MPI_CHAR; SPAN_LONGS int64 in a
 * 1 MiB extent (a user-defined sum). */
extern etype t_char, t_long, t_mib, t_span;
void rc_make_types(void);   /* after MPI_Init, before any thread */
void rc_free_types(void);   /* before MPI_Finalize */

typedef struct {
    const char *coll;   /* collx name: "gather", ..., "barrier" */
    const etype *e;
    MPI_Aint count;     /* elements per block (per rank; v: the mean) */
    int root, salt;
    MPI_Comm comm;
    int nb;             /* 0 blocking, 1 CX_I + CX_Wait, 2 CX_I + CX_Test */
    /* out */
    long long bad;      /* first wrong byte (or int64 index) here, -1: right */
    char where[80];     /* which block */
    int rank, size;
    CX_Request req;
} call;

/* Runs c->coll once with the pattern of c->salt and checks what this rank
 * received. Returns the MPI error of the call. */
int rc_run(call *c);
/* malloc of count elements of e (pages of a sparse buffer never written
 * are never allocated); aborts when there is no memory. */
char *rc_alloc(const etype *e, MPI_Aint count);

#endif
