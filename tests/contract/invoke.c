/* Calls a collective the PMPI_ way or the collx way (CX_ / CX_I + wait or
 * test polling) with the arguments of a contract case. Every call is
 * generated from collx_colls.h: the parameter P(kind, name, field) is the
 * buffer for the buffer kinds and c->field otherwise. */
#define _POSIX_C_SOURCE 200809L  /* clock_gettime, nanosleep */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "collx.h"
#include "mpi_complete.h"
#include "setup.h"
#if defined(OPEN_MPI) && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif
#if MPI_VERSION >= 4   /* MPICH 4-5, Intel MPI, the MPI 5 ABI (mpi_abi.h) */
#define PERSISTENT_INIT(N) MPI_##N##_init
#elif defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5  /* MPI_VERSION 3 */
#define PERSISTENT_INIT(N) MPI_##N##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define PERSISTENT_INIT(N) MPIX_##N##_init
#endif

const char *const coll_names[C_NCOLL] = {
#define NAME(E, N, l) #l,
    CX_COLLECTIVES(NAME)
#undef NAME
};

int coll_index(const char *name)
{
    for (int i = 0; i < C_NCOLL; i++)
        if (strcmp(name, coll_names[i]) == 0)
            return i;
    return -1;
}

/* --algs LIST: names (exact), and "!prefix" entries that leave out every
 * name so prefixed ("!rma_": all but the rma family's); no names: all. */
int in_list(const char *list, const char *name)
{
    if (!list)
        return 1;
    int named = 0, hit = 0;
    size_t n = strlen(name);
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        size_t len = strcspn(p, ",");
        if (*p == '!') {
            if (len - 1 <= n && strncmp(p + 1, name, len - 1) == 0)
                return 0;
        } else {
            named = 1;
            hit |= len == n && strncmp(p, name, n) == 0;
        }
    }
    return hit || !named;
}

void print_algorithms(int coll, const char *list)
{
    for (int i = 0; i < CX_Algorithm_count(coll_names[coll]); i++)
        if (in_list(list, CX_Algorithm_name(coll_names[coll], i)))
            printf(" %s", CX_Algorithm_name(coll_names[coll], i));
}

#define FIELD_BIT(kind, name, field) | F_##field
const unsigned coll_fields[C_NCOLL] = {
#define FIELDS(E, N, l) [C_##E] = 0u CX_PARAMS_##E(FIELD_BIT),
    CX_COLLECTIVES(FIELDS)
#undef FIELDS
};

#define A_SBUF(f) s
#define A_RBUF(f) r
#define A_INT(f) c->f
#define A_INTS(f) c->f
#define A_TYPE(f) c->f
#define A_TYPES(f) c->f
#define A_OP(f) c->f
#define A_COMM(f) c->f
#define ARG(kind, name, field) , A_##kind(field)
#define ARGS(E) CX_DROP_FIRST(CX_PARAMS_##E(ARG))

static int native(const call *c, const void *s, void *r)
{
    switch (c->coll) {
#define NATIVE(E, N, l) case C_##E: return PMPI_##N(ARGS(E));
        CX_COLLECTIVES(NATIVE)
#undef NATIVE
    }
    return MPI_ERR_INTERN;
}

static int native_nb(const call *c, const void *s, void *r)
{
    MPI_Request q = MPI_REQUEST_NULL;
    int err = MPI_ERR_INTERN;
    switch (c->coll) {
#define NATIVE_NB(E, N, l) case C_##E: err = PMPI_I##l(ARGS(E), &q); break;
        CX_COLLECTIVES(NATIVE_NB)
#undef NATIVE_NB
    }
    return err ? err : PMPI_Wait(&q, MPI_STATUS_IGNORE);
}

static int blocking(const call *c, const void *s, void *r)
{
    switch (c->coll) {
#define BLOCKING(E, N, l) case C_##E: return CX_##N(ARGS(E));
        CX_COLLECTIVES(BLOCKING)
#undef BLOCKING
    }
    return MPI_ERR_INTERN;
}

static int start(const call *c, const void *s, void *r, CX_Request *q)
{
    switch (c->coll) {
#define START(E, N, l) case C_##E: return CX_I##l(ARGS(E), q);
        CX_COLLECTIVES(START)
#undef START
    }
    return MPI_ERR_INTERN;
}

static char mpi_why[200];

const char *call_mpi_why(void) { return mpi_why; }

static int start_mpi(const call *c, const void *s, void *r, MPI_Request *q)
{
    switch (c->coll) {
#define START_MPI(E, N, l) case C_##E: return MPI_I##l(ARGS(E), q);
        CX_COLLECTIVES(START_MPI)
#undef START_MPI
    }
    return MPI_ERR_INTERN;
}

