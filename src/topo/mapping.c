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
    return cx_knob_real(CX_KNOB_TOPO_TOLERANCE);   /* clamped to 0..0.5 */
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

void cx_topo_node_tour(const double *nd, int nn, int start, int *tour)
{
    cx_topo_map_ring(nd, nn, start, tour);
    /* 2-opt: reverse tour[i..j] when that shortens the closed tour; the
     * start stays at position 0. Bounded passes (nn is the node count). */
    for (int pass = 0, better = 1; better && pass < 100; pass++) {
        better = 0;
        /* a move must gain a tolerance's share of a mean edge */
        double eps = cx_topo_tolerance() * cx_topo_ring_length(nd, nn, tour) / nn + 1e-300;
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

void cx_topo_levels(const double *d, int n, double *out)
{
    double *key = malloc((size_t)n * sizeof *key);
    int *from = malloc((size_t)n * sizeof *from);
    char *in = calloc((size_t)n, 1);
    for (int j = 0; j < n; j++)
        key[j] = d[j], from[j] = 0, out[(size_t)j * n + j] = 0;
    in[0] = n > 0;
    for (int k = 1; k < n; k++) {
        int x = -1;
        for (int j = 0; j < n; j++)
            if (!in[j] && (x < 0 || key[j] < key[x]))
                x = j;
        /* x joins the tree through from[x]: its path to any y in the tree
         * is that edge, then from[x]'s path to y */
        for (int y = 0; y < n; y++)
            if (in[y]) {
                double w = out[(size_t)from[x] * n + y];
                w = key[x] > w ? key[x] : w;
                out[(size_t)x * n + y] = out[(size_t)y * n + x] = w;
            }
        in[x] = 1;
        for (int j = 0; j < n; j++)
            if (!in[j] && d[(size_t)x * n + j] < key[j])
                key[j] = d[(size_t)x * n + j], from[j] = x;
    }
    free(key), free(from), free(in);
}

/* The model's distance between ranks a and b at any p: levels of the rank
 * matrix when kept, else of the node matrix (same node: near). Levels, not
 * the measured times: the pairs of a tournament round that cross one
 * uplink share it, so a pair measures up to 12x its own time (SMPI, 30
 * nodes) depending on its round, and a mapping that merely avoids the
 * unluckily measured pairs would look better than rank order. */
static double distance(const cx_topo *t, int a, int b)
{
    if (t->dist)
        return t->levels[(size_t)a * t->p + b];
    int x = t->node_of[a], y = t->node_of[b];
    return a == b ? 0 : x == y ? t->near : t->levels[(size_t)x * t->nn + y];
}

/* Ring: the sum of the edge distances, not the longest edge. All edges of
 * a ring step run at once, and the edges that cross a shared link (the
 * uplink between two switches) share its bandwidth: a step takes longer
 * with every far edge. The longest edge cannot tell a ring that crosses
 * the uplink twice from one that crosses it at every node (scattered
 * placement, 8x slower in SMPI at p=240); the sum can. */
static double ring_model(const cx_topo *t, const int *o)
{
    double len = 0;
    for (int v = 0; v < t->p; v++)
        len += distance(t, o[v], o[(v + 1) % t->p]);
    return len;
}

/* Sum of the distances of the pairs (v, v ^ mask), v < n, partners < p
 * (each pair counted from both ends). */
static double stage_sum(const cx_topo *t, const int *o, int n, int mask)
{
    double sum = 0;
    for (int v = 0; v < n; v++)
        if ((v ^ mask) < t->p)
            sum += distance(t, o[v], o[v ^ mask]);
    return sum;
}

/* Recursive doubling (cx_base_allgather_rdoubling): stage mask moves mask
 * blocks; with p' the largest power of two <= p, ranks p'.. first fold
 * onto v - p' (1 block) and get the whole result back (p - 1 blocks) over
 * the same pairs. A stage costs its data times the sum of its pairs'
 * distances, not the slowest pair's, for the ring's reason: all pairs run
 * at once and share the node links and the uplink. With the slowest pair
 * rank order looked as good as the paper's mapping on 30 scattered nodes
 * (model 1.02x), where one stage of rank order sends all 240 ranks across
 * the uplink and the mapping is 4.8x faster (SMPI). */
static double rd_model(const cx_topo *t, const int *o)
{
    int p = t->p, pow2 = 1;
    while (pow2 * 2 <= p)
        pow2 *= 2;
    double cost = pow2 < p ? p * stage_sum(t, o, p, pow2) : 0;
    for (int mask = 1; mask < pow2; mask <<= 1)
        cost += mask * stage_sum(t, o, pow2, mask);
    return cost;
}

/* The model's distances, once per state. */
static int levels_ready(cx_topo *t)
{
    int n = t->dist ? t->p : t->nn;
    if (t->levels)
        return 1;
    if (!(t->levels = malloc((size_t)n * n * sizeof *t->levels)))
        return 0;
    cx_topo_levels(t->dist ? t->dist : t->node_dist, n, t->levels);
    return 1;
}

double cx_topo_model(cx_topo *t, int kind, const int *order)
{
    if (!levels_ready(t))
        return -1;
    return kind == CX_TOPO_RING ? ring_model(t, order) : rd_model(t, order);
}
