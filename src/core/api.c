/* Public entry points CX_<Name> and CX_I<name>: MPI's signatures, packed
 * into a cx_args and handed to the dispatcher; one pair per collective of
 * include/collx_colls.h. */
#include "cx_internal.h"

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
    }
CX_COLLECTIVES(CX_ENTRY)