static int init_cx(const call *c, const void *s, void *r, CX_Request *q)
{
    switch (c->coll) {
#define INIT_CX(E, N, l) case C_##E: return CX_##N##_init(ARGS(E), MPI_INFO_NULL, q);
        CX_COLLECTIVES(INIT_CX)
#undef INIT_CX
    }
    return MPI_ERR_INTERN;
}

#ifdef PERSISTENT_INIT
int mpi_has_persistent(void) { return 1; }

static int init_mpi(const call *c, const void *s, void *r, MPI_Request *q)
{
    switch (c->coll) {
#define INIT_MPI(E, N, l) case C_##E: return PERSISTENT_INIT(N)(ARGS(E), MPI_INFO_NULL, q);
        CX_COLLECTIVES(INIT_MPI)
#undef INIT_MPI
    }
    return MPI_ERR_INTERN;
}
#else
int mpi_has_persistent(void) { return 0; }

static int init_mpi(const call *c, const void *s, void *r, MPI_Request *q)
{
    (void)c, (void)s, (void)r, (void)q;
    return MPI_ERR_INTERN;
}
#endif

/* Between the two starts of a persistent call: the receive buffer as
 * before the call (call_run sets it). */
static struct {
    char *rdata;
    const tbuf *rinit;
} restart;

static void restore_rbuf(void)
{
    memcpy(restart.rdata - GUARD, restart.rinit->base, restart.rinit->bytes + 2 * GUARD);
}

static int persistent_cx(const call *c, const void *s, void *r)
{
    CX_Request q = CX_REQUEST_NULL;
    int err = init_cx(c, s, r, &q);
    for (int k = 0; k < 2 && !err; k++) {
        if (k)
            restore_rbuf();
        if (!(err = CX_Start(&q)))
            err = CX_Wait(&q);
        if (!err && q == CX_REQUEST_NULL)
            err = MPI_ERR_REQUEST;   /* a persistent request stays */
    }
    int ferr = q != CX_REQUEST_NULL ? CX_Request_free(&q) : MPI_SUCCESS;
    return err ? err : ferr;
}

static int persistent_mpi(const call *c, const void *s, void *r)
{
    MPI_Request q = MPI_REQUEST_NULL;
    int err = init_mpi(c, s, r, &q);
    for (int k = 0; k < 2 && !err; k++) {
        if (k)
            restore_rbuf();
        if (!(err = MPI_Start(&q)))
            err = mpi_complete(&q, c->by, 1, c->comm, mpi_why, sizeof mpi_why);
    }
    int ferr = q != MPI_REQUEST_NULL ? MPI_Request_free(&q) : MPI_SUCCESS;
    return err ? err : ferr;
}

/* The same call at MPI_BOTTOM: each buffer's address moves into its
 * datatypes (alltoallw: each block's, displacement 0, as bindings that
 * describe scattered memory do). A reduction has one datatype, so only
 * one buffer can move: in place the receive buffer, else the send buffer
 * (a reduce's non-root, whose receive buffer is not significant). The
 * view owns copies of the per-block arrays: a started call reads them
 * until it completes. */
struct bottom_view {
    call b;
    MPI_Datatype *st, *rt;
    int *zeros;
};

static MPI_Datatype *copy_types(const call *c, const MPI_Datatype *t)
{
    MPI_Datatype *n = types(c);
    memcpy(n, t, sizeof *n * (size_t)c->size);
    return n;
}

static struct bottom_view *make_view(const call *c, const void **s, void **r)
{
    struct bottom_view *v = calloc(1, sizeof *v);
    if (!v)
        MPI_Abort(MPI_COMM_WORLD, 3);
    call *b = &v->b;
    *b = *c;
    b->bottom = 0;
    b->view = NULL;
    int p = b->size;
    const char *sb = *s, *rb = *r;
    int s_moves = sb != MPI_IN_PLACE, r_moves = rb != MPI_IN_PLACE;
    if (coll_has(b->coll, F_op)) {
        b->rtype = absolute_type(b->rtype, s_moves ? sb : rb);
    } else {
        if (s_moves && coll_has(b->coll, F_stype))
            b->stype = absolute_type(b->stype, sb);
        if (r_moves && coll_has(b->coll, F_rtype))
            b->rtype = absolute_type(b->rtype, rb);
    }
    if (coll_has(b->coll, F_stypes)) {
        b->stypes = v->st = copy_types(c, c->stypes);
        b->rtypes = v->rt = copy_types(c, c->rtypes);
        v->zeros = ints(c);
        for (int i = 0; s_moves && i < p; i++)
            b->stypes[i] = absolute_type(b->stypes[i], sb + b->sdispls[i]);
        for (int i = 0; r_moves && i < p; i++)
            b->rtypes[i] = absolute_type(b->rtypes[i], rb + b->rdispls[i]);
        b->sdispls = s_moves ? v->zeros : b->sdispls;
        b->rdispls = r_moves ? v->zeros : b->rdispls;
    }
    if (s_moves)
        *s = MPI_BOTTOM;
    if (r_moves)
        *r = MPI_BOTTOM;
    return v;
}

