/* Lemma 3: distributed construction of the ordered gather tree when every
 * rank knows only its own block size.
 *
 * Invariant per cube: its fixed root (last rank) and its gather root both
 * know the cube's tuw_info. At level d the two fixed roots exchange their
 * cubes' infos (one Sendrecv), and each forwards the partner's info to its
 * own gather root when that is another rank (one Send). Both then apply the
 * same merge rule, so the new fixed root (the upper cube's) and the new
 * gather root know the merged info. That is at most two dependent
 * constant-size messages per level, ceil(log2 p) levels.
 *
 * Why blocking and eager (inside the build function) rather than schedule
 * rounds: the schedule engine fixes every peer and count when the schedule
 * is built, but here the partner a fixed root forwards to, and every peer
 * and size of the data phase, are only known after the previous level's
 * messages arrived. Expressing it as rounds would need run-time-generated
 * ops in the core engine. The price: the construction phase of
 * CX_Igatherv/CX_Iscatterv blocks (2 ceil(log2 p) small messages at most);
 * the data phase is nonblocking. */
#include "tuw.h"

static int range_has(int lo, int hi, int r)
{
    return r >= lo && r < hi;
}

int tuw_construct(long long mine, int p, int root, int me, long long threshold,
                  MPI_Comm comm, int tag, cx_sched *s, tuw_plan *plan)
{
    int D = tuw_levels(p), err = MPI_SUCCESS;
    int fixed = 1, gather = 1;  /* my roles in my current cube */
    tuw_info cube = {mine, mine, me, 0};
    plan->has_parent = 0;
    plan->nchild = 0;
    plan->owner = NULL;
    if (!(plan->child = cx_sched_alloc(s, (size_t)(D + 1) * sizeof(tuw_edge))))
        return MPI_ERR_NO_MEM;
    for (int d = 0; d < D && !err && (fixed || gather); d++) {
        int span = 1 << d, a = me >> d, b = a ^ 1;
        int lo = a * span, hi = lo + span < p ? lo + span : p;
        int plo = b * span, phi = plo + span < p ? plo + span : p;
        if (plo >= p)
            continue;                   /* no partner cube at this level */
        tuw_info other;
        if (fixed) {
            err = PMPI_Sendrecv(&cube, TUW_INFO_LEN, MPI_LONG_LONG, phi - 1, tag,
                                &other, TUW_INFO_LEN, MPI_LONG_LONG, phi - 1, tag,
                                comm, MPI_STATUS_IGNORE);
            if (!err && !gather)
                err = PMPI_Send(&other, TUW_INFO_LEN, MPI_LONG_LONG, (int)cube.g,
                                tag, comm);
        } else {
            err = PMPI_Recv(&other, TUW_INFO_LEN, MPI_LONG_LONG, hi - 1, tag, comm,
                            MPI_STATUS_IGNORE);
        }
        if (err)
            break;
        int i_am_a = a < b;
        const tuw_info *A = i_am_a ? &cube : &other, *B = i_am_a ? &other : &cube;
        tuw_merge mg = tuw_merge_cubes(A, B, range_has(i_am_a ? lo : plo,
                                                       i_am_a ? hi : phi, root),
                                       range_has(i_am_a ? plo : lo,
                                                 i_am_a ? phi : hi, root),
                                       root, threshold);
        if (gather && mg.sender_is_a == i_am_a) {         /* I give my data away */
            gather = 0;
            if (cube.M > 0) {
                tuw_edge e = {mg.direct ? root : (int)other.g, lo, hi, cube.M, d};
                plan->parent = e;
                plan->has_parent = 1;
            }
        } else if (gather && other.M > 0 && !mg.direct) { /* I receive */
            tuw_edge e = {(int)other.g, plo, phi, other.M, d};
            plan->child[plan->nchild++] = e;
        }
        fixed = fixed && !i_am_a;  /* the upper cube's fixed root survives */
        cube = mg.merged;
    }
    plan->final = cube;
    return err;
}
