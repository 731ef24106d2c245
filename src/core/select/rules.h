/* Rules inside the selection room: rules.c reads a set of them (the
 * COLLX_RULES file, or a family's built-in set, rules_builtin.c),
 * rules_pick.c works out what a set picks for a communicator (the nearest
 * rule beyond its ranges among them), beyond.c says and counts the calls
 * beyond the file's. */
#ifndef CX_RULES_H
#define CX_RULES_H

#include "select.h"

typedef struct { long long lo, hi; } cx_range;   /* inclusive */

typedef struct cx_rule {
    cx_coll coll;
    const cx_algorithm *alg;
    cx_range comm_size, msg_size, ranks_per_node;
    cx_knob_params *params;   /* NULL: none */
    const cx_algorithm **candidates;   /* NULL-terminated; NULL: none */
    int index;                /* rules[index] in the file */
} cx_rule;

/* One document in the rules format, as read. */
typedef struct cx_rule_set {
    const char *where;   /* for messages: "COLLX_RULES=F", "built-in rules N (F)" */
    const char *check;   /* the file `collx rules check` reads; NULL: built in */
    cx_rule *rules;      /* those that can be used, in the file's order */
    int n;
    int broken;          /* the document is not used: no rule serves */
    int need_nodes;      /* some rule looks at ranks_per_node */
    int beyond_native;   /* "beyond": "native" (else the nearest rule) */
    char where_tuned[256];   /* the provenance, in words ("" none) */
} cx_rule_set;

/* Reads text into set (set->where and set->check given): a rule that
 * cannot be used is said and dropped, a document that cannot be used at
 * all is said and marked broken. */
void cx_rules_read(cx_rule_set *set, const char *text);

/* Built-in set number set (registry.h), read on first use. */
const cx_rule_set *cx_rules_builtin(int set);

/* The COLLX_RULES file (loaded on first use). */
const cx_rule_set *cx_rules_file(void);

static inline int cx_range_holds(const cx_range *r, long long v)
{
    return v >= r->lo && v <= r->hi;
}

#endif
