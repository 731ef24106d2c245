/* The catalogue of algorithms and how one is chosen for a call. */
#ifndef CX_REGISTRY_H
#define CX_REGISTRY_H

#include "../util/util.h"
#include "../engine/engine.h"
#include "decision.h"

struct cx_knob_params;

/* The catalogue's rows (cx_algorithm, CX_ALG) are data: util/catalogue.h. */
const cx_algorithm *cx_algorithm_find(cx_coll c, const char *name);
const cx_algorithm *cx_native(cx_coll c);
/* Index of alg in the catalogue (for counters), -1 if none; the number of
 * algorithms, alike in every process, and the one at an index. */
int cx_algorithm_index(const cx_algorithm *alg);
int cx_algorithm_total(void);
const cx_algorithm *cx_algorithm_at(int i);
/* Prints the valid names of c, comma separated. */
void cx_algorithm_list(void *file, cx_coll c, const char *sep);
/* The calls of each algorithm by registry index, and COLLX_VERBOSE's
 * line for one (counts.c). */
extern atomic_long cx_counted_calls[CX_MAX_ALGS];
void cx_count_say(int i, const cx_algorithm *alg, const cx_args *a, int verbose);
/* Counts a call of alg at registry index i (prints it under
 * COLLX_VERBOSE), for a call not measured (a->ran NULL). Inline: every
 * call counts. */
static inline void cx_count_unmeasured(int i, const cx_algorithm *alg, const cx_args *a)
{
    if (i < 0)
        return;
    atomic_fetch_add_explicit(&cx_counted_calls[i], 1, memory_order_relaxed);
    int verbose = cx_verbose();
    if (verbose > 0)
        cx_count_say(i, alg, a, verbose);
}
/* The same for any call: the last algorithm counted for a call is the
 * one that ran it (COLLX_STATS). */
static inline void cx_count_call_at(int i, const cx_algorithm *alg, const cx_args *a)
{
    if (i >= 0 && a->ran)
        *a->ran = alg;
    cx_count_unmeasured(i, alg, a);
}
/* The same where alg's registry index is not kept (cx_algorithm_index). */
static inline void cx_count_call(const cx_algorithm *alg, const cx_args *a)
{
    cx_count_call_at(cx_algorithm_index(alg), alg, a);
}

/* The decision for a call (decide.c): asked (the selected algorithm, with
 * the params of the rule that picked it) or the first of its fallbacks
 * that can serve it, into *d. A fallback is
 * counted, said under COLLX_VERBOSE / COLLX_FALLBACK=print, and under
 * COLLX_FALLBACK=error returned as an error code of class
 * MPI_ERR_UNSUPPORTED_OPERATION naming the requirement (d->why set);
 * other errors: the node layout could not be learnt. *steady: the same
 * decision holds for every call with the same arguments (no per-call
 * check looked at anything else). */
int cx_decide(const cx_args *a, cx_comm *c, const cx_algorithm *asked,
              const struct cx_knob_params *params, cx_decision *d, int *steady);
/* Whether alg (with params) serves call a itself, without a fallback:
 * nothing counted or said; the decision is cached as cx_decide's. */
int cx_decide_serves(const cx_args *a, cx_comm *c, const cx_algorithm *alg,
                     const struct cx_knob_params *params, int *err);
/* A call that asked could not serve is handed to `to` (bit: the
 * requirement missed, 0 for none of the CX_REQ_* ones): counted, said,
 * and MPI_SUCCESS or, under COLLX_FALLBACK=error, the error to return. */
int cx_fell_back(const cx_args *a, const cx_algorithm *asked, const cx_algorithm *to,
                 unsigned bit, const char *why);
/* The same, found by a->alg's builder (the same finding on every rank):
 * the error, if any, is recorded in s, which the builder then fills with
 * `to` (NULL: native) as usual, so no peer waits. */
void cx_fall_back_in_build(const cx_args *a, cx_sched *s, const cx_algorithm *to,
                           unsigned bit, const char *why);
/* A requirement bit in words ("a commutative operation"), NULL if unknown
 * (registry.c). */
const char *cx_req_text(unsigned bit);
/* Index in cx_families of the family alg belongs to, -1 for native. */
int cx_algorithm_family(const cx_algorithm *alg);
/* Counts a call a that asked for `asked` and ran `to`, because of
 * requirement bit (0: none of the CX_REQ_* ones), why in words (stats.c). */
void cx_count_fallback(const cx_args *a, const cx_algorithm *asked, const cx_algorithm *to,
                       unsigned bit, const char *why);
/* Counts a collective that alg runs as a step of another algorithm
 * (cx_sched_collective: e.g. hier's leaders). */
void cx_count_inner(const cx_algorithm *alg);
/* Who watches the hand-overs besides the counters (COLLX_STATS): told of
 * each, with the catalogue index of the algorithm asked for. */
typedef void (*cx_fallback_watch)(const cx_args *a, int asked, const cx_algorithm *to,
                                  unsigned bit, const char *why);
void cx_counts_watch_fallbacks(cx_fallback_watch w);

/* Selection (select.c): the algorithm named for this call by explicit
 * choice > environment > rules > default, decided once per communicator
 * where it can be. NULL with *err set when the environment or the rules
 * file cannot be used. cx_select_global: the choice when no per-
 * communicator information is needed (no rules for c), else NULL. */
