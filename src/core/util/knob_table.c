/* Every COLLX_* variable collx reads, once (knobs.h). per_call = 1 only
 * where a rule's "params" may give one call another value than the next
 * without the ranks disagreeing: the value changes what this call's
 * schedule looks like, the same way on every rank, and nothing that lives
 * longer than the call (segments, windows, cached orders, threads) depends
 * on it. A family's README explains its knobs in context. */
#include <limits.h>
#include "knobs.h"


#define INT_KNOB(lo, hi) .type = CX_KNOB_INT, .min = (lo), .max = (hi)
#define SIZE_KNOB(lo, hi) .type = CX_KNOB_SIZE, .min = (lo), .max = (hi)
#define REAL_KNOB(lo, hi) .type = CX_KNOB_REAL, .rmin = (lo), .rmax = (hi)
#define ENUM_KNOB(v) .type = CX_KNOB_ENUM, .values = (v)
/* An ENUM_KNOB's values: CX_VALUES("a", "b"). */
#define CX_VALUES(...) ((const char *const[]){__VA_ARGS__, NULL})

const cx_knob_decl cx_knob_decls[CX_KNOB_COUNT] = {
    /* ---- every knobs.def: the core's, online tuning's, the families' ---- */
#define CX_KNOB(id, name, family, ...) [CX_KNOB_##id] = {name, family, __VA_ARGS__},
#include "cx_knob_lists.h"
#undef CX_KNOB

    /* ---- selection: COLLX_<COLL>_ALGORITHM ---- */
#define CX_KNOB_ALG_DECL(E, N, n)                                                    \
    [CX_KNOB_##E##_ALGORITHM] = {                                                  \
        "COLLX_" #E "_ALGORITHM", "core", .type = CX_KNOB_ALGORITHM,               \
        .coll = CX_KNOB_##E##_ALGORITHM - CX_KNOB_BARRIER_ALGORITHM,               \
        .on_bad = CX_KNOB_BAD_ERROR, .unset = "the rules file's, else native",     \
        .meaning = "the algorithm of every MPI_" #N " (after CX_Algorithm_set, "   \
                   "before COLLX_RULES)"},
    CX_COLLECTIVES(CX_KNOB_ALG_DECL)
#undef CX_KNOB_ALG_DECL
};

const cx_knob_decl *cx_knob_entry(cx_knob k)
{
    return &cx_knob_decls[k];
}
