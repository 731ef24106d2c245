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

int cx_coll_sized(cx_coll c)
{
    return !(info[c].shape & (CX_SEND_V | CX_SEND_W | CX_RECV_V | CX_RECV_W));
}

int cx_size_class(long long bytes)
{
    return bytes <= 0 ? 0 : 64 - __builtin_clzll((unsigned long long)bytes);
}

void cx_size_class_range(int cls, long long *lo, long long *hi)
{
    unsigned long long l = cls ? 1ull << (cls - 1) : 0;
    *lo = (long long)l;
    *hi = cls ? (long long)(2 * l - 1) : 0;
}
