/* The families of algorithms (util/catalogue.h): their table, cx_families,
 * is generated from CMakeLists.txt's COLLX_FAMILIES (cmake/catalogue.cmake),
 * above the core, which names no family; here, what the core keeps of it. */
#include <pthread.h>
#include "util.h"

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

const char *cx_family_name(int f)
{
    return f >= 0 && f < CX_MAX_FAMILIES ? cx_families[f]->name : NULL;
}
