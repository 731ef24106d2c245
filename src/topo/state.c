/* The topology state of a communicator: distances decided once (rank 0
 * loads or measures, then broadcasts, so every rank holds the same bits and
 * computes the same orders), kept in the family's state with the orders
 * derived from them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "topo.h"

int cx_topo_slot;   /* the key of this family's state (util/catalogue.h) */

void cx_topo_free(cx_topo *t)
{
    if (!t)
        return;
    if (t->orders)
        for (int i = 0; i < CX_TOPO_HEURISTICS * CX_TOPO_KINDS * t->p; i++)
            free(t->orders[i]);
    free(t->orders);
    free(t->levels);
    free(t->dist);
    free(t->node_dist);
    free(t);
}

void cx_topo_release(void *x)
{
    cx_topo_free(x);
}

cx_topo *cx_topo_new(int p, int nn, const int *node_of)
{
    cx_topo *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->p = p;
    t->nn = nn;
    t->node_of = node_of;
    /* The p x p matrix (the paper's heuristics, the file) only up to
     * CX_TOPO_FULL_MAX ranks: 8 p^2 bytes per rank, and SMPI holds every
     * rank in one process. Above it the hier mappings serve. */
    if (p <= cx_topo_full_max())
        t->dist = calloc((size_t)p * p, sizeof *t->dist);
    t->node_dist = calloc((size_t)nn * nn, sizeof *t->node_dist);
    t->orders = calloc((size_t)CX_TOPO_HEURISTICS * CX_TOPO_KINDS * p, sizeof *t->orders);
    if ((!t->dist && p <= cx_topo_full_max()) || !t->node_dist || !t->orders) {
        cx_topo_free(t);
        return NULL;
    }
    return t;
}

/* Rank distances from node distances: a rank's node mates are closer than
 * any other node (1 % of the nearest node), itself at 0. */
void cx_topo_expand(cx_topo *t)
{
    int p = t->p, nn = t->nn;
    double near = 0;
    for (int i = 0; i < nn * nn; i++)
        if (t->node_dist[i] > 0 && (near == 0 || t->node_dist[i] < near))
            near = t->node_dist[i];
    t->near = near > 0 ? near / 100 : 1e-9;
    if (!t->dist)
        return;
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            int a = t->node_of[i], b = t->node_of[j];
            t->dist[(size_t)i * p + j] = i == j ? 0 : a == b ? t->near
                                          : t->node_dist[(size_t)a * nn + b];
        }
}

enum { MEASURE, MEASURE_NO_SAVE, LOADED };

/* In SMPI every rank's matrix lives in one process: 8 p^3 bytes and the
 * model's levels beside them (1024 ranks: 24 GiB resident, where the
 * tuner's collbench runs were killed). There the default is 256 ranks
 * (about 0.4 GiB); COLLX_TOPO_FULL_MAX, given, still decides. */
#define CX_TOPO_FULL_MAX_SMPI 256

int cx_topo_full_max(void)
{
    if (CX_SIMULATED && !cx_knob_given(CX_KNOB_TOPO_FULL_MAX))
        return CX_TOPO_FULL_MAX_SMPI;
    return (int)cx_knob_int(CX_KNOB_TOPO_FULL_MAX);
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
    if ((*out = cx_comm_state_of(c, cx_topo_slot)))
        return MPI_SUCCESS;
    int err = cx_comm_quiesce(c);   /* set-up collectives follow */
    if (!err)
        err = cx_comm_nodes(c);
    if (err)
        return err;
    cx_topo *t = cx_topo_new(c->size, c->nnodes, c->node_of);
    int ok = t != NULL, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c->priv);
    if (!all_ok) {
        cx_topo_free(t);
        return MPI_ERR_NO_MEM;
    }
    t->rank = c->rank;
    const char *path = cx_knob_str(CX_KNOB_TOPO_FILE);
    PMPI_Barrier(c->priv);
    double t0 = PMPI_Wtime();
    int what = c->rank == 0 ? try_file(c, t, path) : 0;
    if ((err = PMPI_Bcast(&what, 1, MPI_INT, 0, c->priv)) || what < 0) {
        cx_topo_free(t);
        return err ? err : -what;
    }
    if (what == LOADED) {
        if ((err = PMPI_Bcast(t->dist, t->p * t->p, MPI_DOUBLE, 0, c->priv))) {
            cx_topo_free(t);
            return err;
        }
        for (int i = 0; i < t->nn; i++)
            for (int j = 0; j < t->nn; j++)
                t->node_dist[i * t->nn + j] =
                    t->dist[(size_t)c->node_leader[i] * t->p + c->node_leader[j]];
    } else {
        if ((err = cx_topo_measure(c, t->node_dist, &t->pairs)) ||
            (err = PMPI_Bcast(t->node_dist, t->nn * t->nn, MPI_DOUBLE, 0, c->priv))) {
            cx_topo_free(t);
            return err;
        }
        cx_topo_expand(t);
        t->cost = PMPI_Wtime() - t0;
        if (c->rank == 0 && what == MEASURE && path && *path && t->dist &&
            cx_topo_save(path, t->p, t->dist))
            cx_say("topo: cannot write COLLX_TOPO_FILE=%s", path);
    }
    if (c->rank == 0 && cx_verbose())
        cx_say("topo: p=%d, %d nodes: %s%s, %d node pairs, %.6f s", t->p, t->nn,
               what == LOADED ? "loaded from " : "measured",
               what == LOADED ? path : "", t->pairs, PMPI_Wtime() - t0);
    *cx_comm_state(c, cx_topo_slot) = t;
    *out = t;
    return MPI_SUCCESS;
}

