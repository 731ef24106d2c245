/* Build functions of the tuw algorithms.
 *
 * gatherv/scatterv: every rank runs the distributed construction (Lemma 3)
 * from its own block size, as steps of the schedule (a nonblocking call
 * returns at once); non-roots never look at the root-only arrays.
 * The root also knows every block size, so it replays the same merges
 * locally: that tells it, beyond its own children, which subtrees send
 * directly (graceful degradation, counted by the construction) and which
 * blocks each message carries. gather/scatter: all block sizes are equal
 * and known everywhere, so the tree needs no communication at all. */
#include <stdlib.h>
#include "tuw.h"

static int is_scatter(const cx_args *a)
{
    return a->coll == CX_COLL_SCATTER || a->coll == CX_COLL_SCATTERV;
}

/* Bytes of this rank's block (at the root: from the root's own arrays). */
static long long my_bytes(const cx_args *a)
{
    cx_piece b = a->rank == a->root ? cx_all_block(a, a->root) : cx_own_piece(a);
    return (long long)cx_type_bytes(b.count, b.type);
}

static int emit(const cx_args *a, cx_sched *s, const tuw_plan *plan)
{
    return is_scatter(a) ? tuw_emit_scatter(a, s, plan) : tuw_emit_gather(a, s, plan);
}

/* What the data phase needs once the construction is complete: the
 * arguments (copied: the caller's record is gone after CX_Igatherv
 * returns) and the plan the construction filled. */
typedef struct irregular {
    cx_args a;
    tuw_plan dist;
} irregular;

/* Whether the root's replay has the tree the construction built. */
static int same_tree(const tuw_plan *full, const tuw_plan *built)
{
    int tree_children = 0;
    if (full->final.M != built->final.M || full->final.nd != built->final.nd)
        return 0;
    for (int c = 0; c < full->nchild; c++)
        tree_children += !full->child[c].direct;
    if (tree_children != built->nchild)
        return 0;
    for (int b = 0; b < built->nchild; b++) {
        const tuw_edge *e = &built->child[b];
        int found = 0;
        for (int c = 0; c < full->nchild && !found; c++) {
            const tuw_edge *f = &full->child[c];
            found = !f->direct && f->peer == e->peer && f->lo == e->lo && f->hi == e->hi &&
                    f->bytes == e->bytes;
        }
        if (!found)
            return 0;
    }
    return 1;
}

static int construction_done(cx_sched *s, void *arg)
{
    irregular *x = arg;
    const cx_args *a = &x->a;
    cx_sched_plan_here(s);   /* a persistent call's starts run the data phase only */
    if (a->rank != a->root)
        return emit(a, s, &x->dist);
    tuw_plan full;
    long long *m = malloc((size_t)a->size * sizeof *m);
    if (!m)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < a->size; i++) {
        cx_piece b = cx_all_block(a, i);
        m[i] = (long long)cx_type_bytes(b.count, b.type);
    }
    int err = tuw_simulate(m, a->size, a->root, a->rank, tuw_threshold(a), s, &full);
    free(m);
    if (err)
        return err;
    /* The replay must agree with what the other ranks built: same data
     * forwarded to the root, same direct subtrees counted, same tree
     * children with the same sizes. It cannot differ unless the ranks'
     * block sizes disagree with the root's counts (an erroneous call):
     * then the root serves the tree the others built, so that nobody
     * waits forever, and returns MPI_ERR_TRUNCATE. (Direct subtrees are
     * only counted: two ranks whose wrong sizes swap which subtree goes
     * direct, all else equal, are not detected.) */
    if (same_tree(&full, &x->dist))
        return emit(a, s, &full);
    err = tuw_emit_erroneous_root(s, &x->dist, is_scatter(a));
    return err ? err : MPI_ERR_TRUNCATE;
}

/* gatherv/scatterv: every rank runs the distributed construction from its
 * own block size, inside the schedule; the data phase is added when it
 * completes. */
static int build_irregular(const cx_args *a, cx_sched *s)
{
    irregular *x = cx_sched_alloc(s, sizeof *x);
    if (!x)
        return MPI_ERR_NO_MEM;
    x->a = *a;
    cx_sched_plan_setup(s);   /* the construction: once per persistent call */
    tuw_build *b = tuw_build_new(my_bytes(a), a->size, a->root, a->rank, tuw_threshold(a),
                                 s->comm, s->tag, s, &x->dist, construction_done, x);
    return b ? tuw_construct_steps(s, b) : MPI_ERR_NO_MEM;
}

/* Regular gather/scatter: every block has b bytes. The tree is built for
 * blocks of one unit, without degradation, and its byte counts scaled by
 * b: its shape does not depend on b, so an erroneous call whose ranks
 * disagree on b still builds one tree on every rank (the sizes that
 * disagree then give MPI_ERR_TRUNCATE, never a hang). */
static int build_regular(const cx_args *a, cx_sched *s)
{
    tuw_plan plan;
    long long b = my_bytes(a), *m = malloc((size_t)a->size * sizeof *m);
    if (!m)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < a->size; i++)
        m[i] = 1;
    int err = tuw_simulate(m, a->size, a->root, a->rank, -1, s, &plan);
    free(m);
    if (err)
        return err;
    plan.parent.bytes *= b;
    for (int c = 0; c < plan.nchild; c++)
        plan.child[c].bytes *= b;
    plan.final.M *= b;
    plan.final.mg *= b;
    return emit(a, s, &plan);
}

/* The tree decides which messages exist (a subtree without data sends
 * none): empty messages are never sent, whatever the collective. */
int cx_tuw_gatherv(const cx_args *a, cx_sched *s)
{
    s->keep_empty = 0;
    return build_irregular(a, s);
}

int cx_tuw_scatterv(const cx_args *a, cx_sched *s)
{
    s->keep_empty = 0;
    return build_irregular(a, s);
}

/* Regular: every message of the (size-independent) tree exists, empty
 * ones too (keep_empty, as for every regular collective). */
int cx_tuw_gather(const cx_args *a, cx_sched *s)
{
    return build_regular(a, s);
}

int cx_tuw_scatter(const cx_args *a, cx_sched *s)
{
    return build_regular(a, s);
}
