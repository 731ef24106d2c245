/* Fortran interposer: Open MPI's Fortran bindings (mpif.h, `use mpi`,
 * `use mpi_f08`) call PMPI_<Name>, so a Fortran program never reaches the
 * MPI_<Name> wrappers of interpose.c. Under LD_PRELOAD these definitions
 * come first and replace the library's Fortran entry points of every
 * collective of include/collx_colls.h:
 *   mpi_<name>_, mpi_<name>__, mpi_<name>, MPI_<NAME>  (mpif.h, use mpi)
 *   mpi_<name>_f08_                     (use mpi_f08, Open MPI only)
 * MPICH's Fortran bindings call MPI_<Name> and would be intercepted anyway;
 * replacing them too gives one path on both. MPICH's mpi_f08 procedures
 * (mpi_<name>_f08ts_) take buffers as TS 29113 descriptors and then call
 * MPI_<Name>, so they are left alone. SMPI's bindings (smpif90, mpif.h and
 * `use mpi`) live in libsimgrid, whose calls of MPI_<Name> never reach the
 * program's collx (SMPI opens the program with RTLD_DEEPBIND): the SMPI
 * interposer defines the same entry points inside the program. For any
 * other MPI nothing is defined here: its own bindings know its Fortran
 * constants, we would not.
 *
 * The nonblocking MPI_I<NAME> of every collective too (mpi_i<name>_ ...):
 * the request goes back as MPI_Request_c2f of what collx returns (the
 * MPI's own request, or collx's generalized one, which Open MPI's Fortran
 * completion calls then wait for through fortran_complete.c).
 *
 * Handles arrive as Fortran integers (MPI_Fint) and are converted with
 * MPI_<Obj>_f2c; Fortran's MPI_IN_PLACE and MPI_BOTTOM are variables whose
 * addresses are looked up at run time (dlsym), so one libcollx_pmpi.so
 * serves C programs (no Fortran library loaded) and Fortran programs. The
 * result goes to *ierr after the communicator's error handler has run,
 * as the MPI library's own bindings do. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include "../core/persist/persist.h"

#if defined(OPEN_MPI) || defined(MPICH) || defined(SMPI_H)
/* Open MPI and SMPI: Fortran's MPI_IN_PLACE is a variable of its own. */
#if defined(OPEN_MPI) || defined(SMPI_H)
#define CX_F_BY_ADDRESS 1
#endif

/* Fortran INTEGER arrays (counts, displacements) are passed on as int
 * arrays unconverted. */
_Static_assert(_Generic((MPI_Fint)0, int: 1, default: 0), "MPI_Fint must be int");

/* ---- Fortran's MPI_IN_PLACE and MPI_BOTTOM ----
 * Open MPI: common blocks /mpi_fortran_in_place/ and /mpi_fortran_bottom/;
 * the program defines them (its copy wins over libmpi's), the compiler
 * picks one of four spellings. MPICH: libmpichfort stores the addresses of
 * its /MPIPRIV1/ members in MPIR_F_MPI_IN_PLACE / MPIR_F_MPI_BOTTOM once
 * mpirinitf_ has run (MPI_INIT does, or the first binding that needs them
 * while MPIR_F_NeedInit is set: we do the same). SMPI: mpif.h declares them
 * `external`, the program passes the address of libsimgrid's mpi_in_place_
 * / mpi_bottom_ (smpif90 compiles with -ff2c -fno-second-underscore). */
static struct {
#ifdef CX_F_BY_ADDRESS
    int n_in_place, n_bottom;
    const void *in_place[4], *bottom[4];
#else
    int *need_init;
    void (*init)(void);
    void **in_place, **bottom;
#endif
} fsym;
static pthread_once_t fsym_once = PTHREAD_ONCE_INIT;

#ifdef CX_F_BY_ADDRESS
static int find_all(const char *const names[4], const void *found[4])
{
    int n = 0;
    for (int i = 0; i < 4 && names[i]; i++) {
        const void *p = dlsym(RTLD_DEFAULT, names[i]);
        if (p)   /* missing names must never match a NULL buffer */
            found[n++] = p;
    }
    return n;
}
#endif

