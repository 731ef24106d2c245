/* Träff's linear-time ordered gather/scatter trees ("tuw").
 *
 * Ranks are grouped into ordered (incomplete) hypercubes: at level d the
 * cube of rank i is [a 2^d, min((a+1) 2^d, p)) with a = i >> d. Cubes a and
 * a^1 merge at level d. Every cube has a fixed root (its last rank, so
 * p-1 for the incomplete last cube) and a gather root g, which holds the
 * cube's data. When two cubes merge, the gather root with the smaller gather
 * time estimate sends its data to the other (Lemma 1); a cube holding the
 * external root r always receives (Lemma 2). A scatter runs the same tree
 * backwards. All sizes are in bytes. */
#ifndef CX_TUW_H
#define CX_TUW_H

#include "../core/select/select.h"

/* What the fixed and gather roots of a cube know about it (Lemma 3). */
typedef struct tuw_info {
    long long M;    /* bytes the gather root will forward: the cube's data
                       minus the subtrees that went directly to the root */
    long long mg;   /* bytes of the gather root's own block */
    long long g;    /* gather root */
    long long nd;   /* subtrees of this cube that send directly to the root */
} tuw_info;
#define TUW_INFO_LEN 4  /* long longs on the wire */

/* Outcome of merging the lower cube A with the upper cube B. */
typedef struct tuw_merge {
    int sender_is_a;  /* A's gather root gives its data away */
    int direct;       /* ... straight to the root (graceful degradation) */
    tuw_info merged;
} tuw_merge;

tuw_merge tuw_merge_cubes(const tuw_info *A, const tuw_info *B, int a_has_root,
                          int b_has_root, int root, long long threshold);

/* One message of the data phase, seen from this rank. */
typedef struct tuw_edge {
    int peer;         /* child (gather: sender; scatter: receiver) or parent */
    int lo, hi;       /* rank range of the subtree (holes of direct subtrees
                         inside are not in the message) */
    long long bytes;
    int level;        /* merge level at which the message is sent */
    int direct;       /* a subtree that skips the intermediate roots: the
                         root cannot tell who from its own view when sizes
                         disagree, so a scatter's direct receiver asks for
                         its data (a tuw_ready message) */
} tuw_edge;

/* What a direct receiver of a scatter asks the root for: lo, hi, bytes. */
#define TUW_READY_LEN 3

/* This rank's part of the tree: at most one parent, children by level. */
typedef struct tuw_plan {
    int has_parent;
    tuw_edge parent;
    int nchild;
    tuw_edge *child;  /* at the root: tree children and direct subtrees */
    int *owner;       /* root only: owner[i] = the child whose message
                         carries block i (-1: the root's own block) */
    tuw_info final;   /* this rank's view of the whole tree (root: exact) */
} tuw_plan;

/* Levels of the ordered hypercube: ceil(log2 p). */
int tuw_levels(int p);
/* Bytes above which a subtree of call a sends directly to the root
 * (COLLX_TUW_DIRECT_THRESHOLD, per call; negative = never). */
long long tuw_threshold(const cx_args *a);

/* The whole tree from every block size m[0..p) (known at the root of
 * gatherv/scatterv, and everywhere for gather/scatter): me's plan. */
int tuw_simulate(const long long *m, int p, int root, int me, long long threshold,
                 cx_sched *s, tuw_plan *plan);
/* Lemma 3: the distributed construction from this rank's block size alone,
 * in ceil(log2 p) rounds of at most two constant-size exchanges on comm
 * with tag. As schedule steps: tuw_build_new prepares it (memory from s),
 * tuw_construct_steps adds it to s; when the plan is complete, done(s, arg)
 * runs and may add the data phase. tuw_construct runs it blocking. */
typedef struct tuw_build tuw_build;
tuw_build *tuw_build_new(long long mine, int p, int root, int me, long long threshold,
                         MPI_Comm comm, int tag, cx_sched *s, tuw_plan *plan,
                         int (*done)(cx_sched *s, void *arg), void *arg);
int tuw_construct_steps(cx_sched *s, tuw_build *b);
int tuw_construct(long long mine, int p, int root, int me, long long threshold,
                  MPI_Comm comm, int tag, cx_sched *s, tuw_plan *plan);

/* The root's data phase when its counts contradict the tree the ranks
 * built (an erroneous call): it serves that tree from scratch memory so
 * that nobody waits forever (the caller returns MPI_ERR_TRUNCATE). */
int tuw_emit_erroneous_root(cx_sched *s, const tuw_plan *built, int scatter);

/* Data phase of the plan as schedule rounds. */
int tuw_emit_gather(const cx_args *a, cx_sched *s, const tuw_plan *plan);
int tuw_emit_scatter(const cx_args *a, cx_sched *s, const tuw_plan *plan);

/* Registered algorithms. */
int cx_tuw_gatherv(const cx_args *a, cx_sched *s);
int cx_tuw_scatterv(const cx_args *a, cx_sched *s);
int cx_tuw_gather(const cx_args *a, cx_sched *s);
int cx_tuw_scatter(const cx_args *a, cx_sched *s);

#endif
