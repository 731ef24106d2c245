/* The families of algorithms (util/catalogue.h): add a family by adding its name
 * here; its register.c defines cx_<name>_family. */
#include <pthread.h>
#include "util.h"

#define CX_FAMILIES(X) X(base) X(irregular) X(pap) X(hier) X(rma) X(topo)

#define CX_DECLARE(name) extern const cx_family cx_##name##_family;
CX_FAMILIES(CX_DECLARE)
#undef CX_DECLARE

#define CX_ENTRY(name) &cx_##name##_family,
const cx_family *const cx_families[] = {CX_FAMILIES(CX_ENTRY) NULL};
#undef CX_ENTRY

_Static_assert(sizeof cx_families / sizeof *cx_families <= CX_MAX_FAMILIES + 1, /* + NULL */
               "raise CX_MAX_FAMILIES");

static pthread_once_t slots_once = PTHREAD_ONCE_INIT;

/* The families with an after_call hook, so that the end of every
 * blocking call looks at those only. */
static int after_call[CX_MAX_FAMILIES], n_after_call;

static void number_slots(void)
{
    for (int i = 0; cx_families[i]; i++) {
        if (cx_families[i]->slot)
            *cx_families[i]->slot = i;
        if (cx_families[i]->after_call)
            after_call[n_after_call++] = i;
    }
}

const int *cx_families_after_call(int *n)
{
    *n = n_after_call;
    return after_call;
}

void cx_families_init(void)
{
    pthread_once(&slots_once, number_slots);
}
