/* The distributed construction (Lemma 3, every rank knows only its own
 * size) must build exactly the tree that a replay from all sizes builds:
 * same parent and children on every rank, for every communicator size up to
 * the world's, every root, Träff's problems and several direct thresholds.
 * Also checks the tree's shape: the root has at most ceil(log2 p) tree
 * children, every nonempty block reaches the root in exactly one message,
 * and the degradation count matches the direct children. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "../../src/irregular/tuw.h"
#include "problems.h"

static int errors;

static void fail(const char *what, int n, int pr, int root, long long thr, int rank)
{
    if (errors++ < 10)
        fprintf(stderr, "FAIL %s: p=%d %s root=%d threshold=%lld rank=%d\n", what, n,
                pr_names[pr], root, thr, rank);
}

static int same_edge(const tuw_edge *x, const tuw_edge *y)
{
    return x->peer == y->peer && x->lo == y->lo && x->hi == y->hi &&
           x->bytes == y->bytes && x->level == y->level;
}

static void one(MPI_Comm comm, int pr, int b, int root, long long thr, long long *direct)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int *mi = malloc(n * sizeof *mi);
    long long *m = malloc(n * sizeof *m);
    pr_fill(pr, n, b, 7, mi);
    for (int i = 0; i < n; i++)
        m[i] = 4LL * mi[i];
    cx_sched s;
    cx_sched_init(&s, comm, 77);
    tuw_plan dist, full;
    if (tuw_construct(m[rank], n, root, rank, thr, comm, 77, &s, &dist) ||
        tuw_simulate(m, n, root, rank, thr, &s, &full))
        fail("error return", n, pr, root, thr, rank);
    if (dist.has_parent != full.has_parent ||
        (dist.has_parent && !same_edge(&dist.parent, &full.parent)))
        fail("parent differs", n, pr, root, thr, rank);
    if (rank != root) {
        int ok = dist.nchild == full.nchild;
        for (int c = 0; ok && c < dist.nchild; c++)
            ok = same_edge(&dist.child[c], &full.child[c]);
        if (!ok)
            fail("children differ", n, pr, root, thr, rank);
    } else {
        /* The root's construction sees its tree children; the replay adds
         * the direct subtrees, which the construction only counts. */
        int k = 0, tree = 0;
        for (int c = 0; c < full.nchild; c++)
            if (k < dist.nchild && same_edge(&dist.child[k], &full.child[c]))
                k++, tree++;
        if (k != dist.nchild || full.nchild - tree != dist.final.nd ||
            full.final.nd != dist.final.nd || full.final.M != dist.final.M)
            fail("root's view differs", n, pr, root, thr, rank);
        if (tree > tuw_levels(n))
            fail("more tree children than levels", n, pr, root, thr, rank);
        long long moved = 0;
        for (int i = 0; i < n; i++) {
            if (i != root && m[i] > 0 && full.owner[i] < 0)
                fail("block never reaches the root", n, pr, root, thr, rank);
            if (i != root)
                moved += m[i];
        }
        long long sum = 0;
        for (int c = 0; c < full.nchild; c++)
            sum += full.child[c].bytes;
        if (sum != moved)
            fail("root receives the wrong amount", n, pr, root, thr, rank);
        if (thr < 0 && dist.final.nd != 0)
            fail("direct subtrees without a threshold", n, pr, root, thr, rank);
        *direct += dist.final.nd;
    }
    cx_sched_free(&s);
    free(mi);
    free(m);
}

int main(int argc, char **argv)
{
    static const long long thrs[] = {-1, 0, 40, 400};
    static const int bs[] = {1, 100};
    int wrank, wsize;
    long long direct = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    /* Every size up to the world's, or only the size given as argument. */
    for (int n = argc > 1 ? atoi(argv[1]) : 1; n <= wsize; n++) {
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, wrank < n, wrank, &comm);
        for (int root = 0; wrank < n && root < n; root++)
            for (int pr = 0; pr < PR_COUNT; pr++)
                for (size_t bi = 0; bi < sizeof bs / sizeof *bs; bi++)
                    for (size_t t = 0; t < sizeof thrs / sizeof *thrs; t++)
                        one(comm, pr, bs[bi], root, thrs[t], &direct);
        MPI_Comm_free(&comm);
        if (argc > 1)
            break;
    }
    int total;
    long long alldirect;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&direct, &alldirect, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (alldirect == 0 && wsize > 2 && wrank == 0) {
        fprintf(stderr, "FAIL: no subtree ever went direct\n");
        total++;
    }
    if (wrank == 0)
        printf("tuw plan: p up to %d, %lld direct subtrees seen, %d errors\n", wsize,
               alldirect, total);
    MPI_Finalize();
    return total != 0;
}
