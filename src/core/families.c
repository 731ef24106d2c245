/* The families of algorithms (family.h): add a family by adding its name
 * here; its register.c defines cx_<name>_family. */
#include "cx_internal.h"

#define CX_FAMILIES(X) X(base) X(irregular) X(pap) X(hier) X(rma) X(topo)

#define CX_DECLARE(name) extern const cx_family cx_##name##_family;
CX_FAMILIES(CX_DECLARE)
#undef CX_DECLARE

#define CX_ENTRY(name) &cx_##name##_family,
const cx_family *const cx_families[] = {CX_FAMILIES(CX_ENTRY) NULL};
#undef CX_ENTRY

_Static_assert(sizeof cx_families / sizeof *cx_families <= CX_MAX_FAMILIES + 1,
               "raise CX_MAX_FAMILIES");

void **cx_comm_state(cx_comm *c, const cx_family *f)
{
    int i = 0;
    while (cx_families[i] && cx_families[i] != f)
        i++;
    return &c->family_state[i];   /* an unlisted family: the spare slot */
}
