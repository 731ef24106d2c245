/* collx_info: lists every collective and its registered algorithms (the
 * same registry CX_Algorithm_set and COLLX_<COLL>_ALGORITHM choose from),
 * with what each needs and what runs instead when it cannot serve a call. */
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
        for (int i = 0; i < CX_Algorithm_count(coll); i++) {
            char needs[256];
            printf("  %-20s %s\n", CX_Algorithm_name(coll, i),
                   CX_Algorithm_summary(coll, i));
            if (CX_Algorithm_needs(coll, i, needs, sizeof needs) > 0)
                printf("  %-20s needs: %s\n", "", needs);
        }
    }
    MPI_Finalize();
    return 0;
}
