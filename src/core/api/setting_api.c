/* CX_Setting_get: a setting's value through the API, so that tools
 * (collbench) read collx's settings as the library does, not by getenv. */
#include <stdio.h>
#include "collx.h"
#include "../util/util.h"

int CX_Setting_get(const char *name, char *value, int len, int *flag)
{
    if (!name || !value || len < 1 || !flag)
        return MPI_ERR_ARG;
    *flag = 0;
    value[0] = '\0';
    int k = cx_knob_find(name);
    if (k < 0)
        return MPI_SUCCESS;
    const cx_knob_value *v = cx_knob_call(NULL, (cx_knob)k);
    if (!v->set)
        return MPI_SUCCESS;
    cx_knob_format((cx_knob)k, v, value, (size_t)len);
    *flag = 1;
    return MPI_SUCCESS;
}
