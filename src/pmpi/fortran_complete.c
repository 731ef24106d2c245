/* Fortran completion calls where the MPI's own go straight to PMPI_ and
 * would never reach complete.c: Open MPI's (mpif.h, `use mpi`, `use
 * mpi_f08`) and MPICH's `use mpi_f08` ones (its mpif.h and `use mpi`
 * bindings call MPI_Wait... and need none of this). A program that waits
 * on collx's generalized requests from Fortran must move collx's
 * schedules on there too. Each converts the requests, calls the C call of
 * complete.c and converts back (requests, 1-based indices, statuses,
 * LOGICAL flags), as the MPI's own bindings do; MPI_START, MPI_STARTALL and
 * MPI_REQUEST_FREE too, which must reach persistent.c. Statuses: Open MPI's are
 * 6 integers in both bindings (MPI_Status_c2f), its MPI_STATUS(ES)_IGNORE
 * found at run time (dlsym, as fortran.c finds MPI_IN_PLACE); MPICH's
 * mpi_f08 ones are MPI_F08_status (MPI_Status_c2f08, MPI-4's
 * MPI_F08_STATUS(ES)_IGNORE). SMPI's (libsimgrid's mpi_wait_ ...) call
 * SimGrid's own MPI_Wait, never the program's (fortran.c says why): the
 * SMPI interposer defines them too; its statuses are 5 integers, the C
 * MPI_Status as it is, MPI_STATUS(ES)_IGNORE libsimgrid's
 * mpi_status(es)_ignore_. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <mpi.h>

#if defined(OPEN_MPI) || defined(MPICH) || defined(SMPI_H)

#define F_TRUE 1   /* gfortran's .TRUE. */
#define INLINE_REQS 32

#if defined(OPEN_MPI) || defined(SMPI_H)
#define F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#ifdef OPEN_MPI
_Static_assert(sizeof(MPI_Status) == 6 * sizeof(MPI_Fint),
               "Open MPI's Fortran MPI_STATUS_SIZE is 6");
#else
_Static_assert(sizeof(MPI_Status) == 5 * sizeof(MPI_Fint),
               "SMPI's Fortran MPI_STATUS_SIZE (mpif.h) is 5");
#endif

static struct {
    int n_one, n_many;
    const void *one[5], *many[5];
} ign;
static pthread_once_t ign_once = PTHREAD_ONCE_INIT;

static int find_all(const char *const names[4], const void *known, const void *found[5])
{
    int n = 0;
    if (known)
        found[n++] = known;
    for (int i = 0; i < 4 && names[i]; i++) {
        const void *p = dlsym(RTLD_DEFAULT, names[i]);
        if (p)
            found[n++] = p;
    }
    return n;
}

static void ign_find(void)
{
#ifdef SMPI_H
    static const char *const one[4] = {"mpi_status_ignore_"},
                             *const many[4] = {"mpi_statuses_ignore_"};
#else
    static const char *const one[4] = {"mpi_fortran_status_ignore_", "mpi_fortran_status_ignore",
                                       "mpi_fortran_status_ignore__",
                                       "MPI_FORTRAN_STATUS_IGNORE"};
    static const char *const many[4] = {"mpi_fortran_statuses_ignore_",
                                        "mpi_fortran_statuses_ignore",
                                        "mpi_fortran_statuses_ignore__",
                                        "MPI_FORTRAN_STATUSES_IGNORE"};
#endif
    ign.n_one = find_all(one, MPI_F_STATUS_IGNORE, ign.one);
    ign.n_many = find_all(many, MPI_F_STATUSES_IGNORE, ign.many);
}

static int ignored(const MPI_Fint *s, int many)
{
    pthread_once(&ign_once, ign_find);
    for (int i = 0; i < (many ? ign.n_many : ign.n_one); i++)
        if ((const void *)s == (many ? ign.many[i] : ign.one[i]))
            return 1;
    return 0;
}

