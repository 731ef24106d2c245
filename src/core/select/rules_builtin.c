/* Built-in rules: a family's own choices (hier's leaders' algorithms) as
 * a document in the rules format, src/<family>/<name>.rules.json,
 * compiled in by cmake/catalogue.cmake, read by the rules file's reader
 * and evaluated as a file's rules are (select.c): what a user could write,
 * and what `collx rules check` reads. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include "collx_tools.h"
#include "rules.h"
#include "cx_builtin_rules.h"

typedef struct builtin {
    const char *name, *path, *text;
} builtin;

#define CX_BUILTIN_RULES_ROW(name, path, text) {name, path, text},
static const builtin table[] = {
#include "cx_builtin_rules.h"
};
#undef CX_BUILTIN_RULES_ROW
_Static_assert(sizeof table / sizeof *table == CX_BUILTIN_RULES_COUNT,
               "one row per built-in set");

static cx_rule_set sets[CX_BUILTIN_RULES_COUNT];
static char wheres[CX_BUILTIN_RULES_COUNT][160];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_int ready;   /* read: every call of a family that has rules asks */

static void read_all(void)
{
    for (int i = 0; i < CX_BUILTIN_RULES_COUNT; i++) {
        snprintf(wheres[i], sizeof wheres[i], "%s (%s)", table[i].name, table[i].path);
        sets[i].where = wheres[i];
        cx_rules_read(&sets[i], table[i].text);
    }
    atomic_store_explicit(&ready, 1, memory_order_release);
}

const cx_rule_set *cx_rules_builtin(int set)
{
    if (!atomic_load_explicit(&ready, memory_order_acquire))
        pthread_once(&once, read_all);
    return &sets[set];
}

const char *CX_Rules_builtin(int set, const char **path, const char **text)
{
    if (set < 0 || set >= CX_BUILTIN_RULES_COUNT)
        return NULL;
    if (path)
        *path = table[set].path;
    if (text)
        *text = table[set].text;
    return table[set].name;
}
