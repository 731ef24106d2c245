/* The merge rule of the ordered hypercube gather tree (Lemmas 1 and 2) and
 * its replay from all block sizes, for ranks that know them all. */
#include <stdlib.h>
#include "tuw.h"


int tuw_levels(int p)
{
    int d = 0;
    while ((1 << d) < p)
        d++;
    return d;
}

/* COLLX_TUW_DIRECT_THRESHOLD, or the call's rule's; its default (64 KiB,
 * src/irregular/knobs.def) was measured in SMPI (src/irregular/README.md). */
long long tuw_threshold(const cx_args *a)
{
    return cx_knob_call_int(a->params, CX_KNOB_TUW_DIRECT_THRESHOLD);
}

tuw_merge tuw_merge_cubes(const tuw_info *A, const tuw_info *B, int a_has_root,
                          int b_has_root, int root, long long threshold)
{
    tuw_merge r;
    if (a_has_root || b_has_root) {
        r.sender_is_a = b_has_root;   /* Lemma 2: the root always receives */
    } else {
        /* Lemma 1: the cube that needs longer to gather receives (its root
         * is busy longer anyway); on a tie the one with less data sends;
         * on a full tie the lower cube sends. */
        long long ta = A->M - A->mg, tb = B->M - B->mg;
        if (ta != tb)
            r.sender_is_a = ta < tb;
        else
            r.sender_is_a = A->M <= B->M;
    }
    const tuw_info *R = r.sender_is_a ? B : A, *S = r.sender_is_a ? A : B;
    /* Graceful degradation: a large subtree skips the intermediate roots. */
    r.direct = R->g != root && threshold >= 0 && S->M > threshold;
    r.merged = *R;
    r.merged.M = R->M + (r.direct ? 0 : S->M);
    r.merged.nd = A->nd + B->nd + r.direct;
    return r;
}

static void append(tuw_plan *plan, int peer, int lo, int hi, long long bytes, int d,
                   int direct)
{
    tuw_edge e = {peer, lo, hi, bytes, d, direct};
    plan->child[plan->nchild++] = e;
}

int tuw_simulate(const long long *m, int p, int root, int me, long long threshold,
                 cx_sched *s, tuw_plan *plan)
{
    int D = tuw_levels(p), is_root = me == root;
    tuw_info *cube = malloc((size_t)p * sizeof *cube);
    int *carrier = is_root ? malloc((size_t)p * sizeof *carrier) : NULL;
    plan->has_parent = 0;
    plan->nchild = 0;
    plan->child = cx_sched_alloc(s, (size_t)(is_root ? p : D + 1) * sizeof(tuw_edge));
    plan->owner = is_root ? cx_sched_alloc(s, (size_t)p * sizeof(int)) : NULL;
    if (!cube || (is_root && (!carrier || !plan->owner)) || !plan->child) {
        free(cube);
        free(carrier);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < p; i++) {
        tuw_info c = {m[i], m[i], i, 0};
        cube[i] = c;
        if (is_root) {
            carrier[i] = i;       /* who holds block i now */
            plan->owner[i] = -1;
        }
    }
    for (int d = 0; d < D; d++) {
        int span = 1 << d, ncubes = (p + span - 1) / span;
        for (int k = 0; 2 * k < ncubes; k++) {
            if (2 * k + 1 >= ncubes) {      /* no partner: passes unchanged */
                cube[k] = cube[2 * k];
                continue;
            }
            int alo = 2 * k * span, blo = alo + span;
            int bhi = blo + span < p ? blo + span : p;
            tuw_merge mg = tuw_merge_cubes(&cube[2 * k], &cube[2 * k + 1],
                                           root >= alo && root < blo,
                                           root >= blo && root < bhi, root, threshold);
            const tuw_info *S = &cube[2 * k + !mg.sender_is_a];
            const tuw_info *R = &cube[2 * k + mg.sender_is_a];
            int slo = mg.sender_is_a ? alo : blo, shi = mg.sender_is_a ? blo : bhi;
            int sg = (int)S->g, dest = mg.direct ? root : (int)R->g;
            if (S->M > 0) {
                if (sg == me) {
                    tuw_edge e = {dest, slo, shi, S->M, d, mg.direct};
                    plan->parent = e;
                    plan->has_parent = 1;
                }
                if (dest == me)
                    append(plan, sg, slo, shi, S->M, d, mg.direct);
                for (int i = slo; is_root && i < shi; i++)
                    if (carrier[i] == sg) {
                        carrier[i] = dest;
                        if (dest == root)
                            plan->owner[i] = sg;
                    }
            }
            cube[k] = mg.merged;
        }
    }
    plan->final = cube[0];
    free(cube);
    free(carrier);
    return MPI_SUCCESS;
}
