/* The topology state of a communicator: distances decided once (rank 0
 * loads or measures, then broadcasts, so every rank holds the same bits and
 * computes the same orders), kept in the family slot with the orders
 * derived from them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "topo.h"

static void topo_release(void *x)
{
    cx_topo *t = x;
    if (t->orders)
        for (int i = 0; i < CX_TOPO_HEURISTICS * CX_TOPO_KINDS * t->p; i++)
            free(t->orders[i]);
    free(t->orders);
    free(t->dist);
    free(t->node_dist);
    free(t);
}

/* Rank distances from node distances: a rank's node mates are closer than
 * any other node (1 % of the nearest node), itself at 0. */
static void expand(cx_topo *t)
{
    int p = t->p, nn = t->nn;
    if (!t->dist)
        return;
    double near = 0;
    for (int i = 0; i < nn * nn; i++)
        if (t->node_dist[i] > 0 && (near == 0 || t->node_dist[i] < near))
            near = t->node_dist[i];
    double intra = near > 0 ? near / 100 : 1e-9;
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            int a = t->node_of[i], b = t->node_of[j];
            t->dist[(size_t)i * p + j] = i == j ? 0 : a == b ? intra
                                          : t->node_dist[(size_t)a * nn + b];
        }
}

enum { MEASURE, MEASURE_NO_SAVE, LOADED };

int cx_topo_full_max(void)
{
    const char *e = getenv("COLLX_TOPO_FULL_MAX");
    return e && atoi(e) >= 0 ? atoi(e) : 1024;
}

/* Rank 0: what to do with COLLX_TOPO_FILE (an MPI error class if unusable). */
static int try_file(cx_comm *c, cx_topo *t, const char *path)
{
    if (!path || !*path || access(path, F_OK) != 0)
        return MEASURE;
    if (!t->dist) {
        cx_say("topo: COLLX_TOPO_FILE=%s ignored: p=%d is above %d, where only node "
               "distances are kept", path, t->p, cx_topo_full_max());
        return MEASURE_NO_SAVE;
    }
    int found = 0, err = cx_topo_load(path, t->p, t->dist, &found);
    if (err == MPI_ERR_SIZE) {
        if (cx_verbose())
            cx_say("topo: %s holds %d ranks, the communicator %d: measuring (not "
                   "saved)", path, found, c->size);
        return MEASURE_NO_SAVE;
    }
    if (err)
        cx_say("topo: COLLX_TOPO_FILE=%s is unreadable or malformed (want \"p N\" "
               "and N x N non-negative numbers)", path);
    return err ? -err : LOADED;
}

