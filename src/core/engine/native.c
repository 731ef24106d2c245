/* The MPI library's own collectives (PMPI_), called with the arguments of
 * a cx_args, blocking or nonblocking: one case per collective of the list. */
#include "../util/util.h"

#define CX_ARG(kind, name, field) , a->field
#define CX_ARGS(E) CX_DROP_FIRST(CX_PARAMS_##E(CX_ARG))

int cx_native_run(const cx_args *a)
{
    switch (a->coll) {
#define CX_CASE(E, N, n) case CX_COLL_##E: return PMPI_##N(CX_ARGS(E));
    CX_COLLECTIVES(CX_CASE)
#undef CX_CASE
    default: return MPI_ERR_INTERN;
    }
}

int cx_native_start(const cx_args *a, MPI_Request *req)
{
    switch (a->coll) {
#define CX_CASE(E, N, n) case CX_COLL_##E: return PMPI_I##n(CX_ARGS(E), req);
    CX_COLLECTIVES(CX_CASE)
#undef CX_CASE
    default: return MPI_ERR_INTERN;
    }
}
