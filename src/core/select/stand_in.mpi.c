/* On a real MPI "native" is the MPI's own call, always (stand_in.smpi.c:
 * SMPI's stand-ins). */
#include "select.h"

void cx_smpi_stand_ins(cx_algorithm *natives, const cx_algorithm *const *all, int nall)
{
    (void)natives, (void)all, (void)nall;
}
