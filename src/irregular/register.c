/* Träff's linear-time irregular gather/scatter family. */
#include "tuw.h"

const cx_algorithm cx_irregular_algorithms[] = {
    {CX_COLL_GATHERV, "tuw", cx_tuw_gatherv, 0,
     "Traff's ordered gather tree, built in ceil(log2 p) rounds from local sizes; "
     "large subtrees go direct (COLLX_TUW_DIRECT_THRESHOLD)"},
    {CX_COLL_SCATTERV, "tuw", cx_tuw_scatterv, 0,
     "Traff's ordered scatter tree, built in ceil(log2 p) rounds from local sizes; "
     "large subtrees go direct (COLLX_TUW_DIRECT_THRESHOLD)"},
    {CX_COLL_GATHER, "tuw", cx_tuw_gather, 0,
     "Traff's ordered gather tree in rank order (no construction messages)"},
    {CX_COLL_SCATTER, "tuw", cx_tuw_scatter, 0,
     "Traff's ordered scatter tree in rank order (no construction messages)"},
    {0, NULL, NULL, 0, NULL}};
