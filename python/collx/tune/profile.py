"""A profile of the application, the tuner's input with --profile FILE:
the JSON that COLLX_STATS=FILE.json writes at MPI_Finalize
(src/core/stats), of which the tuner reads

    {"job": {"ranks": 128, "nodes": 16, "ranks_per_node": 8, "seconds": 41.2},
     "profile": [{"collective": "allreduce", "mode": "blocking", "comm_size": 128,
                  "ranks_per_node": 8, "nodes": 16, "msg_lo": 1024, "msg_hi": 2047,
                  "calls": 5000, "ranks": 128, "seconds": 3.1, "rank_seconds": 390.2}, ...]}

(docs/guide/statistics.md, "The profile"; other keys are ignored): per
collective, mode, communicator size, ranks per node and nodes (null where
collx could not learn them), and class of message sizes (bytes per rank,
as COLLX_RULES' msg_size counts them: 0, then 2^(k-1)..2^k - 1; for the v-
and w-collectives, whose rules cannot use a size, as collbench's -m means
it there: the mean block of the call's counts, per pair for alltoallv/w;
msg_hi null in a profile of a collx before that: any), the calls and the
time spent in them (seconds: the slowest rank's, which is what the job
waits for; rank_seconds: summed over ranks). The tuner weighs each entry
by its time (time_of: rank_seconds over the job's ranks, which add up
over entries to the mean rank's time in collectives; the slowest ranks'
seconds do not: each entry's slowest rank may be another, and their sum
can exceed the job).

What the tuner measures of it (points): each entry's collective at its
communicator size, at the class's bounds (msg_lo and msg_hi, rounded to
the 4-byte elements collbench sends; one size where they agree; the v-
and w-collectives' too; any sizes: ANY_SIZES), each weighted by the
entry's seconds (split between
its sizes); blocking and nonblocking rows of one point add up (a rule
serves both; collbench measures the blocking call). Each point also has
the entry's calls (each of its sizes all of them; the sum over its rows),
over which decide.py charges an algorithm's setup on a new communicator:
an algorithm 4 times faster per call that measures the topology for a
second first is no gain for 3 calls. A communicator
whose ranks per node and nodes are what ranks 0..q-1 have under block
placement is measured as collbench's --comm-size q; one with another
shape of equal nodes (k ranks on each of n nodes: the nodes' leaders, a
column of a process grid) as --comm-shape nxk, under a key of its own
(grid.shaped: another machine to the models and the rules). An entry the
tuner cannot measure is set aside with the reason: a collective this
collx does not know, a communicator larger than the target's P, ranks on
nodes of unequal sizes or of unknown count that block placement does not
give, more nodes or ranks per node than the target has."""
import json

from collx.tune import grid as gridmod

ELEMENT = 4   # collbench sends MPI_INT: sizes are multiples of 4 bytes
# A v- or w-collective without a class (msg_hi null: a profile of a collx
# that did not size them yet): measured at a small, a middle and a large
# block, as the rules choose one algorithm for all its sizes
ANY_SIZES = (64, 4096, 262144)


class ProfileError(ValueError):
    """The file is no profile the tuner can read; the text says why."""


