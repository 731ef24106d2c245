/* The mapping heuristics: virtual rank v runs on process order[v]. */
#include <stdlib.h>
#include <string.h>
#include "topo.h"

/* Distances within this fraction of each other count as equal
 * (COLLX_TOPO_TOLERANCE, default 0.05): measured times of equivalent links
 * differ in their last digits, and following that noise scrambles a
 * regular machine. */
double cx_topo_tolerance(void)
{
    const char *e = getenv("COLLX_TOPO_TOLERANCE");
    double t = e ? atof(e) : 0.05;
    return t < 0 ? 0 : t > 0.5 ? 0.5 : t;
}

/* -1, 0, 1: x clearly smaller, about equal, clearly larger than y. */
static int compare(double x, double y, double tol)
{
    double m = (x > y ? x : y) * tol;
    return x < y - m ? -1 : x > y + m ? 1 : 0;
}

/* The free process closest to `from`, -1 if none. Ties (equal distances
 * are the rule on a regular machine) go to the one closest to `prev`, the
 * process mapped last, then to the lowest index: the mapping keeps filling
 * the node it is in instead of hopping between equally far nodes. */
static int closest_free(const double *d, int p, int from, int prev, const char *used)
{
    int best = -1;
    double tol = cx_topo_tolerance();
    for (int j = 0; j < p; j++) {
        if (used[j])
            continue;
        if (best < 0) {
            best = j;
            continue;
        }
        int c = compare(d[(size_t)from * p + j], d[(size_t)from * p + best], tol);
        if (c < 0 || (c == 0 && compare(d[(size_t)prev * p + j],
                                         d[(size_t)prev * p + best], tol) < 0))
            best = j;
    }
    return best;
}

/* Paper, section 3.3: new rank 0 = start; each next rank is the unmapped
 * process closest to the last one mapped. */
void cx_topo_map_ring(const double *d, int p, int start, int *order)
{
    char *used = calloc((size_t)p, 1);
    order[0] = start;
    used[start] = 1;
    for (int v = 1; v < p; v++) {
        order[v] = closest_free(d, p, order[v - 1], order[v - 1], used);
        used[order[v]] = 1;
    }
    free(used);
}

/* Paper, section 3.2: the last stage moves the most data, so the partner
 * 0 XOR p/2 goes to the free process closest to rank 0; then 0 and p/2
 * are the references of the stage before: each mapped rank x (in the order
 * they were mapped) places x XOR p/4 on the free process closest to x's,
 * and so on down to the first stage. The mapped set doubles at each stage:
 * a node fills with ranks that differ in their highest bits (the last
 * stages stay inside it) and the nearest nodes take the next bits. Non
 * powers of two: stages are the powers of two below p; partners >= p do
 * not exist (x XOR pow2 reaches the folded extra ranks' hosts). */
void cx_topo_map_rd(const double *d, int p, int start, int *order)
{
    char *used = calloc((size_t)p, 1);
    int *mapped = malloc((size_t)p * sizeof *mapped), n = 1, top = 1;
    while (top * 2 < p)
        top *= 2;
    order[0] = start;
    used[start] = 1;
    mapped[0] = 0;
    int prev = start;
    for (int i = top; i >= 1; i >>= 1)
        for (int k = 0, had = n; k < had; k++) {
            int x = mapped[k], partner = x ^ i;
            if (partner >= p)
                continue;
            order[partner] = prev = closest_free(d, p, order[x], prev, used);
            used[order[partner]] = 1;
            mapped[n++] = partner;
        }
    free(used);
    free(mapped);
}

static double tour_length(const double *nd, int nn, const int *t)
{
    double len = 0;
    for (int i = 0; i < nn; i++)
        len += nd[(size_t)t[i] * nn + t[(i + 1) % nn]];
    return len;
}

void cx_topo_node_tour(const double *nd, int nn, int start, int *tour)
{
    cx_topo_map_ring(nd, nn, start, tour);
    /* 2-opt: reverse tour[i..j] when that shortens the closed tour; the
     * start stays at position 0. Bounded passes (nn is the node count). */
    for (int pass = 0, better = 1; better && pass < 100; pass++) {
        better = 0;
        /* a move must gain a tolerance's share of a mean edge */
        double eps = cx_topo_tolerance() * tour_length(nd, nn, tour) / nn + 1e-300;
        for (int i = 1; i < nn - 1; i++)
            for (int j = i + 1; j < nn; j++) {
                int a = tour[i - 1], b = tour[i], c = tour[j], e = tour[(j + 1) % nn];
                double delta = nd[(size_t)a * nn + c] + nd[(size_t)b * nn + e] -
                               nd[(size_t)a * nn + b] - nd[(size_t)c * nn + e];
                if (delta < -eps) {
                    for (int x = i, y = j; x < y; x++, y--) {
                        int tmp = tour[x];
                        tour[x] = tour[y];
                        tour[y] = tmp;
                    }
                    better = 1;
                }
            }
    }
}

int cx_topo_map_hier(const double *nd, int nn, const int *node_of, int p, int start,
                     int kind, int *order)
{
    int *tour = malloc((size_t)nn * sizeof *tour);
    int *first = calloc((size_t)nn + 1, sizeof *first);   /* node's ranks */
    int *ranks = malloc((size_t)p * sizeof *ranks), *fill = calloc((size_t)nn, sizeof *fill);
    if (!tour || !first || !ranks || !fill) {
        free(tour), free(first), free(ranks), free(fill);
        return MPI_ERR_NO_MEM;
    }
    cx_topo_node_tour(nd, nn, node_of[start], tour);
    for (int r = 0; r < p; r++)
        first[node_of[r] + 1]++;
    for (int n = 0; n < nn; n++)
        first[n + 1] += first[n];
    /* Each node's ranks in rank order, the start rank moved to the front. */
    for (int r = 0; r < p; r++)
        ranks[first[node_of[r]] + fill[node_of[r]]++] = r;
    int *sn = ranks + first[node_of[start]];
    {   /* rotate the start rank to the front, keeping the others in order */
        int k = 0;
        while (sn[k] != start)
            k++;
        for (; k > 0; k--)
            sn[k] = sn[k - 1];
        sn[0] = start;
    }
    int v = 0;
    if (kind == CX_TOPO_RING) {
        for (int i = 0; i < nn; i++)
            for (int j = first[tour[i]]; j < first[tour[i] + 1]; j++)
                order[v++] = ranks[j];
    } else {
        /* Rank v sits on node v mod nn (uniform nodes): recursive doubling's
         * first stage (one block) pairs nodes at distance 1 in this list,
         * the later ones at 2, 4, ... With nn a power of two the list is
         * the tour bit-reversed, so the first, cheapest stages take the
         * longest hops (across switches) and neighbours on the tour meet
         * in the later ones. */
        int bits = 0, pow2 = (nn & (nn - 1)) == 0;
        while ((1 << bits) < nn)
            bits++;
        for (int k = 0; v < p; k++)
            for (int i = 0; i < nn; i++) {
                int j = i;
                if (pow2) {
                    j = 0;
                    for (int b = 0; b < bits; b++)
                        j |= ((i >> b) & 1) << (bits - 1 - b);
                }
                if (first[tour[j]] + k < first[tour[j] + 1])
                    order[v++] = ranks[first[tour[j]] + k];
            }
    }
    free(tour), free(first), free(ranks), free(fill);
    return MPI_SUCCESS;
}

double cx_topo_ring_length(const double *d, int p, const int *order)
{
    double len = 0;
    for (int v = 0; v < p; v++)
        len += d[(size_t)order[v] * p + order[(v + 1) % p]];
    return len;
}
