/* The rules file (COLLX_RULES): which algorithm each call runs, per message
 * size, communicator size and ranks per node, with results equal to PMPI_;
 * a rule's params reach the calls it picks and no others; and a file that
 * cannot be used makes the calls fail with MPI_ERR_ARG.
 *   rules good BCAST_ALG   (COLLX_RULES=rules/good.json)
 *   rules overlap          (COLLX_RULES=rules/overlap.json: ranges that overlap)
 *   rules params           (COLLX_RULES=rules/params.json, 2 nodes of 2 ranks,
 *                           COLLX_HIER_INTER=binomial)
 *   rules bad              (COLLX_RULES=a broken file, or a broken rule)
 *   rules mixed            (COLLX_RULES=mixed.json: one rule dropped)
 *   rules beyond           (COLLX_RULES=rules/beyond.json: rules for 2 ranks,
 *                           called on more: the nearest rule picks) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "collx.h"

static int rank, size, fails;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "rules: rank %d: FAIL %s\n", rank, what);
        fails++;
    }
}

/* Runs CX_Gather with n ints per rank; returns the algorithm that ran. */
static const char *gather_with(int n)
{
    static const char *const algs[] = {"native", "linear", "binomial", "linear_sync"};
    long before[4];
    for (int i = 0; i < 4; i++)
        before[i] = CX_Algorithm_calls("gather", algs[i]);
    int *s = malloc(sizeof(int) * (size_t)n), *r = malloc(sizeof(int) * (size_t)n * size);
    int *ref = malloc(sizeof(int) * (size_t)n * size);
    for (int i = 0; i < n; i++)
        s[i] = rank * 1000003 + i;
    CX_Gather(s, n, MPI_INT, r, n, MPI_INT, size - 1, MPI_COMM_WORLD);
    PMPI_Gather(s, n, MPI_INT, ref, n, MPI_INT, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1)
        check(!memcmp(r, ref, sizeof(int) * (size_t)n * size), "gather result");
    free(s); free(r); free(ref);
    for (int i = 0; i < 4; i++)
        if (CX_Algorithm_calls("gather", algs[i]) != before[i])
            return algs[i];
    return "?";
}

