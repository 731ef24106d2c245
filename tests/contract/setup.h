/* Shared by the setup_<coll> functions: seeds, block sizes, placement. */
#ifndef SETUP_H
#define SETUP_H

#include "cases.h"

#define GAP 3   /* elements between blocks in the gapped layout */

/* One setup function per collective of collx_colls.h: arguments and input
 * buffers of case c for count n; salt varies the values and block sizes. */
#define SETUP_DECL(E, N, l) void setup_##l(call *c, int n, int salt);
CX_COLLECTIVES(SETUP_DECL)
#undef SETUP_DECL

unsigned seed_of(int rank, int block, int salt);
/* Per-rank units for the v-collectives: zero blocks and uneven sizes. */
int vcount(int n, int i, int salt);
/* Block counts (elements of a side with multiplier mul) and displacements
 * for the given units; returns the span in elements. */
int plan(int p, const int *units, int mul, int layout, int *cnt, int *dsp);
/* Element disp of side t in b. */
char *at(const tbuf *b, MPI_Aint disp, const tside *t);
/* Arrays of p ints / datatypes, freed by call_free. */
int *ints(const call *c);
MPI_Datatype *types(const call *c);

#endif
