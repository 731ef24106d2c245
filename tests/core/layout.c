/* Rank maps and the node-shared segment (internal API). The expected
 * layout is recomputed here from the same environment the library reads:
 * COLLX_FAKE_NODES=list or cyclic:k, COLLX_RANKS_PER_NODE=k, or (neither)
 * one node per host (LAYOUT_HOST_RANKS=k: hosts of k ranks, in SMPI), all
 * of them by rank in MPI_COMM_WORLD. Checks node_of/local_of/node
 * sizes/leaders, the uniform and consecutive flags, the node and leader
 * communicators, on a duplicate of the world and on a strided
 * sub-communicator in reverse order (every other rank: its members keep
 * the world's nodes, as a grid's column must), and a node segment that
 * every rank of a node sees, grown on demand and capped by
 * COLLX_SHM_MAX. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "persist/persist.h"

static int bad, rank;

static void expect(int ok, const char *what)
{
    if (!ok) {
        printf("FAIL rank %d: %s\n", rank, what);
        bad++;
    }
}

/* Node id (any label) of world rank r as the environment says. */
static int label_of(int r)
{
    const char *list = getenv("COLLX_FAKE_NODES"), *k = getenv("COLLX_RANKS_PER_NODE");
    if (list && !strncmp(list, "cyclic:", 7))
        return r % atoi(list + 7);
    if (list) {
        int len = 1;
        for (const char *s = list; *s; s++)
            len += *s == ',';
        const char *s = list;
        for (int i = 0; i < r % len; i++)
            s = strchr(s, ',') + 1;
        return atoi(s);
    }
    if (k)
        return r / atoi(k);
    /* Real nodes: one host here; SMPI's hostfile fills hosts of
     * LAYOUT_HOST_RANKS ranks in order (set by the SMPI test). */
    const char *h = getenv("LAYOUT_HOST_RANKS");
    return h ? r / atoi(h) : 0;
}

/* The expected maps of comm, whose rank i is world rank world[i] (nodes
 * numbered by their lowest rank), checked against collx's; its flags,
 * and this rank's node and local rank (if asked). Returns the nodes. */
static int check_maps(MPI_Comm comm, const int *world, const char *what, int *uniform_out,
                      int *consecutive_out, int *my_node, int *my_local)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    cx_comm *c;
    if (cx_comm_get(comm, &c) || cx_comm_nodes(c)) {
        printf("FAIL rank %d: %s: no node layout\n", rank, what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int *node = malloc(sizeof(int) * p), *local = malloc(sizeof(int) * p);
    int *size = calloc(p, sizeof(int)), *leader = malloc(sizeof(int) * p), n = 0;
    for (int r = 0; r < p; r++) {
        int first = r;
        for (int q = 0; q < r; q++)
            if (label_of(world[q]) == label_of(world[r])) {
                first = q;
                break;
            }
        node[r] = first == r ? n++ : node[first];
        if (first == r)
            leader[node[r]] = r;
        local[r] = size[node[r]]++;
    }
    int uniform = 1, consecutive = 1, most = 0;
    for (int i = 0; i < n; i++) {
        uniform &= size[i] == size[0];
        most = size[i] > most ? size[i] : most;
    }
    for (int r = 1; r < p; r++)
        consecutive &= !(local[r] && node[r] != node[r - 1]);
    char msg[96];
#define EXPECT(ok, thing) (snprintf(msg, sizeof msg, "%s: %s", what, thing), expect(ok, msg))
    EXPECT(c->nnodes == n, "number of nodes");
    for (int r = 0; r < p && c->nnodes == n; r++) {
        EXPECT(c->node_of[r] == node[r], "node_of");
        EXPECT(c->local_of[r] == local[r], "local_of");
    }
    for (int i = 0; i < n && c->nnodes == n; i++) {
        EXPECT(c->node_size[i] == size[i], "node_size");
        EXPECT(c->node_leader[i] == leader[i], "node_leader");
    }
    EXPECT(c->uniform == uniform, "uniform flag");
    EXPECT(c->consecutive == consecutive, "consecutive flag");
    EXPECT(c->max_ranks_per_node == most, "max_ranks_per_node");
    int ns, nr;
    MPI_Comm_size(c->node, &ns);
    MPI_Comm_rank(c->node, &nr);
    EXPECT(ns == size[node[me]] && nr == local[me], "node communicator");
    EXPECT((c->leaders != MPI_COMM_NULL) == (local[me] == 0), "leader communicator");
    if (c->leaders != MPI_COMM_NULL) {
        MPI_Comm_size(c->leaders, &ns);
        MPI_Comm_rank(c->leaders, &nr);
        EXPECT(ns == n && nr == node[me], "leader communicator size/rank");
    }
#undef EXPECT
    *uniform_out = uniform;
    *consecutive_out = consecutive;
    if (my_node)
        *my_node = node[me], *my_local = local[me];
    free(node);
    free(local);
    free(size);
    free(leader);
    return n;
}

/* Every other world rank (this rank's parity), highest first. */
static void strided(int p, MPI_Comm *sub, int *world, int *q)
{
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, sub);
    *q = 0;
    for (int r = p - 1; r >= 0; r--)
        if (r % 2 == rank % 2)
            world[(*q)++] = r;
}

int main(int argc, char **argv)
{
    int p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm comm, sub;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int *world = malloc(sizeof(int) * p), q, uniform, consecutive, me_node, me_local;
    for (int r = 0; r < p; r++)
        world[r] = r;
    int n = check_maps(comm, world, "world", &uniform, &consecutive, &me_node, &me_local);
    strided(p, &sub, world, &q);
    int su, sc, sn = check_maps(sub, world, "strided", &su, &sc, NULL, NULL);
    cx_comm *c;
    cx_comm_get(comm, &c);
    /* Node segment: the leader writes, the node reads; then it grows. */
    for (MPI_Aint bytes = 64; bytes <= (1 << 20); bytes *= 64) {
        char *seg;
        int err = cx_comm_shm(c, bytes, &seg);
        expect(!err && seg, "segment");
        if (err || !seg)
            break;
        if (me_local == 0)
            for (MPI_Aint i = 0; i < bytes; i++)
                seg[i] = (char)(i * 7 + me_node);
        MPI_Win_sync(c->shm_win);   /* no-op where the memory is coherent */
        MPI_Barrier(c->node);
        int ok = 1;
        for (MPI_Aint i = 0; i < bytes; i++)
            ok &= seg[i] == (char)(i * 7 + me_node);
        expect(ok, "segment contents seen by the node");
        MPI_Barrier(c->node);
    }
    char *seg;
    expect(cx_comm_shm(c, cx_shm_max() + 1, &seg) == MPI_ERR_NO_MEM,
           "a segment above COLLX_SHM_MAX is refused");
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("layout: p=%d, %d nodes (%s, %s); even ranks reversed: %d on %d nodes "
               "(%s, %s): %s\n", p, n, uniform ? "uniform" : "uneven",
               consecutive ? "consecutive" : "interleaved", q, sn,
               su ? "uniform" : "uneven", sc ? "consecutive" : "interleaved",
               total ? "FAILED" : "OK");
    MPI_Comm_free(&sub);
    MPI_Comm_free(&comm);
    free(world);
    MPI_Finalize();
    return total ? 1 : 0;
}
