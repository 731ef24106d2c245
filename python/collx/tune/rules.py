"""From choices on the grid to a COLLX_RULES file (src/core/select/rules.c).

Each grid point serves itself; what lies between grid points (message
sizes between two grid sizes, communicator sizes off the grid) is chosen
by between.Between.row from the estimates at the grid points around it.
Without it (or where it has no grid points around), each grid value
serves a range (grid.bins: boundaries at the geometric mean of
neighbouring grid values; the lowest range open below, the highest ending
at the largest value tuned: beyond it nothing was measured, and the file's
"beyond": "nearest" (BEYOND) tells collx to serve such a call by the
nearest rule with its ranks per node). For communicator sizes, a power of two beside a
grid size that is not one serves only itself (grid.comm_bins), and with
nodes a size is served by a grid size of its own layout (grid.comm_ranges:
inside one node, whole nodes, or ending in a part of a node). Per
communicator size, adjacent message-size ranges with the same choice
merge; then adjacent communicator-size ranges whose message-size ranges
and choices are all the same merge. Every range
gets a rule, native ones included, so the file says native where collx had
nothing faster. Where the target has nodes, each rule also bounds
ranks_per_node to what its communicator sizes had under block placement;
a shaped key's rules (a profile's communicators of k ranks on each node,
grid.shaped) hold k ranks per node from its smallest communicator size on,
and come first in the file (ordered).

A choice is an algorithm name, a label with per-call knobs set
(NAME@KNOB=VALUE, labels.label_of: the tuner's variants) or (name,
params): a rule is a dict, and params, when a choice has them, become its
"params" key (match gives such a rule's choice back as its label).
Variants are never candidates (online tuning tries algorithms by name).
Given the runners-up at each grid point (decide.Decider.candidates), a
rule names as "candidates" (for online
tuning, COLLX_TUNE_ONLINE) native if it picks another, then the algorithms
close to its choice at the most of the grid points it covers, at most
MAX_CANDIDATES.

This module is the one writer of COLLX_RULES files (write): the tuner's
rules (main.py) and the rules a sweep's times give (from_sweep: the
hierarchical study's, tables/hier.py) both go through it; rulesfile.py
has the format (its text, its check) and writes nothing."""
import json
import os

from collx import rulesfile
from collx.tune import grid as gridmod
from collx.tune.labels import PARAM_SEP, label_of, split_label

MAX_CANDIDATES = 3   # online tuning tries each for a few calls: keep it short
# What the files say serves a call outside every rule's ranges (rulesfile.BEYOND):
# the nearest rule with the call's ranks per node (a job larger than the
# largest communicator tuned runs the rules of the largest, not native), said
# explicitly so that a reader need not know the default
BEYOND = "nearest"


def merge_runs(segs):
    """[(lo, hi, choice)] in order -> adjacent equal choices merged."""
    out = []
    for lo, hi, c in segs:
        if out and out[-1][2] == c:
            out[-1] = (out[-1][0], hi, c)
        else:
            out.append((lo, hi, c))
    return out


def merge_rows(rows):
    """[(qlo, qhi, segs, grid qs)] in order -> adjacent rows with equal segs
    merged (their grid communicator sizes gathered)."""
    out = []
    for qlo, qhi, segs, qs in rows:
        if out and out[-1][2] == segs:
            out[-1] = (out[-1][0], qhi, segs, out[-1][3] + qs)
        else:
            out.append((qlo, qhi, segs, qs))
    return out


def pick_candidates(choice, cells, close):
    """A rule's candidates: native first if the choice is another, then the
    algorithms close at the most of its grid cells (then the closest)."""
    alg = choice if isinstance(choice, str) else choice[0]
    seen = {}
    for cell in cells:
        for a, ratio in close.get(cell, {}).items():
            if PARAM_SEP in a:
                continue
            n, best = seen.get(a, (0, ratio))
            seen[a] = (n + 1, min(best, ratio))
    out = ["native"] if "native" in seen and alg != "native" else []
    out += sorted((a for a in seen if a not in ("native", alg)),
                  key=lambda a: (-seen[a][0], seen[a][1], a))
    return out[:MAX_CANDIDATES]


