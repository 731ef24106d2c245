/* Lemma 3: distributed construction of the ordered gather tree when every
 * rank knows only its own block size.
 *
 * Invariant per cube: its fixed root (last rank) and its gather root both
 * know the cube's tuw_info. At level d the two fixed roots exchange their
 * cubes' infos, and each forwards the partner's info to its own gather
 * root when that is another rank. Both then apply the same merge rule, so
 * the new fixed root (the upper cube's) and the new gather root know the
 * merged info. That is at most two dependent constant-size messages per
 * level, ceil(log2 p) levels.
 *
 * The construction runs inside the schedule: which messages a level needs
 * is only known once the previous level's have arrived, so each level is a
 * start step that merges what came in and appends the next level's
 * messages (and, at the end, the data phase) to the running schedule.
 * CX_Igatherv/CX_Iscatterv therefore return at once. */
#include "tuw.h"

struct tuw_build {
    long long mine, threshold;
    int p, root, me, D;
    int d;                 /* next level to look at */
    int fixed, gather;     /* my roles in my current cube */
    int fwd_to;            /* forward other[d-1] to this gather root, or -1 */
    tuw_info cube, *sent, *other;   /* per level: what I sent / received */
    MPI_Comm comm;
    int tag;
    tuw_plan *plan;
    int (*done)(cx_sched *s, void *arg);
    void *arg;
};

static int range_has(int lo, int hi, int r)
{
    return r >= lo && r < hi;
}

/* Cube of me and partner cube at level d. */
static void cubes(const tuw_build *b, int d, int *lo, int *hi, int *plo, int *phi)
{
    int span = 1 << d, a = b->me >> d;
    *lo = a * span;
    *hi = *lo + span < b->p ? *lo + span : b->p;
    *plo = (a ^ 1) * span;
    *phi = *plo + span < b->p ? *plo + span : b->p;
}

/* Level d's infos are in: merge, record my parent or child. */
static void merge(tuw_build *b, int d)
{
    int lo, hi, plo, phi, i_am_a = !((b->me >> d) & 1);
    cubes(b, d, &lo, &hi, &plo, &phi);
    const tuw_info *other = &b->other[d];
    const tuw_info *A = i_am_a ? &b->cube : other, *B = i_am_a ? other : &b->cube;
    tuw_merge mg = tuw_merge_cubes(A, B, range_has(i_am_a ? lo : plo, i_am_a ? hi : phi,
                                                   b->root),
                                   range_has(i_am_a ? plo : lo, i_am_a ? phi : hi, b->root),
                                   b->root, b->threshold);
    tuw_plan *plan = b->plan;
    if (b->gather && mg.sender_is_a == i_am_a) {        /* I give my data away */
        b->gather = 0;
        if (b->cube.M > 0) {
            tuw_edge e = {mg.direct ? b->root : (int)other->g, lo, hi, b->cube.M, d,
                          mg.direct};
            plan->parent = e;
            plan->has_parent = 1;
        }
    } else if (b->gather && other->M > 0 && !mg.direct) { /* I receive */
        tuw_edge e = {(int)other->g, plo, phi, other->M, d, 0};
        plan->child[plan->nchild++] = e;
    }
    b->fixed = b->fixed && !i_am_a;   /* the upper cube's fixed root survives */
    b->cube = mg.merged;
}

static int advance(cx_sched *s, void *ctx, MPI_Request *req)
{
    tuw_build *b = ctx;
    int err = MPI_SUCCESS, lo = 0, hi = 0, plo = 0, phi = 0;
    *req = MPI_REQUEST_NULL;
    if (b->d > 0 && b->other[b->d - 1].g >= 0)
        merge(b, b->d - 1);
    if (b->fwd_to >= 0) {   /* my gather root needs the partner's info too */
        err = cx_sched_send_on(s, &b->other[b->d - 1], TUW_INFO_LEN, MPI_LONG_LONG,
                               b->fwd_to, b->comm, b->tag);
        b->fwd_to = -1;
    }
    while (b->d < b->D && (b->fixed || b->gather)) {
        cubes(b, b->d, &lo, &hi, &plo, &phi);
        if (plo < b->p)
            break;
        b->d++;                              /* no partner cube at this level */
    }
    if (err || b->d >= b->D || !(b->fixed || b->gather)) {
        b->plan->final = b->cube;
        if (!err)
            err = cx_sched_barrier(s);
        return err ? err : b->done ? b->done(s, b->arg) : MPI_SUCCESS;
    }
    int d = b->d++;
    tuw_info *other = &b->other[d];
    other->g = 0;   /* marks level d as exchanged (set again by the message) */
    if (b->fixed) {
        b->sent[d] = b->cube;
        if (!b->gather)
            b->fwd_to = (int)b->cube.g;
        if ((err = cx_sched_send_on(s, &b->sent[d], TUW_INFO_LEN, MPI_LONG_LONG, phi - 1,
                                    b->comm, b->tag)) ||
            (err = cx_sched_recv_on(s, other, TUW_INFO_LEN, MPI_LONG_LONG, phi - 1,
                                    b->comm, b->tag)))
            return err;
    } else if ((err = cx_sched_recv_on(s, other, TUW_INFO_LEN, MPI_LONG_LONG, hi - 1,
                                       b->comm, b->tag))) {
        return err;
    }
    if ((err = cx_sched_barrier(s)))
        return err;
    return cx_sched_start(s, advance, b);
}

tuw_build *tuw_build_new(long long mine, int p, int root, int me, long long threshold,
                         MPI_Comm comm, int tag, cx_sched *s, tuw_plan *plan,
                         int (*done)(cx_sched *s, void *arg), void *arg)
{
    int D = tuw_levels(p);
    tuw_build *b = cx_sched_alloc(s, sizeof *b);
    tuw_info *levels = cx_sched_alloc(s, sizeof *levels * (size_t)(2 * D + 1));
    plan->child = cx_sched_alloc(s, (size_t)(D + 1) * sizeof(tuw_edge));
    if (!b || !levels || !plan->child)
        return NULL;
    *b = (tuw_build){.mine = mine, .threshold = threshold, .p = p, .root = root,
                     .me = me, .D = D, .fixed = 1, .gather = 1, .fwd_to = -1,
                     .cube = {mine, mine, me, 0}, .sent = levels, .other = levels + D,
                     .comm = comm, .tag = tag, .plan = plan, .done = done, .arg = arg};
    for (int d = 0; d < D; d++)
        b->other[d].g = -1;   /* not exchanged */
    plan->has_parent = 0;
    plan->nchild = 0;
    plan->owner = NULL;
    return b;
}

int tuw_construct_steps(cx_sched *s, tuw_build *b)
{
    return cx_sched_start(s, advance, b);
}

int tuw_construct(long long mine, int p, int root, int me, long long threshold,
                  MPI_Comm comm, int tag, cx_sched *s, tuw_plan *plan)
{
    tuw_build *b = tuw_build_new(mine, p, root, me, threshold, comm, tag, s, plan,
                                 NULL, NULL);
    if (!b)
        return MPI_ERR_NO_MEM;
    cx_sched run;
    cx_sched_init(&run, comm, tag);
    int err = tuw_construct_steps(&run, b);
    if (!err)
        err = cx_sched_run(&run);
    cx_sched_free(&run);
    return err;
}
