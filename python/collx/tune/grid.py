"""The grid the tuner samples from, and the points it holds out.

Message sizes: powers of two from MIN to MAX (bytes per rank, as collbench's
-m and the rules' msg_size count them). Communicator sizes: node counts
N, N/2, N/4, ... and 3N/4, 3N/8, ... (rounded) as whole nodes, each also
with a quarter, a half and three quarters of a node more (partial_fills: a
communicator that ends in a part of a node is another layout, unequal
nodes, and how full its last node is matters), then inside one node k,
k/2, ... and 3k/4, 3k/8, ... down to 2 ranks (k ranks per node, block
placement: a communicator of q ranks is ranks 0..q-1). Without nodes (one
machine) k = P. Held-out points lie off the grid: sizes 3 * 2^j; inside one
node communicator sizes halfway between two grid ones; across nodes whole
nodes plus k/8, 3k/8, 5k/8 or 7k/8 (held_out_fills), and whole-node sizes
the grid skips.

Which grid size serves a communicator size (comm_ranges): across nodes, a
size of whole nodes is served by the nearest grid size of whole nodes, a
size that ends in a part of a node by the partial grid size with the same
count of whole nodes (or the nearest count) and the nearest fill; inside
one node by the nearest size inside one node."""
import math

# collectives whose block sizes only the root knows: rules cannot use msg_size
V_COLLS = ("gatherv", "scatterv", "allgatherv", "alltoallv", "alltoallw",
           "reduce_scatter")
NO_SIZE = ("barrier",)   # measured at one size; rules use no msg_size
BARRIER_SIZE = 4


# A communicator block placement does not give (ranks 0..q-1): k ranks on
# each of q / k nodes, as the nodes' leaders (k = 1) or a column of a
# process grid; collbench makes it with --comm-shape. The tuner keeps its
# points apart from the collective's, under a key of their own,
# "<collective>-<k>ppn" (no collective's name has a '-'): to the models and
# the rules another machine, with k ranks per node and whole nodes only.
SHAPE_SEP = "-"


def shaped(coll, per):
    """The key of coll on communicators of per ranks on each node."""
    return f"{coll}{SHAPE_SEP}{per}ppn"


def coll_of(key):
    """The collective of a key (itself, or a shaped one's)."""
    return key.split(SHAPE_SEP, 1)[0]


def per_node_of(key):
    """The ranks per node of a shaped key; None for a collective's own."""
    _, sep, rest = key.partition(SHAPE_SEP)
    return int(rest[:-len("ppn")]) if sep else None


def node_of(key, node):
    """Ranks per node of key's communicators: a shaped key's own, else the
    target's node (None: one node)."""
    per = per_node_of(key)
    return per if per else node


def comm_args(key, q):
    """collbench's words for key's communicator of q ranks: --coll, and
    for a shaped key --comm-shape NODESxK."""
    per = per_node_of(key)
    return ["--coll", coll_of(key)] + (["--comm-shape", f"{q // per}x{per}"] if per else [])


def uses_msg_size(coll):
    coll = coll_of(coll)
    return coll not in V_COLLS and coll not in NO_SIZE


def parse_size(text):
    """'4096', '4K', '2M' -> bytes."""
    t = text.strip()
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(t[-1:].lower(), 1)
    return int(t[:-1] if mult > 1 else t) * mult


def parse_range(text):
    lo, _, hi = text.partition(":")
    lo, hi = parse_size(lo), parse_size(hi or lo)
    if not 0 < lo <= hi:
        raise ValueError(f"bad size range '{text}' (want MIN:MAX, 0 < MIN <= MAX)")
    return lo, hi


def msg_sizes(lo, hi):
    """Powers of two from lo to hi (lo itself if it is not one)."""
    out, s = [], lo
    while s <= hi:
        out.append(s)
        s *= 2
    return out


def halvings(n):
    """n, n/2, n/4, ... and 3n/4, 3n/8, ... rounded, >= 1, descending."""
    got, x = set(), float(n)
    while x >= 1:
        got.add(int(round(x)))
        if 0.75 * x >= 1:
            got.add(int(round(0.75 * x)))
        x /= 2
    return sorted(got, reverse=True)


def fills(k, fractions):
    """Ranks past whole nodes at these fractions of a node of k ranks,
    rounded half up, within 1..k-1, deduplicated, ascending."""
    return sorted({min(k - 1, max(1, int(f * k + 0.5))) for f in fractions}) if k >= 2 else []


