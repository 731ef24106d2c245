/* SMPI's "native" stand-ins (registry.c says why; a real MPI's natives
 * are the MPI's own: stand_in.mpi.c). Each collective whose algorithm a
 * family marks .smpi_native gets that family's algorithm behind "native"
 * where its predicate says so for SMPI's selector, SMPI's own elsewhere. */
#include "select.h"

static const cx_algorithm *stand_in[CX_COLL_COUNT];
static char selector[CX_COLL_COUNT][32];

static int stand_in_build(const cx_args *a, cx_sched *s)
{
    const cx_algorithm *alg = stand_in[a->coll];
    if (!selector[a->coll][0])   /* the same for every call of the run */
        cx_smpi_selector(cx_coll_name(a->coll), selector[a->coll], sizeof selector[0]);
    int stands_in = alg->smpi_native(a, selector[a->coll]);
    if (cx_verbose() >= 2 && a->rank == 0)
        cx_say("%s: native in SMPI runs %s", cx_coll_mpi_name(a->coll),
               stands_in ? alg->name : "SMPI's own");
    return stands_in ? alg->build(a, s) : cx_sched_mpi_collective(s, a);
}

void cx_smpi_stand_ins(cx_algorithm *natives, const cx_algorithm *const *all, int nall)
{
    for (int i = 0; i < nall; i++)
        if (all[i]->smpi_native) {
            cx_algorithm *n = &natives[all[i]->coll];
            stand_in[all[i]->coll] = all[i];
            n->build = stand_in_build;
            n->family_data = all[i]->family_data;
            n->summary = "in SMPI: where SMPI's own is no MPI's or cannot be simulated at "
                         "scale, the MPI's own algorithm run by collx";
        }
}