static void fsym_find(void)
{
#ifdef OPEN_MPI
    static const char *const in_place[4] = {"mpi_fortran_in_place_", "mpi_fortran_in_place",
                                            "mpi_fortran_in_place__", "MPI_FORTRAN_IN_PLACE"};
    static const char *const bottom[4] = {"mpi_fortran_bottom_", "mpi_fortran_bottom",
                                          "mpi_fortran_bottom__", "MPI_FORTRAN_BOTTOM"};
    fsym.n_in_place = find_all(in_place, fsym.in_place);
    fsym.n_bottom = find_all(bottom, fsym.bottom);
#elif defined(SMPI_H)
    static const char *const in_place[4] = {"mpi_in_place_"}, *const bottom[4] = {"mpi_bottom_"};
    fsym.n_in_place = find_all(in_place, fsym.in_place);
    fsym.n_bottom = find_all(bottom, fsym.bottom);
#else
    static const char *const init[4] = {"mpirinitf_", "mpirinitf", "mpirinitf__", "MPIRINITF"};
    fsym.need_init = dlsym(RTLD_DEFAULT, "MPIR_F_NeedInit");
    for (int i = 0; i < 4 && !fsym.init; i++)
        fsym.init = (void (*)(void))dlsym(RTLD_DEFAULT, init[i]);
    fsym.in_place = dlsym(RTLD_DEFAULT, "MPIR_F_MPI_IN_PLACE");
    fsym.bottom = dlsym(RTLD_DEFAULT, "MPIR_F_MPI_BOTTOM");
#endif
}

/* A Fortran buffer argument as C sees it. */
static void *fbuf(void *b)
{
    pthread_once(&fsym_once, fsym_find);
#ifdef CX_F_BY_ADDRESS
    for (int i = 0; i < fsym.n_in_place; i++)
        if (b == fsym.in_place[i])
            return MPI_IN_PLACE;
    for (int i = 0; i < fsym.n_bottom; i++)
        if (b == fsym.bottom[i])
            return MPI_BOTTOM;
#else
    if (fsym.need_init && *fsym.need_init && fsym.init) {
        fsym.init();
        *fsym.need_init = 0;
    }
    if (fsym.in_place && *fsym.in_place && b == *fsym.in_place)
        return MPI_IN_PLACE;
    if (fsym.bottom && *fsym.bottom && b == *fsym.bottom)
        return MPI_BOTTOM;
#endif
    return b;
}

/* ---- one call's converted arguments ---- */
#define FTYPES_INLINE 64

typedef struct {
    MPI_Comm comm;
    int sbuf_in_place; /* alltoallw's sendtypes are then ignored */
    int err;           /* a conversion failed: report instead of calling */
    MPI_Datatype inline_types[2][FTYPES_INLINE];
    MPI_Datatype *types[2];
} fcall;

/* Everything but the inline arrays, which are filled before use. */
static void fcall_begin(fcall *f, const MPI_Fint *comm)
{
    f->comm = MPI_Comm_f2c(*comm);
    f->sbuf_in_place = 0;
    f->err = MPI_SUCCESS;
    f->types[0] = f->types[1] = NULL;
}

static const void *fsbuf(fcall *f, void *b)
{
    void *c = fbuf(b);
    f->sbuf_in_place = c == MPI_IN_PLACE;
    return c;
}

/* alltoallw's sendtypes (send = 1) or recvtypes: one handle per rank of
 * the (remote) group. Left NULL where MPI ignores them (sendtypes with
 * MPI_IN_PLACE), and for MPI_COMM_NULL (collx then reports MPI_ERR_COMM). */
