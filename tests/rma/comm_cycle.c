#define _POSIX_C_SOURCE 200809L /* strdup, strtok_r */
/* Communicators made and freed in turn, each used for broadcasts from
 * every root (issue 54): MPI_COMM_WORLD, its duplicate, the two halves of
 * a split and the odd/even split, freed before the next is made, so the
 * two communicators of one MPI_Comm_split run their collectives (and set
 * up collx's per-communicator resources: RMA windows, node segments)
 * at the same time on disjoint ranks of one node. On Debian's Open MPI
 * 4.1 the two halves of a split can hold the same context id, and
 * osc/rdma named its node segment by it alone: the halves' windows
 * shared memory (wrong data), one leader unlinked the other's file
 * (ENOENT), or truncated it (SIGBUS). Every element is checked.
 *
 * Before collx's windows were made so that they cannot collide (src/rma/
 * window.c), this failed in most runs: wrong elements, a crash, a hang
 * (under the test's timeout), or windows that some rank could not make,
 * after which the drop-in ran native. So the algorithms of the first list
 * must serve every broadcast (on one node the RMA ones can); those of
 * the second list (e.g. hier, which one node leaves to its fallback) are
 * checked for their data only.
 *
 * usage: comm_cycle rounds count served[,served...] [checked[,checked...]]
 * ("-" for an empty list) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "collx.h"

static int world_rank, failures;

static short value(int round, int comm_no, int root, long i)
{
    return (short)(round * 7919 + comm_no * 613 + root * 101 + i * 3);
}

/* Broadcasts of count shorts from every root of comm, then count / 3
 * (an LL-sized and a staging-sized message in turn), every element
 * checked. */
static void bcast_all_roots(MPI_Comm comm, int round, int comm_no, const char *name,
                            long count, short *buf)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int root = 0; root < size; root++)
        for (int part = 0; part < 2; part++) {
            long n = part ? count / 3 + 1 : count;
            for (long i = 0; i < n; i++)
                buf[i] = rank == root ? value(round, comm_no, root, i) : (short)-1;
            int err = CX_Bcast(buf, (int)n, MPI_SHORT, root, comm);
            if (err != MPI_SUCCESS) {
                printf("FAIL world rank %d: round %d comm %s root %d: error %d\n", world_rank,
                       round, name, root, err);
                failures++;
                continue;
            }
            for (long i = 0; i < n; i++)
                if (buf[i] != value(round, comm_no, root, i)) {
                    printf("FAIL world rank %d: round %d comm %s root %d count %ld: element "
                           "%ld is %d, want %d\n", world_rank, round, name, root, n, i, buf[i],
                           value(round, comm_no, root, i));
                    failures++;
                    break;
                }
        }
}

/* Every round for algorithm alg; with must_serve, no call handed over. */
static void cycle(const char *alg, int must_serve, int rounds, long count, short *buf)
{
    static const char *const names[] = {"world", "dup", "halved", "odd/even"};
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (CX_Algorithm_set("bcast", alg) != MPI_SUCCESS) {
        fprintf(stderr, "comm_cycle: unknown algorithm %s\n", alg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long handed = CX_Algorithm_fallbacks("bcast", alg);
    for (int round = 0; round < rounds; round++)
        for (int c = 0; c < 4; c++) {
            MPI_Comm comm = MPI_COMM_WORLD;
            if (c == 1)
                MPI_Comm_dup(MPI_COMM_WORLD, &comm);
            else if (c == 2)
                MPI_Comm_split(MPI_COMM_WORLD, world_rank < size / 2, world_rank, &comm);
            else if (c == 3)
                MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &comm);
            bcast_all_roots(comm, round, c, names[c], count, buf);
            if (comm != MPI_COMM_WORLD)
                MPI_Comm_free(&comm);
        }
    handed = CX_Algorithm_fallbacks("bcast", alg) - handed;
    if (must_serve && handed > 0) {
        printf("FAIL world rank %d: %ld broadcasts handed from %s to its fallback\n",
               world_rank, handed, alg);
        failures++;
    }
}

static void cycle_list(const char *list, int must_serve, int rounds, long count, short *buf)
{
    char *copy = strdup(list), *save = NULL;
    for (char *a = strtok_r(copy, ",", &save); a; a = strtok_r(NULL, ",", &save))
        if (strcmp(a, "-") != 0)
            cycle(a, must_serve, rounds, count, buf);
    free(copy);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 4) {
        fprintf(stderr, "usage: comm_cycle rounds count served[,...] [checked[,...]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rounds = atoi(argv[1]);
    long count = atol(argv[2]);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    short *buf = malloc((size_t)count * sizeof *buf + 1);
    cycle_list(argv[3], 1, rounds, count, buf);
    if (argc > 4)
        cycle_list(argv[4], 0, rounds, count, buf);
    long all = 0, mine = failures;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("%s: %d rounds of %ld shorts, every root, 4 communicators; failures %ld\n",
               all ? "FAIL" : "OK", rounds, count, all);
    free(buf);
    MPI_Finalize();
    return all ? 1 : 0;
}