int cx_topo_get(cx_comm *c, cx_topo **out)
{
    cx_family_slot *f = &c->family[CX_FAMILY_TOPO];
    if ((*out = f->state))
        return MPI_SUCCESS;
    int err = cx_comm_nodes(c);
    if (err)
        return err;
    cx_topo *t = calloc(1, sizeof *t);
    if (!t)
        return MPI_ERR_NO_MEM;
    t->p = c->size;
    t->nn = c->nnodes;
    t->node_of = c->node_of;
    /* The p x p matrix (the paper's heuristics, the file) only up to
     * CX_TOPO_FULL_MAX ranks: 8 p^2 bytes per rank, and SMPI holds every
     * rank in one process. Above it the hier mappings serve. */
    if (t->p <= cx_topo_full_max())
        t->dist = malloc((size_t)t->p * t->p * sizeof *t->dist);
    t->node_dist = calloc((size_t)t->nn * t->nn, sizeof *t->node_dist);
    t->orders = calloc((size_t)CX_TOPO_HEURISTICS * CX_TOPO_KINDS * t->p,
                       sizeof *t->orders);
    int ok = (t->dist || t->p > cx_topo_full_max()) && t->node_dist && t->orders, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c->priv);
    if (!all_ok) {
        topo_release(t);
        return MPI_ERR_NO_MEM;
    }
    const char *path = getenv("COLLX_TOPO_FILE");
    PMPI_Barrier(c->priv);
    double t0 = PMPI_Wtime();
    int what = c->rank == 0 ? try_file(c, t, path) : 0;
    if ((err = PMPI_Bcast(&what, 1, MPI_INT, 0, c->priv)) || what < 0) {
        topo_release(t);
        return err ? err : -what;
    }
    if (what == LOADED) {
        if ((err = PMPI_Bcast(t->dist, t->p * t->p, MPI_DOUBLE, 0, c->priv))) {
            topo_release(t);
            return err;
        }
        for (int i = 0; i < t->nn; i++)
            for (int j = 0; j < t->nn; j++)
                t->node_dist[i * t->nn + j] =
                    t->dist[(size_t)c->node_leader[i] * t->p + c->node_leader[j]];
    } else {
        if ((err = cx_topo_measure(c, t->node_dist, &t->pairs)) ||
            (err = PMPI_Bcast(t->node_dist, t->nn * t->nn, MPI_DOUBLE, 0, c->priv))) {
            topo_release(t);
            return err;
        }
        expand(t);
        t->cost = PMPI_Wtime() - t0;
        if (c->rank == 0 && what == MEASURE && path && *path && t->dist &&
            cx_topo_save(path, t->p, t->dist))
            cx_say("topo: cannot write COLLX_TOPO_FILE=%s", path);
    }
    if (c->rank == 0 && cx_verbose())
        cx_say("topo: p=%d, %d nodes: %s%s, %d node pairs, %.6f s", t->p, t->nn,
               what == LOADED ? "loaded from " : "measured",
               what == LOADED ? path : "", t->pairs, PMPI_Wtime() - t0);
    *f = (cx_family_slot){t, topo_release, NULL};
    *out = t;
    return MPI_SUCCESS;
}

int cx_topo_heuristic(void)
{
    const char *e = getenv("COLLX_TOPO_MAP");
    return e && !strcmp(e, "hier") ? CX_TOPO_HIER : CX_TOPO_PAPER;
}

const int *cx_topo_order_with(cx_topo *t, int heuristic, int kind, int root)
{
    int **slot = &t->orders[(heuristic * CX_TOPO_KINDS + kind) * t->p + root];
    if (*slot)
        return *slot;
    int *o = malloc((size_t)t->p * sizeof *o);
    if (!o)
        return NULL;
    if (heuristic == CX_TOPO_HIER || !t->dist) {
        if (cx_topo_map_hier(t->node_dist, t->nn, t->node_of, t->p, root, kind, o)) {
            free(o);
            return NULL;
        }
    } else if (kind == CX_TOPO_RING) {
        cx_topo_map_ring(t->dist, t->p, root, o);
    } else {
        cx_topo_map_rd(t->dist, t->p, root, o);
    }
    if (cx_verbose() >= 2 && root == 0) {
        char line[1024];
        int n = 0;
        for (int v = 0; v < t->p && n < (int)sizeof line - 16; v++)
            n += snprintf(line + n, sizeof line - n, " %d", o[v]);
        cx_say("topo: %s %s order:%s%s", heuristic == CX_TOPO_HIER ? "hier" : "paper",
               kind == CX_TOPO_RING ? "ring" : "rd", line, n >= (int)sizeof line - 16 ? " ..." : "");
    }
    return *slot = o;
}

const int *cx_topo_order(cx_topo *t, int kind, int root)
{
    return cx_topo_order_with(t, cx_topo_heuristic(), kind, root);
}

int cx_topo_parse_mapping(const char *name, int *heuristic, int *kind)
{
    static const char *const names[] = {"ring", "rd", "hier_ring", "hier_rd"};
    for (int i = 0; i < 4; i++)
        if (name && !strcmp(name, names[i])) {
            *heuristic = i / 2 ? CX_TOPO_HIER : CX_TOPO_PAPER;
            *kind = i % 2 ? CX_TOPO_RD : CX_TOPO_RING;
            return 0;
        }
    return -1;
}
