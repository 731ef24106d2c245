/* Topology-aware rank reordering (Bhowmik & Bodele 2019): a distance
 * matrix measured once per communicator (node leaders ping-pong in a
 * round-robin tournament; ranks of one node are close), mappings of
 * virtual ranks onto processes (the paper's greedy ring and recursive-
 * doubling heuristics, and node-level "hier" variants), and the base
 * algorithms run on those orders: the result stays in the user's rank
 * order. */
#ifndef CX_TOPO_H
#define CX_TOPO_H

#include "../core/select/select.h"

/* Mapping kinds: what the algorithm's communication looks like. */
enum { CX_TOPO_RING, CX_TOPO_RD, CX_TOPO_KINDS };
/* Mapping heuristics: the paper's (rank-level greedy) or hier (nodes kept
 * whole, nodes ordered by a 2-opt-improved closed tour). */
enum { CX_TOPO_PAPER, CX_TOPO_HIER, CX_TOPO_HEURISTICS };

/* Largest p for which the p x p rank matrix is kept (paper heuristics,
 * COLLX_TOPO_FILE): COLLX_TOPO_FULL_MAX, default 1024 (8 p^2 bytes per
 * rank; SMPI holds every rank in one process). Above it the hier mappings
 * serve every call and the file is neither read nor written. */
int cx_topo_full_max(void);

typedef struct cx_topo {
    int p, nn;
    int rank;             /* this process (rank 0 reports) */
    const int *node_of;   /* the communicator's rank map (not owned) */
    double *dist;         /* [p * p] rank distances, seconds; NULL above
                             cx_topo_full_max() */
    double *node_dist;    /* [nn * nn] distances between node leaders */
    double near;          /* two ranks of one node (cx_topo_expand) */
    double cost;          /* seconds spent measuring (0: loaded from a file) */
    int pairs;            /* node pairs measured */
    int **orders;         /* [heuristic][kind][root] cached orders, lazily */
    double *levels;       /* cx_topo_levels of dist, else of node_dist: the
                             cost model's distances, lazily */
    unsigned char said[CX_TOPO_HEURISTICS][CX_TOPO_KINDS];   /* verbose, once */
} cx_topo;

/* A state for p ranks on nn nodes (dist allocated up to cx_topo_full_max()),
 * distances zero; NULL when out of memory. The caller fills node_dist (or
 * dist) and calls cx_topo_expand. Tests build states from known matrices. */
cx_topo *cx_topo_new(int p, int nn, const int *node_of);
void cx_topo_free(cx_topo *t);
/* The family's state: its key and release hook. */
extern int cx_topo_slot;
void cx_topo_release(void *state);
/* near = 1 % of the nearest node pair; dist (if kept) from node_dist:
 * same node near, else the nodes' distance. */
void cx_topo_expand(cx_topo *t);

/* The communicator's distances: measured (or loaded from COLLX_TOPO_FILE)
 * on first use, collectively over c, then cached in the family's state. */
int cx_topo_get(cx_comm *c, cx_topo **out);
/* Virtual rank -> rank for a mapping of kind starting at root (order[0] =
 * root), with the heuristic of COLLX_TOPO_MAP (paper|hier, default paper)
 * or an explicit one. The mapped order is kept only if the cost model says
 * it beats rank order (rotated to start at root) by more than
 * cx_topo_tolerance(); else the result is rank order. NULL when out of
 * memory. */
const int *cx_topo_order(cx_topo *t, int kind, int root);
const int *cx_topo_order_with(cx_topo *t, int heuristic, int kind, int root);
int cx_topo_heuristic(void);
/* Parses "ring", "rd", "hier_ring", "hier_rd" (-1 if unknown). */
int cx_topo_parse_mapping(const char *name, int *heuristic, int *kind);

/* Mappings (mapping.c): pure functions of a distance matrix, so every rank
 * computes the same order. Distances within cx_topo_tolerance() of each
 * other (COLLX_TOPO_TOLERANCE, default 0.05) are equal; ties go to the
 * process closest to the one mapped last, then to the lowest index. */
double cx_topo_tolerance(void);
void cx_topo_map_ring(const double *d, int p, int start, int *order);
void cx_topo_map_rd(const double *d, int p, int start, int *order);
/* Closed tour of the nn nodes from start: greedy nearest neighbour, then
 * 2-opt moves while the tour gets shorter. */
void cx_topo_node_tour(const double *nd, int nn, int start, int *tour);
/* Hier mappings: ring = nodes whole in tour order; rd = ranks dealt
 * round-robin over the nodes in tour order (the largest recursive-doubling
 * stages stay inside a node). start is first. */
int cx_topo_map_hier(const double *nd, int nn, const int *node_of, int p, int start,
                     int kind, int *order);
/* Sum of d along the closed ring order[0..p). */
double cx_topo_ring_length(const double *d, int p, const int *order);
/* Modelled cost of running an algorithm of kind on order with t's
 * distances (mapping.c; units: distance x blocks for rd, distance for
 * ring): only ratios between orders of one state mean something. Negative
 * when out of memory. */
double cx_topo_model(cx_topo *t, int kind, const int *order);
/* Minimax closure of the symmetric n x n matrix d into out: the largest
 * distance on the best path between two points (Prim's spanning tree,
 * O(n^2)). On a tree of switches it gives every pair the level it climbs,
 * whatever contention added to single measurements. */
void cx_topo_levels(const double *d, int n, double *out);

/* COLLX_TOPO_FILE (file.c): text, '#' comments, "p N", then N rows of N
 * distances. Load: MPI_SUCCESS, MPI_ERR_FILE (unreadable or malformed),
 * MPI_ERR_SIZE (another p: *found holds it). */
int cx_topo_load(const char *path, int p, double *d, int *found);
int cx_topo_save(const char *path, int p, const double *d);

/* Measurement (measure.c): fills node_dist on leader 0 (rank 0). */
int cx_topo_measure(cx_comm *c, double *node_dist, int *pairs);

#endif
