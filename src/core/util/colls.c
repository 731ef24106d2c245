/* Names and shapes of the collectives, from include/collx_colls.h. */
#include <string.h>
#include "colls.h"

static const struct {
    const char *name, *mpi_name;
    unsigned shape;
} info[CX_COLL_COUNT] = {
#define CX_INFO(E, N, n) {#n, "MPI_" #N, CX_SHAPE_##E},
    CX_COLLECTIVES(CX_INFO)
#undef CX_INFO
};

const char *cx_coll_name(cx_coll c) { return info[c].name; }
const char *cx_coll_mpi_name(cx_coll c) { return info[c].mpi_name; }
unsigned cx_coll_shape(cx_coll c) { return info[c].shape; }

int cx_coll_from_name(const char *name)
{
    for (int i = 0; name && i < CX_COLL_COUNT; i++)
        if (strcmp(name, info[i].name) == 0)
            return i;
    return -1;
}
