/* One contract case: a collective call's arguments and its input buffers. */
#ifndef CASES_H
#define CASES_H

#include "contract.h"

enum { C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV, C_BCAST, C_ALLGATHER,
       C_ALLGATHERV, C_ALLTOALLV, C_REDUCE_SCATTER_BLOCK, C_NCOLL };

enum { LAYOUT_ASC, LAYOUT_REV_GAPS };
enum { MODE_BLOCKING, MODE_WAIT, MODE_TEST };

typedef struct call {
    int coll, root, layout, in_place;
    int rank, size;
    MPI_Comm comm;
    int scount, *scounts, *sdispls;
    MPI_Datatype stype;
    int rcount, *rcounts, *rdispls;
    MPI_Datatype rtype;
    MPI_Op op;
    int s_in_place, r_in_place;   /* which buffer argument is MPI_IN_PLACE */
    tbuf sbuf, ssave;             /* send input, and a copy to detect writes */
    tbuf rinit;                   /* receive buffer before the call */
    size_t rkeep;                 /* data bytes of rbuf defined after the call */
} call;

extern const char *const coll_names[C_NCOLL];
int coll_is_rooted(int coll);
int coll_is_v(int coll);
int coll_has_nb(int coll);

/* Fills c's arguments and buffers (c->coll, root, layout, in_place, rank,
 * size, comm set by the caller) for element count n of case tc. */
void call_setup(call *c, const tcase *tc, int n);
void call_free(call *c);

/* Runs the call with receive buffer rdata: native PMPI_ (cx = 0), or the
 * collx call (cx = 1) blocking or nonblocking (mode). */
int call_run(const call *c, int cx, int mode, char *rdata);

#endif
