/* One contract case: a collective call's arguments and its input buffers.
 * The collectives and their parameters come from collx_colls.h. */
#ifndef CASES_H
#define CASES_H

#include "collx.h"
#include "collx_colls.h"
#include "contract.h"

/* C_BARRIER, C_BCAST, ...: the collectives of collx_colls.h, in its order. */
enum {
#define C_ENUM(E, N, l) C_##E,
    CX_COLLECTIVES(C_ENUM)
#undef C_ENUM
    C_NCOLL
};

/* One bit per parameter field of CX_PARAMS_<UPPER>: what a collective has
 * decides which dimensions the test runs (roots, layouts, ops, in place). */
enum {
    F_sbuf = 1 << 0, F_scount = 1 << 1, F_scounts = 1 << 2, F_sdispls = 1 << 3,
    F_stype = 1 << 4, F_stypes = 1 << 5, F_rbuf = 1 << 6, F_rcount = 1 << 7,
    F_rcounts = 1 << 8, F_rdispls = 1 << 9, F_rtype = 1 << 10, F_rtypes = 1 << 11,
    F_op = 1 << 12, F_root = 1 << 13, F_comm = 1 << 14
};

enum { LAYOUT_ASC, LAYOUT_REV_GAPS };
/* MODE_MPI: the MPI's MPI_I<name> (collx's through the interposer),
 * completed by the completion call c->by (mpi_complete.h). MODE_PERSIST:
 * CX_<Name>_init, started twice (CX_Start + CX_Wait; the receive buffer
 * back to its initial bytes between the starts), then freed; the second
 * start's result is the call's. MODE_MPI_PERSIST: the same with the MPI's
 * persistent collectives (MPI-4 MPI_<Name>_init, Open MPI's
 * MPIX_<Name>_init), MPI_Start and the completion call c->by. */
enum { MODE_BLOCKING, MODE_WAIT, MODE_TEST, MODE_MPI, MODE_PERSIST, MODE_MPI_PERSIST };
/* Whether this MPI has persistent collectives (MODE_MPI_PERSIST). */
int mpi_has_persistent(void);
/* Who runs a call: the MPI library's PMPI_<Name>, collx, the MPI
 * library's nonblocking PMPI_I<name> + MPI_Wait, or PMPI_<Name> at
 * MPI_BOTTOM as c->bottom says (RUN_PMPI never is). */
enum { RUN_PMPI, RUN_CX, RUN_PMPI_NB, RUN_PMPI_BOTTOM };

typedef struct call {
    int coll, root, layout, in_place;
    int rank, size;
    const tcase *tc;      /* datatype case (collectives without an op) */
    int tci;              /* its index */
    const rcase *rc;      /* reduction case (collectives with an op) */
    int struct_ok;        /* the MPI is a valid reference for this count with
                           * the struct type (see struct_large_broken) */
    int bottom;           /* collx (not the reference) gets MPI_BOTTOM and
                           * datatypes holding the buffers' absolute addresses */
    int salt;             /* varies the values and v-block sizes (sequences) */
    struct bottom_view *view;   /* a started MPI_BOTTOM call's arguments */
    /* The MPI arguments, named as the fields of CX_PARAMS_<UPPER>; the
     * buffers are passed separately (invoke.c). */
    int scount, *scounts, *sdispls;
    MPI_Datatype stype, *stypes;
    int rcount, *rcounts, *rdispls;
    MPI_Datatype rtype, *rtypes;
    MPI_Op op;
    MPI_Comm comm;
    int s_in_place, r_in_place;   /* which buffer argument is MPI_IN_PLACE */
    tbuf sdata, ssave;            /* send input, and a copy to detect writes */
    tbuf rinit;                   /* receive buffer before the call */
    tbuf alt;                     /* in-place input as a separate send buffer
                                   * (for a reference MPI that crashes in place) */
    size_t rkeep;                 /* data bytes of rbuf defined after the call */
    int late;                     /* rank that enters late (-1: none) */
    double t_enter, t_exit;       /* this rank's last call (CLOCK_MONOTONIC) */
    int by;                       /* MODE_MPI's completion call (BY_*) */
} call;

extern const char *const coll_names[C_NCOLL];
/* The C_* of a collective's name, -1 if none. */
int coll_index(const char *name);
/* Whether name is in the comma-separated list (NULL: everything is; see
 * invoke.c for "!prefix"). */
int in_list(const char *list, const char *name);
/* Prints " alg1 alg2 ..." of coll's algorithms in list. */
void print_algorithms(int coll, const char *list);
extern const unsigned coll_fields[C_NCOLL];
static inline int coll_has(int coll, unsigned fields)
{
    return (coll_fields[coll] & fields) != 0;
}

/* Fills c's arguments and buffers (c->coll, root, layout, in_place, rank,
 * size, comm, tc or rc, struct_ok set by the caller) for element count n.
 * Every collective has its setup_<lower>(c, n, salt) (setup.h). */
void call_setup(call *c, int n);
void call_free(call *c);

/* Runs the call with receive buffer rdata: by = RUN_*, mode = MODE_* (for
 * RUN_CX: CX_<Name>, or CX_I<name> + CX_Wait or CX_Test polling). */
int call_run(call *c, int by, int mode, char *rdata);
/* After call_run in MODE_MPI returned MPI_ERR_OTHER: what the completion
 * call got wrong ("" if nothing). */
const char *call_mpi_why(void);
/* Starts CX_I<name> of c (into rdata) and leaves it in flight: *q is for
 * CX_Wait / CX_Test; call_free releases what an MPI_BOTTOM call keeps
 * (its datatypes: after every call started since, absolute_release). */
int call_start(call *c, char *rdata, CX_Request *q);
void call_forget_view(call *c);
/* The same through MPI_I<name> (the interposer's when preloaded). */
int call_start_mpi(call *c, char *rdata, MPI_Request *q);
/* The persistent call of c into rdata (CX_<Name>_init, or the MPI's
 * MPI_<Name>_init / MPIX_<Name>_init): *q for CX_Start / MPI_Start. */
int call_init(call *c, char *rdata, CX_Request *q);
int call_init_mpi(call *c, char *rdata, MPI_Request *q);

#endif