static void status_c2f(const MPI_Status *c, MPI_Fint *f)
{
    PMPI_Status_c2f((MPI_Status *)c, f);   /* SMPI's takes no const */
}
#else /* MPICH, mpi_f08 */
#define F_STATUS_SIZE ((int)(sizeof(MPI_F08_status) / sizeof(MPI_Fint)))

static int ignored(const MPI_Fint *s, int many)
{
    return (const void *)s == (many ? (const void *)MPI_F08_STATUSES_IGNORE
                                    : (const void *)MPI_F08_STATUS_IGNORE);
}

static void status_c2f(const MPI_Status *c, MPI_Fint *f)
{
    PMPI_Status_c2f08(c, (MPI_F08_status *)(void *)f);
}
#endif

/* The C requests of a Fortran array (and room for statuses), inline
 * when small. */
typedef struct reqs {
    MPI_Request in[INLINE_REQS], *c;
    MPI_Status sin[INLINE_REQS], *st;
    int n;
} reqs;

static int reqs_get(reqs *r, int n, const MPI_Fint *f, int want_status)
{
    r->n = n;
    r->c = r->in;
    r->st = want_status ? r->sin : MPI_STATUSES_IGNORE;
    if (n > INLINE_REQS) {
        r->c = malloc(sizeof *r->c * (size_t)n);
        if (want_status)
            r->st = malloc(sizeof *r->st * (size_t)n);
        if (!r->c || (want_status && !r->st))
            return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < n; i++)
        r->c[i] = PMPI_Request_f2c(f[i]);
    return MPI_SUCCESS;
}

static void reqs_put(reqs *r, MPI_Fint *f)
{
    for (int i = 0; i < r->n; i++)
        f[i] = PMPI_Request_c2f(r->c[i]);
}

static void reqs_free(reqs *r)
{
    if (r->c != r->in)
        free(r->c);
    if (r->st != r->sin && r->st != MPI_STATUSES_IGNORE)
        free(r->st);
}

/* Whether a call's outputs are defined (MPI_ERR_IN_STATUS: per request). */
static int outputs(int err)
{
    return err == MPI_SUCCESS || err == MPI_ERR_IN_STATUS;
}

static void status_put(const MPI_Status *c, MPI_Fint *f)
{
    if (!ignored(f, 0))
        status_c2f(c, f);
}

/* The first n statuses (Waitsome: those of the completed requests). */
static void statuses_put(const reqs *r, int n, MPI_Fint *f)
{
    for (int i = 0; r->st != MPI_STATUSES_IGNORE && i < n; i++)
        status_c2f(&r->st[i], f + (size_t)i * F_STATUS_SIZE);
}

/* ---- the calls ---- */
static int f_wait(MPI_Fint *request, MPI_Fint *status)
{
    MPI_Request c = PMPI_Request_f2c(*request);
    MPI_Status st;
    int err = MPI_Wait(&c, ignored(status, 0) ? MPI_STATUS_IGNORE : &st);
    if (err == MPI_SUCCESS) {
        *request = PMPI_Request_c2f(c);
        status_put(&st, status);
    }
    return err;
}

static int f_test(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status)
{
    MPI_Request c = PMPI_Request_f2c(*request);
    MPI_Status st;
    int cflag = 0, err = MPI_Test(&c, &cflag, ignored(status, 0) ? MPI_STATUS_IGNORE : &st);
    if (err == MPI_SUCCESS) {
        *request = PMPI_Request_c2f(c);
        *flag = cflag ? F_TRUE : 0;
        if (cflag)
            status_put(&st, status);
    }
    return err;
}

static int f_request_get_status(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status)
{
    MPI_Status st;
    int cflag = 0, err = MPI_Request_get_status(PMPI_Request_f2c(*request), &cflag,
                                                ignored(status, 0) ? MPI_STATUS_IGNORE : &st);
    if (err == MPI_SUCCESS) {
        *flag = cflag ? F_TRUE : 0;
        if (cflag)
            status_put(&st, status);
    }
    return err;
}