def rng(lo, hi):
    r = {}
    if lo is not None and lo > 0:
        r["min"] = lo
    if hi is not None:
        r["max"] = hi
    return r


def rule_of(coll, choice):
    alg, params = split_label(choice) if isinstance(choice, str) else choice
    r = {"collective": coll, "algorithm": alg}
    if params:
        r["params"] = {k: int(v) if isinstance(v, str) and v.lstrip("-").isdigit() else v
                       for k, v in params.items()}
    return r


def size_segments(q, sizes, choices):
    """[(lo, hi, choice)] over message sizes at grid communicator size q,
    each grid size serving up to halfway to its neighbours (grid.bins)."""
    return merge_runs([(lo, hi, choices[(q, m)])
                       for m, (lo, hi) in zip(sizes, gridmod.bins(sizes, top=sizes[-1]))])


def build(coll, grid, choices, node=None, comm_open_below=True, close=None, row=None):
    """Rules of one collective from {(q, m): choice} over grid (coll: a
    collective or a shaped key, grid.shaped, whose rules hold its ranks per
    node and start at its smallest communicator size; node: ranks
    per node of the target, None for one node; comm_open_below=False: no
    rule below the smallest communicator size measured; close: {(q, m):
    {algorithm: T / T(choice)}}, the runners-up that become candidates;
    row: q -> [(lo, hi, choice)] over message sizes, or None, for every
    communicator size: between.Between.row, where it gives None the row
    of the grid size that serves q (grid.comm_ranges); without it, each
    grid point serves up to halfway to its neighbours: size_segments)."""
    if gridmod.per_node_of(coll):   # a shaped key: its own nodes, none below its sizes
        node, comm_open_below = gridmod.node_of(coll, node), False
    coll = gridmod.coll_of(coll)
    qranges = gridmod.comm_ranges(grid.comms, node, open_below=comm_open_below)
    sized = gridmod.uses_msg_size(coll)
    rows = []
    for qlo, qhi, q in qranges:
        if not sized:
            rows.append((qlo, qhi, [(None, None, choices[(q, grid.sizes[0])])], [q]))
        elif not row:
            rows.append((qlo, qhi, size_segments(q, grid.sizes, choices), [q]))
        else:   # each size between its grid neighbours, or as its grid size q
            own = row(q)
            for p in range(qlo or 1, qhi + 1):
                segs = own if p == q else row(p) or own
                rows.append((None if p == (qlo or 1) and qlo is None else p, p,
                             merge_runs(segs), [q]))
    out = []
    for qlo, qhi, segs, qs in merge_rows(rows):
        for mlo, mhi, choice in segs:
            r = rule_of(coll, choice)
            ms = [m for m in grid.sizes if (mlo is None or m >= mlo) and (mhi is None or m <= mhi)]
            cands = pick_candidates(choice, [(q, m) for q in qs for m in ms], close or {})
            r["comm_size"] = rng(qlo, qhi)
            if sized and (mlo, mhi) != (None, None):
                r["msg_size"] = rng(mlo, mhi)
            if node:
                r["ranks_per_node"] = rng(min(qlo or 1, node), min(qhi, node))
            if cands:
                r["candidates"] = cands
            out.append(r)
    return out


def ordered(rules_of):
    """One list of {key: rules}, the shaped keys' first: collx takes the
    first rule that matches, and a collective's own lowest communicator
    range, open below, holds one rank per node too (grid.shaped)."""
    keys = sorted(rules_of, key=lambda k: gridmod.per_node_of(k) is None)
    return [r for k in keys for r in rules_of[k]]


