/* Träff's linear-time irregular gather/scatter family. */
#include "tuw.h"

static const cx_algorithm algorithms[] = {
    CX_ALG(GATHERV, "tuw", cx_tuw_gatherv, 0,
     "Traff's ordered gather tree, built in ceil(log2 p) rounds from local sizes; "
     "large subtrees go direct (COLLX_TUW_DIRECT_THRESHOLD)"),
    CX_ALG(SCATTERV, "tuw", cx_tuw_scatterv, 0,
     "Traff's ordered scatter tree, built in ceil(log2 p) rounds from local sizes; "
     "large subtrees go direct (COLLX_TUW_DIRECT_THRESHOLD)"),
    CX_ALG(GATHER, "tuw", cx_tuw_gather, 0,
     "Traff's ordered gather tree in rank order (no construction messages)"),
    CX_ALG(SCATTER, "tuw", cx_tuw_scatter, 0,
     "Traff's ordered scatter tree in rank order (no construction messages)"),
    CX_ALG_END};

/* Its schedules run again as built: persistent calls replay them. */
const cx_family cx_irregular_family = {.name = "irregular", .algorithms = algorithms, .replays = 1};
