/* The arrival-aware algorithms (Proficz 2020): one builder (build.c), the
 * base schedule and background kind of each as its data. */
#include "pap.h"

#define PAP_ALG(bg_kind, base_fn) \
    .family_data = &(const cx_pap_alg){.bg = bg_kind, .base = base_fn}

static const cx_algorithm algorithms[] = {
    CX_ALG(SCATTER, "slin", cx_pap_build, 0,
     "linear, ranks served in predicted arrival order (PAP: CX_Pat_edge)",
     PAP_ALG(CX_BG_NONE, cx_base_linear_seq)),
    CX_ALG(SCATTER, "sbn", cx_pap_build, 0,
     "binomial tree over the predicted arrival order, root shuffles blocks",
     PAP_ALG(CX_BG_NONE, cx_build_binomial_rooted)),
    CX_ALG(SCATTER, "bsln", cx_pap_build, 0,
     "slin whose receives are posted at the edge (background progress)",
     PAP_ALG(CX_BG_BSLN, cx_base_linear_seq)),
    CX_ALG(SCATTER, "bsbn", cx_pap_build, 0,
     "sbn whose non-root ranks start receiving/forwarding at the edge",
     PAP_ALG(CX_BG_BSBN, cx_build_binomial_rooted)),
    CX_ALG(GATHER, "sls", cx_pap_build, 0,
     "linear synchronized, ranks asked in predicted arrival order",
     PAP_ALG(CX_BG_NONE, cx_base_linear_sync)),
    CX_ALG(GATHER, "sbn", cx_pap_build, 0,
     "binomial tree over the predicted arrival order, root unshuffles blocks",
     PAP_ALG(CX_BG_NONE, cx_build_binomial_rooted)),
    CX_ALG(GATHER, "bsls", cx_pap_build, 0,
     "sls whose root asks and receives from the edge on (background progress)",
     PAP_ALG(CX_BG_BSLS, cx_base_linear_sync)),
    CX_ALG(GATHER, "bsbn", cx_pap_build, 0,
     "sbn whose receives (inner ranks and root) start at the edge",
     PAP_ALG(CX_BG_BSBN, cx_build_binomial_rooted)),
    CX_ALG_END};

const cx_family cx_pap_family = {
    .name = "pap",
    .algorithms = algorithms,
    .slot = &cx_pap_slot,
    .release = cx_pap_release,
    .after_call = cx_pap_after_call};
