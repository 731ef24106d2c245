/* CX_Setting_get: a setting's value through the API, so that tools
 * (collbench) read collx's settings as the library does, not by getenv;
 * CX_Setting_describe: each setting's declaration (collx_info). */
#include <stdio.h>
#include "collx.h"
#include "collx_tools.h"
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

/* ---- every setting described, for collx_info (collx_tools.h) ---- */
static const char *const type_names[] = {"int", "size", "real", "enum", "string", "path",
                                          "algorithm"};

/* Where k's value comes from, in words. */
static const char *source(cx_knob k, const cx_knob_decl *d)
{
    if (cx_knob_bad(k))
        return "environment, unusable";
    if (cx_knob_env(k) && !cx_knob_given(k))
        return cx_knob_call(NULL, k)->set ? "environment unusable: default"
                                          : "environment unusable: unset";
    if (cx_knob_env(k))
        return "environment";
    return d->def ? "default" : "unset";
}

int CX_Setting_count(void) { return CX_KNOB_COUNT; }

int CX_Setting_describe(int i, CX_Setting_info *info)
{
    if (i < 0 || i >= CX_KNOB_COUNT || !info)
        return -1;
    cx_knob k = (cx_knob)i;
    const cx_knob_decl *d = cx_knob_entry(k);
    const cx_knob_value *v = cx_knob_call(NULL, k);
    *info = (CX_Setting_info){
        .name = d->name, .family = d->family, .type = type_names[d->type], .def = d->def,
        .unset = d->unset, .meaning = d->meaning, .tune = d->tune, .tune_algs = d->tune_algs,
        .values = d->type == CX_KNOB_ENUM ? d->values : NULL, .environment = cx_knob_env(k),
        .source = source(k, d),
        .has_int_range = d->type == CX_KNOB_INT || d->type == CX_KNOB_SIZE,
        .min = d->min, .max = d->max, .has_real_range = d->type == CX_KNOB_REAL,
        .rmin = d->rmin, .rmax = d->rmax, .per_call = d->per_call,
        .rank_local = d->rank_local, .set = v->set};
    cx_knob_format(k, v, info->value, sizeof info->value);
    cx_knob_range(k, info->range, sizeof info->range);
    return 0;
}