static const char *gatherv_ran(void)
{
    long tuw = CX_Algorithm_calls("gatherv", "tuw");
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int total = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = i % 3;
        displs[i] = total;
        total += counts[i];
    }
    int mine[2] = {rank, -rank}, *r = malloc(sizeof(int) * (size_t)(total + 1));
    int *ref = malloc(sizeof(int) * (size_t)(total + 1));
    CX_Gatherv(mine, counts[rank], MPI_INT, r, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    PMPI_Gatherv(mine, counts[rank], MPI_INT, ref, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        check(!memcmp(r, ref, sizeof(int) * (size_t)total), "gatherv result");
    free(counts); free(displs); free(r); free(ref);
    return CX_Algorithm_calls("gatherv", "tuw") != tuw ? "tuw" : "other";
}

static const char *bcast_ran(void)
{
    long lin = CX_Algorithm_calls("bcast", "linear"), bin = CX_Algorithm_calls("bcast", "binomial");
    int v[3] = {0, 0, 0};
    if (rank == 1 % size)
        v[0] = 7, v[1] = 8, v[2] = 9;
    CX_Bcast(v, 3, MPI_INT, 1 % size, MPI_COMM_WORLD);
    check(v[0] == 7 && v[1] == 8 && v[2] == 9, "bcast result");
    return CX_Algorithm_calls("bcast", "linear") != lin ? "linear"
           : CX_Algorithm_calls("bcast", "binomial") != bin ? "binomial" : "other";
}

static void good(const char *bcast_alg)
{
    /* the settings as collx reads them (CX_Setting_get): the environment's,
     * a default, and a name that is no setting */
    char v[256];
    int flag = -1;
    const char *rpn = getenv("COLLX_RANKS_PER_NODE");
    check(CX_Setting_get("COLLX_RANKS_PER_NODE", v, sizeof v, &flag) == MPI_SUCCESS && flag &&
          rpn && !strcmp(v, rpn), "CX_Setting_get: COLLX_RANKS_PER_NODE from the environment");
    check(CX_Setting_get("COLLX_FALLBACK", v, sizeof v, &flag) == MPI_SUCCESS && flag &&
          !strcmp(v, "silent"), "CX_Setting_get: COLLX_FALLBACK's default, silent");
    check(CX_Setting_get("COLLX_NO_SUCH", v, sizeof v, &flag) == MPI_SUCCESS && !flag,
          "CX_Setting_get: no such setting, flag 0");
    check(CX_Setting_get(NULL, v, sizeof v, &flag) == MPI_ERR_ARG, "CX_Setting_get(NULL)");
    /* 256 ints = 1024 B: the first rule's upper bound, inclusive */
    check(!strcmp(gather_with(256), "binomial"), "gather 1024 B -> binomial");
    check(!strcmp(gather_with(257), "linear"), "gather 1028 B -> linear");
    check(!strcmp(gather_with(0), "binomial"), "gather 0 B -> binomial");
    /* below its comm_size range (p = 2): the nearest rule, the same */
    check(!strcmp(gatherv_ran(), "tuw"), "gatherv by comm_size");
    check(!strcmp(bcast_ran(), bcast_alg), "bcast by ranks_per_node");
    /* explicit choice and the environment come before the rules */
    CX_Algorithm_set("gather", "linear_sync");
    check(!strcmp(gather_with(10), "linear_sync"), "CX_Algorithm_set before rules");
    CX_Algorithm_set("gather", NULL);
    check(!strcmp(CX_Algorithm_get("gather"), "native"), "CX_Algorithm_get ignores rules");
}

/* rules/overlap.json: the first rule whose range holds wins, at every
 * edge of every range, whatever the order of the calls (collx looks the
 * size's class up: from the last call's or by bisection). */
static void overlap(void)
{
    static const struct { int ints; const char *alg; } want[] = {
        {0, "linear_sync"}, {12, "linear_sync"}, {13, "native"}, {24, "native"},
        {25, "binomial"}, {50, "binomial"}, {51, "linear"}, {100, "linear"},
        {101, "binomial"}, {250, "binomial"}, {251, "native"}, {100000, "native"}};
    int n = (int)(sizeof want / sizeof *want);
    for (int pass = 0; pass < 3; pass++)
        for (int j = 0; j < n; j++) {
            int i = pass == 0 ? j : pass == 1 ? n - 1 - j : (j * 5) % n;
            char what[96];
            const char *ran = gather_with(want[i].ints);
            snprintf(what, sizeof what, "gather %d B -> %s (ran %s)", 4 * want[i].ints,
                     want[i].alg, ran);
            check(!strcmp(ran, want[i].alg), what);
        }
}

/* Calls of alg for coll run as a step of another algorithm (hier's node
 * leaders), summed over the ranks. */
static long inner(const char *coll, const char *alg)
{
    long mine = CX_Algorithm_inner_calls(coll, alg), all;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

/* One allgather of n ints per rank, checked against PMPI_Allgather; how
 * many allgathervs the leaders ran with bruck and with ring, and which
 * algorithm served the call. */
static void allgather_with(int n, long *bruck, long *ring, const char **alg)
{
    long b = inner("allgatherv", "bruck"), r = inner("allgatherv", "ring");
    long h = CX_Algorithm_calls("allgather", "hier"), ms = CX_Algorithm_calls("allgather", "hier_ms");
    int *s = malloc(sizeof(int) * (size_t)n), *got = malloc(sizeof(int) * (size_t)n * size);
    int *ref = malloc(sizeof(int) * (size_t)n * size);
    for (int i = 0; i < n; i++)
        s[i] = rank * 1000003 + i;
    check(CX_Allgather(s, n, MPI_INT, got, n, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS,
          "allgather returns MPI_SUCCESS");
    PMPI_Allgather(s, n, MPI_INT, ref, n, MPI_INT, MPI_COMM_WORLD);
    check(!memcmp(got, ref, sizeof(int) * (size_t)n * size), "allgather result");
    free(s); free(got); free(ref);
    *bruck = inner("allgatherv", "bruck") - b;
    *ring = inner("allgatherv", "ring") - r;
    *alg = CX_Algorithm_calls("allgather", "hier") != h        ? "hier"
           : CX_Algorithm_calls("allgather", "hier_ms") != ms ? "hier_ms" : "other";
}

/* rules/params.json on 2 nodes of 2 ranks: each call runs with its own
 * rule's COLLX_HIER_INTER (and senders), seen in what the leaders ran. */
static void params(void)
{
    long bruck, ring;
    const char *alg;
    char what[128];
    for (int round = 0; round < 2; round++) {   /* again: cached picks, same answers */
        allgather_with(16, &bruck, &ring, &alg);   /* 64 B: rules[0], bruck */
        snprintf(what, sizeof what, "64 B: hier, leaders by bruck (bruck %ld ring %ld, %s)",
                 bruck, ring, alg);
        check(!strcmp(alg, "hier") && bruck == 2 && ring == 0, what);
        allgather_with(17, &bruck, &ring, &alg);   /* 68 B: rules[1], ring */
        snprintf(what, sizeof what, "68 B: hier, leaders by ring (bruck %ld ring %ld, %s)",
                 bruck, ring, alg);
        check(!strcmp(alg, "hier") && bruck == 0 && ring == 2, what);
        allgather_with(2048, &bruck, &ring, &alg);   /* 8 KiB: rules[2], 2 senders */
        snprintf(what, sizeof what, "8 KiB: hier_ms, 2 columns by ring (bruck %ld ring %ld, "
                 "%s)", bruck, ring, alg);
        check(!strcmp(alg, "hier_ms") && bruck == 0 && ring == 4, what);
    }
    /* A rule without params: the environment's COLLX_HIER_INTER=binomial. */
    long nat = inner("bcast", "native"), bin = inner("bcast", "binomial");
    check(!strcmp(bcast_ran(), "other") && CX_Algorithm_calls("bcast", "hier") > 0,
          "bcast by hier");
    check(inner("bcast", "binomial") - bin == 2 && inner("bcast", "native") == nat,
          "bcast: the leaders run binomial (the environment's value)");
}

/* An allgather with the MPI's result. */
static void allgather_ok(void)
{
    int v = rank, all[64];
    int ok = CX_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS;
    for (int i = 0; ok && i < size; i++)
        ok = all[i] == i;
    check(ok, "allgather: served as without the file");
}

/* A file that cannot be used, or a rule that cannot: every call is served
 * as without it (the MPI's own algorithm), with the MPI's result. */
static void bad(void)
{
    int v = rank == 0 ? 42 : -1;
    long nat = CX_Algorithm_calls("bcast", "native");
    check(CX_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS && v == 42,
          "bcast: served as without the file");
    check(CX_Algorithm_calls("bcast", "native") == nat + 1, "bcast: by native");
    allgather_ok();
}

/* One rule dropped (gatherv's: its calls run native), the other (bcast by
 * binomial) serves. */
static void mixed(void)
{
    int v = rank == 0 ? 7 : -1, one = 1, counts[64], displs[64], all[64];
    long bin = CX_Algorithm_calls("bcast", "binomial");
    long nat = CX_Algorithm_calls("gatherv", "native");
    check(CX_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS && v == 7 &&
          CX_Algorithm_calls("bcast", "binomial") == bin + 1, "bcast: by its rule (binomial)");
    for (int i = 0; i < size; i++)
        counts[i] = one, displs[i] = i;
    v = rank;
    int ok = CX_Gatherv(&v, 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD) ==
             MPI_SUCCESS;
    for (int i = 0; ok && rank == 0 && i < size; i++)
        ok = all[i] == i;
    check(ok && CX_Algorithm_calls("gatherv", "native") == nat + 1,
          "gatherv: its rule dropped, native serves");
    allgather_ok();
}

/* One allreduce of n ints on comm, checked against PMPI_Allreduce; which
 * algorithm ran it. */
static const char *allreduce_with(int n, MPI_Comm comm)
{
    static const char *const algs[] = {"native", "recursive_doubling", "rabenseifner"};
    long before[3];
    for (int i = 0; i < 3; i++)
        before[i] = CX_Algorithm_calls("allreduce", algs[i]);
    int *s = malloc(sizeof(int) * (size_t)n), *got = malloc(sizeof(int) * (size_t)n);
    int *ref = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        s[i] = rank * 7 + i;
    CX_Allreduce(s, got, n, MPI_INT, MPI_SUM, comm);
    PMPI_Allreduce(s, ref, n, MPI_INT, MPI_SUM, comm);
    check(!memcmp(got, ref, sizeof(int) * (size_t)n), "allreduce result");
    free(s); free(got); free(ref);
    for (int i = 0; i < 3; i++)
        if (CX_Algorithm_calls("allreduce", algs[i]) != before[i])
            return algs[i];
    return "?";
}

/* rules/beyond.json: allreduce rules for communicators of at most 2 ranks
 * (recursive_doubling to 1024 B, rabenseifner above); on the whole world
 * (more ranks) they are the nearest, and pick by message size as they do
 * for 2 ranks; on pairs of ranks they hold. COLLX_VERBOSE says the first
 * call beyond them, once. */
static void beyond(void)
{
    for (int round = 0; round < 2; round++) {
        check(!strcmp(allreduce_with(100, MPI_COMM_WORLD), "recursive_doubling"),
              "400 B on the world: the nearest rule, recursive_doubling");
        check(!strcmp(allreduce_with(1000, MPI_COMM_WORLD), "rabenseifner"),
              "4000 B on the world: the nearest rule, rabenseifner");
    }
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pair);
    int p;
    MPI_Comm_size(pair, &p);
    check(!strcmp(allreduce_with(100, pair), p == 2 ? "recursive_doubling" : "?"),
          "400 B on a pair: its rule");
    MPI_Comm_free(&pair);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (argc > 2 && !strcmp(argv[1], "good"))
        good(argv[2]);
    else if (argc > 1 && !strcmp(argv[1], "params") && size == 4)
        params();
    else if (argc > 1 && !strcmp(argv[1], "overlap"))
        overlap();
    else if (argc > 1 && !strcmp(argv[1], "bad") && size <= 64)
        bad();
    else if (argc > 1 && !strcmp(argv[1], "mixed") && size <= 64)
        mixed();
    else if (argc > 1 && !strcmp(argv[1], "beyond") && size > 2)
        beyond();
    else
        check(0, "usage: rules good BCAST_ALG | rules overlap | rules params (4 ranks) | "
                 "rules bad | rules mixed | rules beyond (3 ranks or more)");
    int all;
    MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rules: %s\n", all ? "FAILED" : "OK");
    MPI_Finalize();
    return all != 0;
}