int cx_topo_heuristic(void)
{
    return cx_knob_int(CX_KNOB_TOPO_MAP) == 1 ? CX_TOPO_HIER : CX_TOPO_PAPER;
}

/* The heuristic's mapping, unchecked; without the rank matrix the paper's
 * heuristics give way to the hier ones. */
static int map_order(const cx_topo *t, int heuristic, int kind, int root, int *o)
{
    if (heuristic == CX_TOPO_HIER || !t->dist)
        return cx_topo_map_hier(t->node_dist, t->nn, t->node_of, t->p, root, kind, o);
    if (kind == CX_TOPO_RING)
        cx_topo_map_ring(t->dist, t->p, root, o);
    else
        cx_topo_map_rd(t->dist, t->p, root, o);
    return MPI_SUCCESS;
}

static const char *const heuristic_name[] = {"paper", "hier"};
static const char *const kind_name[] = {"ring", "rd"};

static void show_order(const cx_topo *t, int heuristic, int kind, const int *o)
{
    char line[1024];
    int n = 0;
    for (int v = 0; v < t->p && n < (int)sizeof line - 16; v++)
        n += snprintf(line + n, sizeof line - n, " %d", o[v]);
    cx_say("topo: %s %s order:%s%s", heuristic_name[heuristic], kind_name[kind], line,
           n >= (int)sizeof line - 16 ? " ..." : "");
}

/* Candidates after rank order: the heuristic's mapping, and for hier rd
 * also the paper's rd mapping (dealing ranks round-robin over the nodes
 * aligns XOR partners with nodes only when the node count is a power of
 * two: at 30 nodes it is 4x slower than rank order). */
static int candidates(const cx_topo *t, int heuristic, int kind, int *h)
{
    h[0] = heuristic;
    h[1] = CX_TOPO_PAPER;
    return heuristic == CX_TOPO_HIER && kind == CX_TOPO_RD && t->dist ? 2 : 1;
}

/* COLLX_VERBOSE: which order a heuristic and kind kept and why, once per
 * communicator (rank 0). ratio[i]: candidate h[i]'s model cost over rank
 * order's; kept: index into h, -1 for rank order. */
static void report(cx_topo *t, int heuristic, int kind, const int *h, int n,
                   const double *ratio, int kept)
{
    if (t->rank != 0 || !cx_verbose() || t->said[heuristic][kind])
        return;
    t->said[heuristic][kind] = 1;
    char alt[64] = "";
    if (n > 1)
        snprintf(alt, sizeof alt, ", %s %s %.2fx", heuristic_name[h[1]], kind_name[kind],
                 ratio[1]);
    if (kept < 0)
        cx_say("topo: %s %s mapping no better than rank order (model %.2fx%s); keeping "
               "rank order", heuristic_name[heuristic], kind_name[kind], ratio[0], alt);
    else
        cx_say("topo: %s %s mapping: model %.2fx of rank order%s; keeping the %s %s "
               "mapping", heuristic_name[heuristic], kind_name[kind], ratio[0], alt,
               heuristic_name[h[kept]], kind_name[kind]);
}

/* Rank order first (rotated to start at root: the base algorithm without
 * an order), then each candidate replaces the best so far only if the cost
 * model finds it cheaper by more than the tolerance: a mapping is never
 * kept where it does not clearly beat rank order, whatever the heuristics
 * made of noise. Pure functions of the broadcast distances: every rank
 * keeps the same order. */
const int *cx_topo_order_with(cx_topo *t, int heuristic, int kind, int root)
{
    int **slot = &t->orders[(heuristic * CX_TOPO_KINDS + kind) * t->p + root];
    if (*slot)
        return *slot;
    int p = t->p, *o = malloc((size_t)p * sizeof *o), *c = malloc((size_t)p * sizeof *c);
    int h[2], n = candidates(t, heuristic, kind, h), kept = -1;
    double ratio[2] = {1, 1}, tol = cx_topo_tolerance(), identity = -1, best = -1;
    if (o && c) {
        for (int v = 0; v < p; v++)
            o[v] = (v + root) % p;
        identity = best = cx_topo_model(t, kind, o);
    }
    for (int i = 0; i < n && identity >= 0; i++) {
        double x = map_order(t, h[i], kind, root, c) ? -1 : cx_topo_model(t, kind, c);
        ratio[i] = identity > 0 ? x / identity : 1;
        if (x >= 0 && x < best * (1 - tol)) {
            int *tmp = o;
            o = c, c = tmp, best = x, kept = i;
        }
        identity = x < 0 ? -1 : identity;   /* out of memory */
    }
    free(c);
    if (identity < 0) {
        free(o);
        return NULL;
    }
    report(t, heuristic, kind, h, n, ratio, kept);
    if (cx_verbose() >= 2 && t->rank == 0 && root == 0)
        show_order(t, heuristic, kind, o);
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
