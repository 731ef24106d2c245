/* A plain MPI program (no collx) for settings that differ between ranks
 * (src/core/select/settings.c), run under the interposer with MPMD launches that
 * give some ranks other settings, or no preload at all:
 *
 *   differ:  COLLX_ALLREDUCE_ALGORITHM on rank 0 only. MPI_Allreduce must
 *            return MPI_ERR_OTHER on every rank (it hung before), the
 *            other collectives work.
 *   missing: the preload on some ranks only. Every call must work (the
 *            ranks with collx hand them to the MPI, as the others do).
 *   late:    rank 1 enters MPI_Bcast 3 s late: the others, waiting in
 *            it, say so (COLLX_WAIT_WARN=1) and then finish.
 *
 * Each rank prints its MPI_Allreduce's error class; rank 0 gathers them
 * with MPI_Gather (whose settings agree) and prints a summary.
 * usage: settings differ|missing|late */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, failures = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int differ = argc > 1 && strcmp(argv[1], "differ") == 0;

    int x[64], sum[64], cls = MPI_SUCCESS;
    for (int i = 0; i < 64; i++)
        x[i] = rank + i;
    int err = MPI_Allreduce(x, sum, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (err)
        MPI_Error_class(err, &cls);
    if (!err)
        for (int i = 0; i < 64; i++)
            failures += sum[i] != size * (size - 1) / 2 + size * i;
    if (differ ? cls != MPI_ERR_OTHER : cls != MPI_SUCCESS)
        failures++;

    int b[1000];
    for (int i = 0; i < 1000; i++)
        b[i] = rank == 1 ? i * 3 : -1;
    if (argc > 1 && strcmp(argv[1], "late") == 0 && rank == 1) {
        struct timespec t = {3, 0};
        nanosleep(&t, NULL);
    }
    failures += MPI_Bcast(b, 1000, MPI_INT, 1, MPI_COMM_WORLD) != MPI_SUCCESS;
    for (int i = 0; i < 1000; i++)
        failures += b[i] != i * 3;

    int mine[2] = {cls, failures}, all[2 * 64];
    MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int other = 0, total = 0;
        for (int r = 0; r < size && r < 64; r++) {
            other += all[2 * r] == MPI_ERR_OTHER;
            total += all[2 * r + 1];
        }
        printf("settings %s: MPI_Allreduce returned MPI_ERR_OTHER on %d of %d ranks; "
               "%d failures: %s\n", argc > 1 ? argv[1] : "?", other, size, total,
               total ? "FAIL" : "OK");
        failures = total;
    }
    MPI_Finalize();
    return failures ? 1 : 0;
}