const cx_algorithm *cx_select_global(cx_coll c, int *err);
/* The same for call a on c, with the params of the rule that picked it
 * (NULL: none) in *params. */
const cx_algorithm *cx_select(const cx_args *a, cx_comm *c,
                              const struct cx_knob_params **params, int *err);
/* cx_select where cx_select_global has given NULL without an error: the
 * rules file's pick alone; *beyond (if given) says where a call beyond
 * the rules was counted, {NULL} otherwise. */
const cx_algorithm *cx_select_rules(const cx_args *a, cx_comm *c,
                                    const struct cx_knob_params **params, int *err,
                                    struct cx_rules_beyond *beyond);
/* The "candidates" of the rule that picks call a on c (NULL-terminated),
 * NULL when none does. */
const cx_algorithm *const *cx_select_candidates(const cx_args *a, cx_comm *c);
/* Whether CX_Algorithm_set or COLLX_<COLL>_ALGORITHM names c's algorithm
 * (online tuning leaves such collectives alone). */
int cx_select_forced(cx_coll c);
/* Generation of what a call's decision rests on besides its arguments:
 * CX_Algorithm_set and the settings check's verdict bump it. */
unsigned cx_select_generation(void);
void cx_select_changed(void);

/* Adds the collective a, on a->comm (a communicator collx owns: node,
 * leaders...), to s: with alg as a child schedule, or with its fallback
 * (repeatedly) where alg cannot serve a (a commutative op needed), or
 * natively (alg NULL or "native", or an algorithm that needs more than a
 * commutative op: the MPI's blocking call inside a start step when
 * a->nonblocking is 0, else its PMPI_I<coll>; in SMPI native's stand-in
 * where it has one, as a child). The steps go into the
 * current round (a child: that round and the next). */
int cx_sched_collective(cx_sched *s, const cx_args *a, const cx_algorithm *alg);
/* The same with the MPI's own call, never a stand-in (a stand-in's way
 * to SMPI's own where it does not stand in). */
int cx_sched_mpi_collective(cx_sched *s, const cx_args *a);
/* SMPI: each native in natives whose collective has a family's algorithm
 * marked .smpi_native among all gets that stand-in (stand_in.smpi.c); a
 * real MPI's natives stay the MPI's (stand_in.mpi.c). */
void cx_smpi_stand_ins(cx_algorithm *natives, const cx_algorithm *const *all, int nall);

/* Rules file (rules.c). */
int cx_rules_broken(void);
/* The rules in words for the verbose banner: how many, for which
 * collectives, where they were tuned (the file's provenance). */
void cx_rules_describe(char *buf, size_t len);
int cx_rules_mention(cx_coll c);
int cx_rules_need_nodes(void);
/* Candidate rules of set (rules.h: the file, or a built-in set) for c on
 * a communicator (rules_pick.c): those whose comm_size and ranks_per_node
 * ranges hold, -1 terminated, malloc'ed; NULL on no memory. When no
 * comm_size range holds, *beyond = 1 and, under "beyond": "nearest", the
 * candidates are the rules of c (their ranks_per_node holding) nearest in
 * communicator size. */
struct cx_rule_set;
int *cx_rules_prune(const struct cx_rule_set *set, cx_coll c, int comm_size,
                    int ranks_per_node, int *beyond);
/* Whether the rules may look at c's message size (every rank knows it). */
int cx_rules_sized(cx_coll c);
/* The message size the rules look at for call a (made by rank). */
long long cx_rules_msg_size(const cx_args *a);
long long cx_rules_msg_size_of(const cx_args *a, int rank);
/* What the candidates pick for every message size: classes of sizes in
 * increasing order, covering 0..LLONG_MAX, into *out (malloc'ed); their
 * number, -1 on no memory. Sizes no candidate holds are beyond the rules
 * (as every size is when beyond, prune's): their nearest candidate picks,
 * or native. */
int cx_rules_classes(const struct cx_rule_set *set, const int *cands, int beyond,
                     cx_rules_class **out);
/* A family's built-in rules (rules_builtin.c, from src/<family>/<name>.rules.json,
 * CX_BUILTIN_RULES_<NAME> of cx_builtin_rules.h): what they pick for the
 * call a among comm_size ranks, worked out once per communicator c (whose
 * own size may differ: a node leaders' step) and cached there, as the
 * file's are. The algorithm (native: the collective's native entry) and
 * the rule's params; NULL with *err on no memory. */
const cx_algorithm *cx_select_builtin(int set, const cx_args *a, cx_comm *c, int comm_size,
                                      const cx_knob_params **params, int *err);
/* A call whose class k's cl is beyond the rules (beyond.c): shown to the
 * watcher, and said once per (collective, communicator size) under
 * COLLX_VERBOSE. */
void cx_rules_beyond_call(const cx_args *a, cx_rules_cache *k, const cx_rules_class *cl);
/* Who watches the calls beyond the rules (COLLX_STATS counts them): told
 * of each, with the file's index of the rule that picked (-1: none, native
 * runs) and the algorithm picked. */
typedef void (*cx_beyond_watch)(const cx_args *a, int rule, const cx_algorithm *alg);
void cx_rules_watch_beyond(cx_beyond_watch w);

#endif
