/* collx's own host time is never SMPI's computation: smpi_bench.h says
 * why (SMPI build only; a real MPI's are sim.h's no-ops). */
#include "util.h"

static int inside;   /* per rank: SMPI privatizes the program's globals */

void cx_bench_enter(void)
{
    if (inside++ == 0) {   /* the program's time so far: charged */
        smpi_bench_end();
        smpi_bench_begin();
    }
}

void cx_bench_leave(void)
{
    if (--inside == 0)
        smpi_bench_begin();
}

void cx_bench_drop(void)
{
    if (inside)
        smpi_bench_begin();
}
