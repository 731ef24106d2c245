/* What the reference MPI can be trusted with: probed once at start-up,
 * each finding printed as a NOTE on rank 0 (README: quirks). */
#ifndef QUIRKS_H
#define QUIRKS_H

#include "cases.h"

/* Count up to which struct cases run when the MPI truncates large
 * MPI_PACKED -> struct messages. */
#define STRUCT_SMALL 17

/* Collective over comm. */
void quirks_probe(MPI_Comm comm);
/* Whether case t of coll (a tcase, or an rcase for reductions) can be
 * checked at count n. */
int quirk_case_ok(int coll, int t, int n);
/* Whether the reversed-with-gaps layout of coll can be checked. */
int quirk_gapped_ok(int coll);
/* Whether struct messages of count n can be checked. */
int quirk_struct_ok(int n);
/* Whether the MPI's own call, which collx's native algorithm is, crashes
 * on case c in mode (MODE_*): the native algorithm is then not run, and
 * the reference takes the in-place input from c->alt. */
int quirk_native_crashes(const call *c, int mode);
/* Whether the MPI's own calls at MPI_BOTTOM can run (sequence.c runs
 * them for its references: where not, its steps leave MPI_BOTTOM out). */
int quirk_bottom_ok(void);

#endif
