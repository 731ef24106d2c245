/* collx_info: lists every collective and its registered algorithms (the
 * same registry CX_Algorithm_set and COLLX_<COLL>_ALGORITHM choose from). */
#include <stdio.h>
#include "collx.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int c = 0; rank == 0 && c < CX_Collective_count(); c++) {
        const char *coll = CX_Collective_name(c);
        printf("%s (selected now: %s)\n", coll, CX_Algorithm_get(coll));
        for (int i = 0; i < CX_Algorithm_count(coll); i++)
            printf("  %-20s %s\n", CX_Algorithm_name(coll, i),
                   CX_Algorithm_summary(coll, i));
    }
    MPI_Finalize();
    return 0;
}
