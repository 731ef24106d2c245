/* The rules file inside the selection room: rules.c reads it, rules_pick.c
 * works out what it picks for a communicator (the nearest rule beyond its
 * ranges among them), beyond.c says and counts the calls beyond them. */
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

/* The rules that can be used, in the file's order (loaded on first use);
 * their number into *n. */
const cx_rule *cx_rules_loaded(int *n);
/* The file's "beyond": 1 "nearest" (also when absent), 0 "native". */
int cx_rules_nearest(void);

static inline int cx_range_holds(const cx_range *r, long long v)
{
    return v >= r->lo && v <= r->hi;
}

#endif