static const MPI_Datatype *ftypes(fcall *f, const MPI_Fint *types, int send)
{
    int n = 0, inter = 0;
    if ((send && f->sbuf_in_place) || f->comm == MPI_COMM_NULL || f->err)
        return NULL;
    PMPI_Comm_test_inter(f->comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(f->comm, &n);
    else
        PMPI_Comm_size(f->comm, &n);
    MPI_Datatype *t = f->inline_types[send];
    if (n > FTYPES_INLINE && !(t = f->types[send] = malloc(sizeof *t * (size_t)n))) {
        f->err = MPI_ERR_NO_MEM;
        return NULL;
    }
    for (int i = 0; i < n; i++)
        t[i] = MPI_Type_f2c(types[i]);
    return t;
}

/* A conversion failed: reported through the handler, as MPI would. */
static int fcall_fail(fcall *f)
{
    PMPI_Comm_call_errhandler(f->comm, f->err);
    return f->err;
}

static void fcall_free(fcall *f)
{
    free(f->types[0]);
    free(f->types[1]);
}

/* ---- per-kind Fortran types and conversions ---- */
#define CX_FTYPE_SBUF void *
#define CX_FTYPE_RBUF void *
#define CX_FTYPE_INT const MPI_Fint *
#define CX_FTYPE_INTS const MPI_Fint *
#define CX_FTYPE_TYPE const MPI_Fint *
#define CX_FTYPE_TYPES const MPI_Fint *
#define CX_FTYPE_OP const MPI_Fint *
#define CX_FTYPE_COMM const MPI_Fint *

#define CX_FCONV_SBUF(x, field) fsbuf(&f, x)
#define CX_FCONV_RBUF(x, field) fbuf(x)   /* MPI_IN_PLACE at a scatter root */
#define CX_FCONV_INT(x, field) (*(x))
#define CX_FCONV_INTS(x, field) (x)
#define CX_FCONV_TYPE(x, field) MPI_Type_f2c(*(x))
#define CX_FCONV_TYPES(x, field) ftypes(&f, x, CX_FSEND_##field)
#define CX_FCONV_OP(x, field) MPI_Op_f2c(*(x))
#define CX_FCONV_COMM(x, field) f.comm
#define CX_FSEND_stypes 1
#define CX_FSEND_rtypes 0

#define CX_FDECL(kind, name, field) , CX_FTYPE_##kind name
/* Converted in parameter order (alltoallw's sendtypes after sendbuf). */
#define CX_FLOCAL(kind, name, field) CX_CTYPE_##kind c_##name = CX_FCONV_##kind(name, field);
#define CX_FARG(kind, name, field) , c_##name
#define CX_FDECLS(E) CX_DROP_FIRST(CX_PARAMS_##E(CX_FDECL))

/* One converter per collective, and the symbols a Fortran compiler may
 * call it by. ierr is optional in mpi_f08 (NULL when absent). */
#define CX_FSYMBOL(E, N, n, sym)                                               \
    void sym(CX_FDECLS(E), MPI_Fint *ierr);                                    \
    void sym(CX_FDECLS(E), MPI_Fint *ierr)                                     \
    {                                                                          \
        int err = cx_f_##n(CX_NAMES(E));                                       \
        if (ierr)                                                              \
            *ierr = err;                                                       \
    }
#ifdef OPEN_MPI
#define CX_FSYMBOL_F08(E, N, n) CX_FSYMBOL(E, N, n, mpi_##n##_f08_)
#else
#define CX_FSYMBOL_F08(E, N, n)
#endif

#define CX_FWRAP(E, N, n)                                                      \
    static int cx_f_##n(CX_FDECLS(E))                                          \
    {                                                                          \
        fcall f;                                                               \
        fcall_begin(&f, comm);                                                 \
        CX_PARAMS_##E(CX_FLOCAL)                                               \
        int err = f.err ? fcall_fail(&f)                                       \
                        : CX_##N(CX_DROP_FIRST(CX_PARAMS_##E(CX_FARG)));       \
        fcall_free(&f);                                                        \
        return err;                                                            \
    }                                                                          \
    CX_FSYMBOL(E, N, n, mpi_##n##_)                                            \
    CX_FSYMBOL(E, N, n, mpi_##n##__)                                           \
    CX_FSYMBOL(E, N, n, mpi_##n)                                               \
    CX_FSYMBOL(E, N, n, MPI_##E)                                               \
    CX_FSYMBOL_F08(E, N, n)
CX_COLLECTIVES(CX_FWRAP)

/* ---- nonblocking: MPI_I<NAME> ---- */
#define CX_FINIT(kind, name, field) .field = c_##name,
#define CX_FISYMBOL(E, N, n, sym)                                              \
    void sym(CX_FDECLS(E), MPI_Fint *request, MPI_Fint *ierr);                 \
    void sym(CX_FDECLS(E), MPI_Fint *request, MPI_Fint *ierr)                  \
    {                                                                          \
        int err = cx_fi_##n(CX_NAMES(E), request);                             \
        if (ierr)                                                              \
            *ierr = err;                                                       \
    }
#ifdef OPEN_MPI
#define CX_FISYMBOL_F08(E, N, n) CX_FISYMBOL(E, N, n, mpi_i##n##_f08_)
#else
#define CX_FISYMBOL_F08(E, N, n)
#endif

/* alltoallw's converted type arrays die with the call: collx keeps
 * copies (scratch_arrays). */
#define CX_FIWRAP(E, N, n)                                                     \
    static int cx_fi_##n(CX_FDECLS(E), MPI_Fint *request)                       \
    {                                                                          \
        fcall f;                                                               \
        fcall_begin(&f, comm);                                                 \
        CX_PARAMS_##E(CX_FLOCAL)                                               \
        MPI_Request r = MPI_REQUEST_NULL;                                      \
        int err;                                                               \
        if (f.err) {                                                           \
            err = fcall_fail(&f);                                              \
        } else {                                                               \
            cx_args a = {CX_PARAMS_##E(CX_FINIT) .coll = CX_COLL_##E,          \
                         .scratch_arrays = CX_COLL_##E == CX_COLL_ALLTOALLW};   \
            if (!(err = cx_dispatch_mpi(&a, &r)))                              \
                *request = PMPI_Request_c2f(r);                                \
        }                                                                      \
        fcall_free(&f);                                                        \
        return err;                                                            \
    }                                                                          \
    CX_FISYMBOL(E, N, n, mpi_i##n##_)                                          \
    CX_FISYMBOL(E, N, n, mpi_i##n##__)                                         \
    CX_FISYMBOL(E, N, n, mpi_i##n)                                             \
    CX_FISYMBOL(E, N, n, MPI_I##E)                                             \
    CX_FISYMBOL_F08(E, N, n)
CX_COLLECTIVES(CX_FIWRAP)

#endif /* OPEN_MPI || MPICH || SMPI_H */