static int f_waitall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses)
{
    reqs r;
    int err = reqs_get(&r, *count, requests, !ignored(statuses, 1));
    if (!err && outputs(err = MPI_Waitall(r.n, r.c, r.st))) {
        reqs_put(&r, requests);
        statuses_put(&r, r.n, statuses);
    }
    reqs_free(&r);
    return err;
}

static int f_testall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag,
                     MPI_Fint *statuses)
{
    reqs r;
    int cflag = 0, err = reqs_get(&r, *count, requests, !ignored(statuses, 1));
    if (!err && outputs(err = MPI_Testall(r.n, r.c, &cflag, r.st))) {
        reqs_put(&r, requests);
        *flag = cflag ? F_TRUE : 0;
        if (cflag)
            statuses_put(&r, r.n, statuses);
    }
    reqs_free(&r);
    return err;
}

static void index_put(int c_index, MPI_Fint *index)
{
    *index = c_index == MPI_UNDEFINED ? MPI_UNDEFINED : c_index + 1;
}

static int f_waitany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                     MPI_Fint *status)
{
    reqs r;
    MPI_Status st;
    int i = MPI_UNDEFINED, err = reqs_get(&r, *count, requests, 0);
    if (!err && (err = MPI_Waitany(r.n, r.c, &i,
                                   ignored(status, 0) ? MPI_STATUS_IGNORE : &st)) ==
                    MPI_SUCCESS) {
        reqs_put(&r, requests);
        index_put(i, index);
        if (i != MPI_UNDEFINED)
            status_put(&st, status);
    }
    reqs_free(&r);
    return err;
}

static int f_testany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
                     MPI_Fint *status)
{
    reqs r;
    MPI_Status st;
    int i = MPI_UNDEFINED, cflag = 0, err = reqs_get(&r, *count, requests, 0);
    if (!err && (err = MPI_Testany(r.n, r.c, &i, &cflag,
                                   ignored(status, 0) ? MPI_STATUS_IGNORE : &st)) ==
                    MPI_SUCCESS) {
        reqs_put(&r, requests);
        index_put(i, index);
        *flag = cflag ? F_TRUE : 0;
        if (cflag && i != MPI_UNDEFINED)
            status_put(&st, status);
    }
    reqs_free(&r);
    return err;
}

/* Waitsome and Testsome: outcount, then that many 1-based indices and
 * statuses. */
static int some(int wait, MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                MPI_Fint *indices, MPI_Fint *statuses)
{
    reqs r;
    int out = 0, err = reqs_get(&r, *incount, requests, !ignored(statuses, 1));
    int *idx = err ? NULL : malloc(sizeof *idx * (size_t)(r.n ? r.n : 1));
    if (!err && !idx)
        err = MPI_ERR_NO_MEM;
    if (!err && outputs(err = wait ? MPI_Waitsome(r.n, r.c, &out, idx, r.st)
                                   : MPI_Testsome(r.n, r.c, &out, idx, r.st))) {
        reqs_put(&r, requests);
        *outcount = out;
        for (int i = 0; out != MPI_UNDEFINED && i < out; i++)
            indices[i] = idx[i] + 1;
        if (out != MPI_UNDEFINED)
            statuses_put(&r, out, statuses);
    }
    free(idx);
    reqs_free(&r);
    return err;
}

static int f_waitsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                      MPI_Fint *indices, MPI_Fint *statuses)
{
    return some(1, incount, requests, outcount, indices, statuses);
}

static int f_testsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                      MPI_Fint *indices, MPI_Fint *statuses)
{
    return some(0, incount, requests, outcount, indices, statuses);
}

/* Persistent requests: collx's (persistent.c) must be started and freed
 * by it, not by PMPI_Start. */