def write(path, rules, prov=None, beyond=BEYOND):
    """The file in format version rulesfile.FORMAT_VERSION with its
    provenance (rulesfile.provenance) and "beyond" said (BEYOND), one rule
    per line: a diff shows what changed."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write(rulesfile.dumps(rules, prov, beyond=beyond))


def from_sweep(path, times, node, prov):
    """Writes path from a sweep's times instead of a tuning, and returns
    its rules: times = {coll: {(p, m): {algorithm: us or None}}} over the
    grid the sweep measured; per collective, the fastest algorithm at each
    (p, m) (native where none was measured), as ranges (build: nothing
    below the smallest p measured; node: ranks per node). prov: the
    provenance (provenance())."""
    out = []
    for c, pts in times.items():
        ps, ms = sorted({p for p, _ in pts}), sorted({m for _, m in pts})
        choice = {}
        for p in ps:
            for m in ms:
                ts = {a: y for a, y in pts.get((p, m), {}).items() if y}
                choice[(p, m)] = min(ts, key=ts.get) if ts else "native"
        out += build(c, gridmod.Grid(c, ps, ms), choice, node=node, comm_open_below=False)
    write(path, out, prov)
    return out


def provenance(command, **fields):
    return rulesfile.provenance(command, **fields)


class Rules(list):
    """A file's rules, with what it says serves beyond them (.beyond)."""
    beyond = "native"


def load(path):
    """The rules of a file (a Rules: .beyond is the file's "beyond", its
    default rulesfile.BEYOND_DEFAULT where it says none)."""
    with open(path) as f:
        doc = json.load(f)
    out = Rules(doc["rules"])
    out.beyond = doc.get("beyond", rulesfile.BEYOND_DEFAULT)
    return out


def inside(r, key, v):
    b = r.get(key)
    return b is None or (b.get("min", 0) <= v <= b.get("max", float("inf")))


def bounds(r, key):
    b = r.get(key) or {}
    return b.get("min", 0), b.get("max", float("inf"))


def ratio(rng, v):
    """How far v lies outside rng = (lo, hi), as rules.c measures it: the
    ratio lo / v below, v / hi above (1 inside)."""
    lo, hi = rng
    if v < lo:
        return lo / max(v, 1)
    if v > hi:
        return v / max(hi, 1)
    return 1.0


def label(r):
    return label_of(r["algorithm"], {k: str(v) for k, v in (r.get("params") or {}).items()})


def match(rules, coll, q, m, rpn, beyond=None):
    """The algorithm the first matching rule picks, as a label with its
    params, as src/core/select/rules.c does; where none matches, what
    beyond says (default: the rules' own .beyond, a plain list "native"):
    None (native runs) or, "nearest" (rules_pick.c), the rules of coll whose
    ranks_per_node holds rpn and whose communicator sizes hold q, else
    those nearest to q (in ratio), then the first of them whose message
    sizes hold m, else the nearest below or above m (in ratio; a tie: the
    earlier in the file)."""
    beyond = beyond or getattr(rules, "beyond", "native")
    for r in rules:
        if r["collective"] == coll and inside(r, "comm_size", q) and \
                inside(r, "msg_size", m) and inside(r, "ranks_per_node", rpn):
            return label(r)
    if beyond != "nearest":
        return None
    mine = [(i, r) for i, r in enumerate(rules)
            if r["collective"] == coll and inside(r, "ranks_per_node", rpn)]
    cands = [(i, r) for i, r in mine if inside(r, "comm_size", q)]
    if not cands and mine:
        far = min(ratio(bounds(r, "comm_size"), q) for _, r in mine)
        cands = [(i, r) for i, r in mine if ratio(bounds(r, "comm_size"), q) == far]
    if not cands:
        return None
    for _, r in cands:
        if inside(r, "msg_size", m):
            return label(r)
    below = max((x for x in cands if bounds(x[1], "msg_size")[1] < m),
                key=lambda x: (bounds(x[1], "msg_size")[1], -x[0]), default=None)
    above = min((x for x in cands if bounds(x[1], "msg_size")[0] > m),
                key=lambda x: (bounds(x[1], "msg_size")[0], x[0]), default=None)
    if below is None or above is None:
        return label((below or above)[1])
    up, down = bounds(above[1], "msg_size")[0] / m, m / bounds(below[1], "msg_size")[1]
    return label(above[1] if up < down or (up == down and above[0] < below[0]) else below[1])
