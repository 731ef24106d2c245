/* Public entry points CX_<Name>, CX_I<name> and CX_<Name>_init: MPI's
 * signatures, packed into a cx_args and handed to the dispatcher (or the
 * persistent plans, persist.c); one set per collective of
 * include/collx_colls.h. */
#include "../persist/persist.h"

#define CX_ENTRY(E, N, n)                                                      \
    int CX_I##n(CX_DECLS(E), CX_Request *request)                              \
    {                                                                          \
        cx_args a = {CX_PARAMS_##E(CX_ARG_INIT) .coll = CX_COLL_##E};          \
        return cx_dispatch(&a, request);                                       \
    }                                                                          \
    int CX_##N(CX_DECLS(E))                                                    \
    {                                                                          \
        cx_args a = {CX_PARAMS_##E(CX_ARG_INIT) .coll = CX_COLL_##E};          \
        return cx_dispatch(&a, NULL);                                          \
    }                                                                          \
    int CX_##N##_init(CX_DECLS(E), MPI_Info info, CX_Request *request)         \
    {                                                                          \
        (void)info;                                                            \
        cx_args a = {CX_PARAMS_##E(CX_ARG_INIT) .coll = CX_COLL_##E};          \
        return cx_plan_init(&a, request);                                      \
    }
CX_COLLECTIVES(CX_ENTRY)