def partial_fills(k):
    """The grid's partial nodes: a quarter, half and three quarters of a
    node (k = 8: 2 4 6; k = 4: 1 2 3; k = 2: 1)."""
    return fills(k, (0.25, 0.5, 0.75))


def held_out_fills(k, i):
    """Held-out partial nodes past the i-th whole-node count: k/8 and 5k/8
    for even i, 3k/8 and 7k/8 for odd i (two per count, as many as the
    grid's old k/4 and 3k/4; all four fills over the counts), never a
    grid fill (k = 8: 1 5 / 3 7; k = 16: 2 10 / 6 14)."""
    fr = (0.125, 0.625) if i % 2 == 0 else (0.375, 0.875)
    return [f for f in fills(k, fr) if f not in partial_fills(k)]


def comm_sizes(p, node=None):
    """The grid's communicator sizes for p ranks, k = node ranks per node
    (None or >= p: one node): whole nodes, whole nodes and a quarter, half
    and three quarters of a node, sizes inside one node. Descending, all
    >= 2."""
    k = node if node and node < p else p
    qs = set()
    if k < p:
        counts = halvings(p // k)
        qs |= {n * k for n in counts}
        qs |= {n * k + f for n in counts for f in partial_fills(k) if n * k + f < p}
    qs |= {q for q in halvings(k) if q >= 2}
    if p not in qs and p >= 2:
        qs.add(p)   # p not a multiple of k: the whole job still counts
    # one rank per node: a single node's "communicator" is one rank
    return sorted((q for q in qs if q >= 2), reverse=True)


def held_out_comm_sizes(p, node=None):
    """Communicator sizes off the grid: inside one node halfway between two
    grid ones; across nodes each count of whole nodes n = 1, 2, ... plus
    two held-out fills (held_out_fills: k/8 and 5k/8, then 3k/8 and 7k/8,
    alternating), and sizes of whole nodes the grid skips. P = 32 with 8
    per node: 29 25 23 19 13 9 7 5."""
    grid = comm_sizes(p, node)
    k = node if node and node < p else p
    out = set()
    for hi, lo in zip(grid, grid[1:]):
        mid = (hi + lo) // 2
        if lo < mid < hi <= k:
            out.add(mid)
    if k < p:
        out |= {n * k + f for n in range(1, p // k + 1)
                for f in held_out_fills(k, n - 1) if n * k + f < p}
        out |= {n * k for n in range(2, p // k + 1)} - set(grid)
    return sorted(out - set(grid), reverse=True)


def held_out_sizes(lo, hi):
    """3 * 2^j bytes between lo and hi: halfway (in log scale, nearly)
    between two grid sizes, never on the grid."""
    grid = set(msg_sizes(lo, hi))
    out, s = [], 3 * 2 ** max(0, int(math.log2(lo)) - 1)
    while s <= hi:
        if s >= lo and s not in grid and s % 4 == 0:
            out.append(s)
        s *= 2
    return out


def bins(values, top=None):
    """Ranges that cover every value between grid points: each grid value v
    serves [lo, hi], boundaries at the geometric mean of neighbours; the
    lowest range starts at 0 (None), the highest ends at top (None: open).
    values ascending; returns [(lo or None, hi or None)] in that order."""
    out = []
    for i, v in enumerate(values):
        lo = None if i == 0 else int(math.sqrt(values[i - 1] * v)) + 1
        hi = top if i == len(values) - 1 else int(math.sqrt(v * values[i + 1]))
        out.append((lo, hi))
    return out


def is_pow2(v):
    return v > 0 and v & (v - 1) == 0


def comm_bins(values, top=None):
    """bins() for communicator sizes, except that beside a grid size that
    is not a power of two a power of two serves only itself: powers of two
    behave apart (recursive doubling and Rabenseifner are at their best
    there, the MPI's own selection switches on them), so a size between
    a power of two and a non-power grid size is served like the non-power.
    Grid 2 3 4 6 8 16 24 32: 6 serves 5..7, 8 serves 8..11, 24 serves
    17..31, 32 only 32."""
    out = bins(values, top)
    for i, v in enumerate(values):
        if not is_pow2(v):
            continue
        if i > 0 and not is_pow2(values[i - 1]):
            out[i - 1], out[i] = (out[i - 1][0], v - 1), (v, out[i][1])
        if i + 1 < len(values) and not is_pow2(values[i + 1]):
            out[i], out[i + 1] = (out[i][0], v), (v + 1, out[i + 1][1])
    return out


def layout(q, node):
    """0: inside one node (or no nodes), 1: whole nodes, 2: whole nodes and
    a part of one (block placement, node ranks per node)."""
    if not node or q <= node:
        return 0
    return 1 if q % node == 0 else 2


def within(ranges, x):
    """The value of [(v, (lo, hi))] whose range holds x."""
    return next(v for v, (lo, hi) in ranges if (lo is None or x >= lo) and (hi is None or x <= hi))


def server(values, node, q):
    """The grid size (values, ascending) that serves q ranks: the nearest of
    its own layout (comm_bins); a size ending in a part of a node by the
    nearest count of whole nodes before its last one, then the nearest
    fill of the last node (ranks past whole nodes; a tie: the smaller) with
    that count, so that it
    never serves a size of another node count beside one of its own.
    8 per node, grid fills 2 4 6: 17 and 18 by 18, 19 by 18, 21 by 20,
    23 by 22."""
    kind = layout(q, node)
    own = [v for v in values if layout(v, node) == kind]
    cands = own or ([v for v in values if layout(v, node) > 0] if kind else []) or values
    if kind != 2 or not own:
        return within(list(zip(cands, comm_bins(cands))), q)
    counts = sorted({v // node for v in cands})
    n = within(list(zip(counts, bins(counts))), q // node)
    return min((v for v in cands if v // node == n), key=lambda v: (abs(v % node - q % node), v))


def brackets(values, node, q):
    """(qa, qb, s): the grid sizes of q's layout on either side of q, and
    how far q lies from qa to qb (0..1: in log2 q; ending in a part of a
    node, in the last node's fill between two grid sizes of the same whole
    nodes); None when q is on the grid or lacks one on either side."""
    kind = layout(q, node)
    own = [v for v in values if layout(v, node) == kind]
    if kind == 2:
        own = [v for v in own if v // node == q // node]
    lo = [v for v in own if v < q]
    hi = [v for v in own if v > q]
    if q in values or not lo or not hi:
        return None
    qa, qb = max(lo), min(hi)
    if kind == 2:
        return qa, qb, (q - qa) / (qb - qa)
    return qa, qb, math.log2(q / qa) / math.log2(qb / qa)


def comm_ranges(values, node=None, open_below=True):
    """[(lo, hi, v)] ascending, covering every communicator size up to the
    largest grid size: v serves lo..hi (lo None: open below; with
    open_below=False the first range starts at the smallest grid size).
    Without nodes, comm_bins. With nodes, a size is served by the nearest
    grid size (comm_bins) of its own layout (inside one node, whole nodes,
    ending in a part of a node; across nodes the other across-node layout
    if the grid has none of its own), so p = 12 with 8 per node is not
    served by p = 16's rules: one node and a half is another machine than
    two nodes."""
    values = sorted(values)
    top = values[-1]
    if not node or node >= top:
        out = [(lo, hi, v) for v, (lo, hi) in zip(values, comm_bins(values, top))]
    else:   # a size at a time: layouts interleave
        out = []
        for q in range(1, top + 1):
            v = server(values, node, q)
            if out and out[-1][2] == v:
                out[-1] = (out[-1][0], q, v)
            else:
                out.append((q, q, v))
        out[0] = (None, out[0][1], out[0][2])
    if not open_below:
        out = [(max(lo or 0, values[0]), hi, v) for lo, hi, v in out if hi >= values[0]]
    return out


def nearest(values, x):
    """The grid value whose bin holds x (values ascending)."""
    for v, (lo, hi) in zip(values, bins(values)):
        if (lo is None or x >= lo) and (hi is None or x <= hi):
            return v
    return values[-1]


class Grid:
    """Communicator sizes x message sizes of one collective."""

    def __init__(self, coll, comms, sizes):
        self.coll = coll   # a collective, or a shaped key (shaped())
        self.comms = sorted(comms)                        # ascending
        self.sizes = [BARRIER_SIZE] if coll_of(coll) in NO_SIZE else sorted(sizes)

    def cells(self):
        return [(q, m) for q in self.comms for m in self.sizes]

    def index(self, q, m):
        """Position in grid steps: (log2 q, log2 m), so distances count
        halvings of either."""
        return math.log2(q), math.log2(m)
