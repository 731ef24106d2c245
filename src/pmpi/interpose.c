/* PMPI interposer: LD_PRELOAD=libcollx_pmpi.so routes every blocking
 * MPI collective to collx, which runs the algorithm selected for it or,
 * with nothing selected (and for whatever it cannot serve, e.g.
 * intercommunicators), the library's PMPI_ version. One wrapper per
 * collective of include/collx_colls.h. */
#include "collx.h"

#define CX_WRAP(E, N, n)                                                       \
    int MPI_##N(CX_DECLS(E)) { return CX_##N(CX_NAMES(E)); }
CX_COLLECTIVES(CX_WRAP)