static void free_view(struct bottom_view *v)
{
    if (!v)
        return;
    free(v->st);
    free(v->rt);
    free(v->zeros);
    free(v);
}

void call_forget_view(call *c)
{
    free_view(c->view);
    c->view = NULL;
}

static int run(const call *c, int by, int mode, const void *s, void *r);

/* c->bottom: collx (and the MPI's own nonblocking call, when the test
 * compares with it) gets the call at MPI_BOTTOM; the reference does not. */
static int run_bottom(const call *c, int by, int mode, const void *s, void *r)
{
    int mark = absolute_mark();
    struct bottom_view *v = make_view(c, &s, &r);
    int err = run(&v->b, by, mode, s, r);
    free_view(v);
    absolute_release(mark);
    return err;
}

static int run(const call *c, int by, int mode, const void *s, void *r)
{
    if (c->bottom && by != RUN_PMPI)
        return run_bottom(c, by, mode, s, r);
    if (by == RUN_PMPI || by == RUN_PMPI_BOTTOM)
        return native(c, s, r);
    if (by == RUN_PMPI_NB)
        return native_nb(c, s, r);
    if (mode == MODE_BLOCKING)
        return blocking(c, s, r);
    if (mode == MODE_PERSIST)
        return persistent_cx(c, s, r);
    if (mode == MODE_MPI_PERSIST) {
        mpi_why[0] = '\0';
        return persistent_mpi(c, s, r);
    }
    if (mode == MODE_MPI) {
        MPI_Request m = MPI_REQUEST_NULL;
        int err = start_mpi(c, s, r, &m);
        mpi_why[0] = '\0';
        return err ? err : mpi_complete(&m, c->by, 0, c->comm, mpi_why, sizeof mpi_why);
    }
    CX_Request q = CX_REQUEST_NULL;
    int err = start(c, s, r, &q), flag = 0;
    if (err)
        return err;
    if (mode == MODE_WAIT)
        return CX_Wait(&q);
    /* Poll politely: the test runs oversubscribed. */
    while (!err && !(err = CX_Test(&q, &flag)) && !flag)
        sched_yield();
    if (!err && q != CX_REQUEST_NULL)
        return MPI_ERR_REQUEST;  /* a completed request must be released */
    return err;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The arguments of c into rdata as collx gets them: *s and *r, and c's
 * view when the call is at MPI_BOTTOM (kept until call_forget_view). */
static const call *as_called(call *c, char *rdata, const void **s, void **r)
{
    *s = c->s_in_place ? MPI_IN_PLACE : c->sdata.data;
    *r = c->r_in_place ? MPI_IN_PLACE : rdata;
    if (!c->bottom)
        return c;
    call_forget_view(c);
    c->view = make_view(c, s, r);
    return &c->view->b;
}

int call_start(call *c, char *rdata, CX_Request *q)
{
    const void *s;
    void *r;
    const call *b = as_called(c, rdata, &s, &r);
    return start(b, s, r, q);
}

int call_start_mpi(call *c, char *rdata, MPI_Request *q)
{
    const void *s;
    void *r;
    const call *b = as_called(c, rdata, &s, &r);
    return start_mpi(b, s, r, q);
}

int call_init(call *c, char *rdata, CX_Request *q)
{
    const void *s;
    void *r;
    const call *b = as_called(c, rdata, &s, &r);
    return init_cx(b, s, r, q);
}

int call_init_mpi(call *c, char *rdata, MPI_Request *q)
{
    const void *s;
    void *r;
    const call *b = as_called(c, rdata, &s, &r);
    return init_mpi(b, s, r, q);
}

int call_run(call *c, int by, int mode, char *rdata)
{
    const void *s = c->s_in_place ? MPI_IN_PLACE : c->sdata.data;
    void *r = c->r_in_place ? MPI_IN_PLACE : rdata;
    if (c->late == c->rank) {   /* the others must wait for this rank */
        struct timespec d = {0, 5000000};
        nanosleep(&d, NULL);
    }
    c->t_enter = now();
    restart.rdata = rdata;
    restart.rinit = &c->rinit;
    int err = run(c, by, mode, s, r);
    c->t_exit = now();
    return err;
}
