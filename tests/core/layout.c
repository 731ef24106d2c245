/* Rank maps and the node-shared segment (internal API). The expected
 * layout is recomputed here from the same environment the library reads:
 * COLLX_FAKE_NODES=list or cyclic:k, COLLX_RANKS_PER_NODE=k, or (neither)
 * one node per host (LAYOUT_HOST_RANKS=k: hosts of k ranks, in SMPI). Checks node_of/local_of/node sizes/leaders, the
 * uniform and consecutive flags, the node and leader communicators, and a
 * node segment that every rank of a node sees, grown on demand and capped
 * by COLLX_SHM_MAX. */
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

/* Node id (any label) of rank r as the environment says; -1: real nodes. */
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

int main(int argc, char **argv)
{
    int p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    cx_comm *c;
    if (cx_comm_get(comm, &c) || cx_comm_nodes(c)) {
        printf("FAIL rank %d: no node layout\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Expected maps: nodes numbered by their lowest rank. */
    int *node = malloc(sizeof(int) * p), *local = malloc(sizeof(int) * p);
    int *size = calloc(p, sizeof(int)), *leader = malloc(sizeof(int) * p), n = 0;
    for (int r = 0; r < p; r++) {
        int first = r;
        for (int q = 0; q < r; q++)
            if (label_of(q) == label_of(r)) {
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
    expect(c->nnodes == n, "number of nodes");
    for (int r = 0; r < p && c->nnodes == n; r++) {
        expect(c->node_of[r] == node[r], "node_of");
        expect(c->local_of[r] == local[r], "local_of");
    }
    for (int i = 0; i < n && c->nnodes == n; i++) {
        expect(c->node_size[i] == size[i], "node_size");
        expect(c->node_leader[i] == leader[i], "node_leader");
    }
    expect(c->uniform == uniform, "uniform flag");
    expect(c->consecutive == consecutive, "consecutive flag");
    expect(c->max_ranks_per_node == most, "max_ranks_per_node");
    int ns, nr;
    MPI_Comm_size(c->node, &ns);
    MPI_Comm_rank(c->node, &nr);
    expect(ns == size[node[rank]] && nr == local[rank], "node communicator");
    expect((c->leaders != MPI_COMM_NULL) == (local[rank] == 0), "leader communicator");
    if (c->leaders != MPI_COMM_NULL) {
        MPI_Comm_size(c->leaders, &ns);
        MPI_Comm_rank(c->leaders, &nr);
        expect(ns == n && nr == node[rank], "leader communicator size/rank");
    }
    /* Node segment: the leader writes, the node reads; then it grows. */
    for (MPI_Aint bytes = 64; bytes <= (1 << 20); bytes *= 64) {
        char *seg;
        int err = cx_comm_shm(c, bytes, &seg);
        expect(!err && seg, "segment");
        if (err || !seg)
            break;
        if (local[rank] == 0)
            for (MPI_Aint i = 0; i < bytes; i++)
                seg[i] = (char)(i * 7 + node[rank]);
        MPI_Win_sync(c->shm_win);   /* no-op where the memory is coherent */
        MPI_Barrier(c->node);
        int ok = 1;
        for (MPI_Aint i = 0; i < bytes; i++)
            ok &= seg[i] == (char)(i * 7 + node[rank]);
        expect(ok, "segment contents seen by the node");
        MPI_Barrier(c->node);
    }
    char *seg;
    expect(cx_comm_shm(c, cx_shm_max() + 1, &seg) == MPI_ERR_NO_MEM,
           "a segment above COLLX_SHM_MAX is refused");
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("layout: p=%d, %d nodes (%s, %s): %s\n", p, n,
               uniform ? "uniform" : "uneven", consecutive ? "consecutive" : "interleaved",
               total ? "FAILED" : "OK");
    MPI_Comm_free(&comm);
    free(node);
    free(local);
    free(size);
    free(leader);
    MPI_Finalize();
    return total ? 1 : 0;
}
