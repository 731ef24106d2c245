/* Which algorithm SMPI's own collective follows (smpi_selector.cpp, SMPI
 * builds only): the value of smpi/<coll> where it names one ("pair"), else
 * smpi/coll-selector's ("ompi", "mpich", "impi", ... or "default"), into
 * out. coll is SimGrid's name of the collective ("alltoall"). */
#ifndef CX_SMPI_SELECTOR_H
#define CX_SMPI_SELECTOR_H
#include <stddef.h>
void cx_smpi_selector(const char *coll, char *out, size_t len);
#endif