static int f_start(MPI_Fint *request)
{
    MPI_Request c = PMPI_Request_f2c(*request);
    int err = MPI_Start(&c);
    if (err == MPI_SUCCESS)
        *request = PMPI_Request_c2f(c);
    return err;
}

static int f_startall(MPI_Fint *count, MPI_Fint *requests)
{
    reqs r;
    int err = reqs_get(&r, *count, requests, 0);
    if (!err && (err = MPI_Startall(r.n, r.c)) == MPI_SUCCESS)
        reqs_put(&r, requests);
    reqs_free(&r);
    return err;
}

static int f_request_free(MPI_Fint *request)
{
    MPI_Request c = PMPI_Request_f2c(*request);
    int err = MPI_Request_free(&c);
    if (err == MPI_SUCCESS)
        *request = PMPI_Request_c2f(c);
    return err;
}

/* ---- the symbols a Fortran compiler may call them by ---- */
#define F_SYMBOL(sym, fn, decl, args)                                          \
    void sym decl;                                                             \
    void sym decl                                                              \
    {                                                                          \
        int err = fn args;                                                     \
        if (ierr)                                                              \
            *ierr = err;                                                       \
    }
#ifdef OPEN_MPI
#define F_SYMBOLS(lower, UPPER, fn, decl, args)                                \
    F_SYMBOL(lower##_, fn, decl, args)                                         \
    F_SYMBOL(lower##__, fn, decl, args)                                        \
    F_SYMBOL(lower, fn, decl, args)                                            \
    F_SYMBOL(UPPER, fn, decl, args)                                            \
    F_SYMBOL(lower##_f08_, fn, decl, args)
#elif defined(SMPI_H)   /* smpif90: -ff2c -fno-second-underscore */
#define F_SYMBOLS(lower, UPPER, fn, decl, args) F_SYMBOL(lower##_, fn, decl, args)
#else
#define F_SYMBOLS(lower, UPPER, fn, decl, args) F_SYMBOL(lower##_f08_, fn, decl, args)
#endif

F_SYMBOLS(mpi_wait, MPI_WAIT, f_wait,
          (MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr), (request, status))
F_SYMBOLS(mpi_test, MPI_TEST, f_test,
          (MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr),
          (request, flag, status))
F_SYMBOLS(mpi_request_get_status, MPI_REQUEST_GET_STATUS, f_request_get_status,
          (MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr),
          (request, flag, status))
F_SYMBOLS(mpi_waitall, MPI_WAITALL, f_waitall,
          (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr),
          (count, requests, statuses))
F_SYMBOLS(mpi_testall, MPI_TESTALL, f_testall,
          (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses,
           MPI_Fint *ierr),
          (count, requests, flag, statuses))
F_SYMBOLS(mpi_waitany, MPI_WAITANY, f_waitany,
          (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status,
           MPI_Fint *ierr),
          (count, requests, index, status))
F_SYMBOLS(mpi_testany, MPI_TESTANY, f_testany,
          (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
           MPI_Fint *status, MPI_Fint *ierr),
          (count, requests, index, flag, status))
F_SYMBOLS(mpi_waitsome, MPI_WAITSOME, f_waitsome,
          (MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
           MPI_Fint *statuses, MPI_Fint *ierr),
          (incount, requests, outcount, indices, statuses))
F_SYMBOLS(mpi_testsome, MPI_TESTSOME, f_testsome,
          (MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
           MPI_Fint *statuses, MPI_Fint *ierr),
          (incount, requests, outcount, indices, statuses))

F_SYMBOLS(mpi_start, MPI_START, f_start, (MPI_Fint *request, MPI_Fint *ierr), (request))
F_SYMBOLS(mpi_startall, MPI_STARTALL, f_startall,
          (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr), (count, requests))
F_SYMBOLS(mpi_request_free, MPI_REQUEST_FREE, f_request_free,
          (MPI_Fint *request, MPI_Fint *ierr), (request))

#endif /* OPEN_MPI || MPICH || SMPI_H */