def read(path):
    """(job, entries) of a COLLX_STATS JSON file: job {"ranks", "nodes",
    "ranks_per_node", "seconds"} (missing ones None), entries a list of
    dicts with every profile key (numbers as int or float)."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise ProfileError(f"cannot read the profile {path}: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise ProfileError(f"{path} is not JSON (line {e.lineno}: {e.msg}): the profile is "
                           "the JSON COLLX_STATS=FILE.json writes") from e
    if not isinstance(doc, dict) or not isinstance(doc.get("profile"), list):
        raise ProfileError(f"{path} has no \"profile\" list: write it with "
                           "COLLX_STATS=FILE.json (a collx that profiles the calls)")
    job = doc.get("job") if isinstance(doc.get("job"), dict) else {}
    job = {k: job.get(k) for k in ("ranks", "nodes", "ranks_per_node", "seconds")}
    entries = []
    for i, e in enumerate(doc["profile"]):
        if not isinstance(e, dict):
            raise ProfileError(f"{path}: profile[{i}] is not an object")
        missing = [k for k in ("collective", "comm_size", "msg_lo", "msg_hi", "seconds")
                   if k not in e]
        if missing:
            raise ProfileError(f"{path}: profile[{i}] lacks {', '.join(missing)}")
        bad = [k for k in ("comm_size", "msg_lo", "msg_hi", "calls", "ranks_per_node",
                           "nodes", "ranks") if k in e and e[k] is not None and
               (not isinstance(e[k], int) or isinstance(e[k], bool) or e[k] < 0)]
        bad += [k for k in ("comm_size", "msg_lo") if e[k] is None]
        bad += [k for k in ("seconds", "rank_seconds") if k in e and
                (not isinstance(e[k], (int, float)) or isinstance(e[k], bool) or e[k] < 0)]
        if bad:
            raise ProfileError(f"{path}: profile[{i}]: {', '.join(bad)} must be "
                               "non-negative numbers (integers but the seconds)")
        if e["msg_hi"] is not None and e["msg_lo"] > e["msg_hi"]:
            raise ProfileError(f"{path}: profile[{i}]: msg_lo {e['msg_lo']} > msg_hi "
                               f"{e['msg_hi']}")
        entries.append(dict(e))
    return job, entries


def time_of(entry, ranks):
    """An entry's seconds that add up over entries: its rank seconds over
    the job's ranks (the mean rank's time in it); its slowest rank's
    seconds where the profile lacks either (a collx before rank_seconds)."""
    rs = entry.get("rank_seconds")
    if rs is not None and ranks:
        return rs / ranks
    return entry["seconds"]


def sizes_of(entry):
    """The message sizes the tuner measures an entry at: its class's
    bounds, each rounded to collbench's elements (msg_lo up, msg_hi down,
    at least one element); one where they agree; a v-collective's class
    as any other. barrier: grid.BARRIER_SIZE; any sizes (msg_hi null, an
    older profile): ANY_SIZES."""
    if entry["collective"] in gridmod.NO_SIZE:
        return [gridmod.BARRIER_SIZE]
    if entry["msg_hi"] is None:
        return list(ANY_SIZES)
    lo = max(ELEMENT, -(-entry["msg_lo"] // ELEMENT) * ELEMENT)
    hi = max(ELEMENT, entry["msg_hi"] // ELEMENT * ELEMENT)
    return sorted({lo, max(lo, hi)})


def block_rpn(q, node):
    """Ranks per node of ranks 0..q-1 under block placement with node ranks
    per node (None: one node)."""
    return min(q, node) if node else q


def block_nodes(q, node):
    """Nodes of ranks 0..q-1 under block placement (node: as block_rpn)."""
    return -(-q // node) if node else 1


def placement(q, rpn, nodes, p, node):
    """How the tuner makes a communicator of q ranks with rpn ranks on its
    fullest node over nodes nodes (either None: unknown) on a target of p
    ranks with node ranks per node (None: one node): (None, None) as ranks
    0..q-1 (--comm-size; also where the profile does not say), (k, None)
    as k ranks on each of q / k nodes (--comm-shape), or (None, why) not."""
    if rpn is None or (rpn == block_rpn(q, node) and
                       (nodes is None or nodes == block_nodes(q, node))):
        return None, None
    block = (f"where the tuner's ranks 0..{q - 1} (block placement) have "
             f"{block_rpn(q, node)} on {block_nodes(q, node)}")
    if nodes is None or nodes * rpn != q:
        how = "nodes unknown" if nodes is None else f"{nodes} nodes of unequal sizes"
        return None, (f"ranks per node {rpn}, {how}, {block}; collbench's --comm-shape "
                      "makes equal nodes")
    if not node:
        return None, f"{nodes} nodes of {rpn} ranks: the target has one node"
    if rpn > node or nodes > p // node:
        return None, (f"{nodes} nodes of {rpn} ranks: the target has {p // node} of "
                      f"{node}")
    return rpn, None


class Profile:
    """The points of a profile the tuner measures, and those it sets aside.

    points: {key: {(q, m): seconds}}, key the collective or, for a
    communicator of another shape than block placement gives, its shaped
    key (grid.shaped); keys: {id(entry): its key} of the entries measured;
    skipped: [(entry, why)]; seconds: the profile's whole time (measured or
    not; the entries' time_of, which add up), job: its job; ncalls: {key: {(q, m): calls}} (None where an
    entry there does not count them)."""

    def __init__(self, path, job, entries, p, node, known):
        """p: the target's ranks, node: its ranks per node (None: one node),
        known: the collectives this collx has."""
        self.path, self.job, self.entries = path, job, entries
        self.points, self.keys, self.skipped, self.ncalls = {}, {}, [], {}
        for e in entries:
            e["time"] = time_of(e, job.get("ranks"))
        self.seconds = sum(e["time"] for e in entries)
        for e in entries:
            key, why = self.key_of(e, p, node, known)
            if why:
                self.skipped.append((e, why))
                continue
            self.keys[id(e)] = key
            ms, q = sizes_of(e), e["comm_size"]
            cell = self.points.setdefault(key, {})
            calls = self.ncalls.setdefault(key, {})
            n = e.get("calls") or None   # 0 or missing: not counted
            for m in ms:
                cell[(q, m)] = cell.get((q, m), 0.0) + e["time"] / len(ms)
                # each size of the class its whole calls, not a share as
                # the seconds: a rule from those sizes serves them all
                had = calls.get((q, m), 0)
                calls[(q, m)] = None if n is None or had is None else had + n

    @staticmethod
    def key_of(e, p, node, known):
        """(key, None) of an entry the tuner measures, or (None, why)."""
        c, q = e["collective"], e["comm_size"]
        if c not in known:
            return None, f"no collective {c} in this collx"
        if q < 2:
            return None, "a communicator of one rank: nothing to tune"
        if q > p:
            return None, f"a communicator of {q} ranks, larger than the target's {p}"
        per, why = placement(q, e.get("ranks_per_node"), e.get("nodes"), p, node)
        if why:
            return None, why
        if e["time"] <= 0:
            return None, "no time spent"
        return (gridmod.shaped(c, per) if per else c), None

    def measured_seconds(self):
        return sum(w for pts in self.points.values() for w in pts.values())

    def grids(self):
        """{key: grid.Grid} of the profile's communicator sizes and message
        sizes per key (their product: the points not in the profile weigh
        nothing, the sampler measures none of them for itself), the keys
        with the most time first."""
        order = sorted(self.points, key=lambda c: -sum(self.points[c].values()))
        return {c: gridmod.Grid(c, sorted({q for q, _ in self.points[c]}),
                                sorted({m for _, m in self.points[c]})) for c in order}

    def calls(self):
        """{(key, q, m): calls} of the points measured whose entries all
        count their calls (a point of two modes, blocking and nonblocking,
        the sum): what decide.Decider charges an algorithm's setup to."""
        return {(c, q, m): n for c, pts in self.ncalls.items() for (q, m), n in pts.items()
                if n and c in self.points}

    def weights(self):
        """{(key, q, m): seconds} of the points measured."""
        return {(c, q, m): w for c, pts in self.points.items() for (q, m), w in pts.items()}


def load(path, p, node, known):
    """The Profile of a COLLX_STATS file for a target of p ranks with node
    ranks per node and the collectives known."""
    job, entries = read(path)
    return Profile(path, job, entries, p, node, known)
