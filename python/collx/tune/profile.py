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
as COLLX_RULES' msg_size counts them: 0, then 2^(k-1)..2^k - 1; msg_hi
null for the v- and w-collectives: any), the calls and the time spent in
them (seconds: the slowest rank's, which is what the job waits for;
rank_seconds: summed over ranks).

What the tuner measures of it (points): each entry's collective at its
communicator size, at the class's bounds (msg_lo and msg_hi, rounded to
the 4-byte elements collbench sends; one size where they agree; any
sizes: ANY_SIZES), each weighted by the entry's seconds (split between
its sizes); blocking and nonblocking rows of one point add up (a rule
serves both; collbench measures the blocking call). An entry the tuner
cannot measure is set aside with the reason: a collective this collx
does not know, a communicator larger than the target's P, or ranks per
node other than block placement gives a communicator of that size (the
tuner measures ranks 0..q-1; a communicator of one rank per node, the
nodes' leaders, is another machine)."""
import json

from collx.tune import grid as gridmod

ELEMENT = 4   # collbench sends MPI_INT: sizes are multiples of 4 bytes
# A v- or w-collective's sizes, which only some ranks know (msg_hi null):
# measured at a small, a middle and a large block, as the rules choose one
# algorithm for all its sizes
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


def sizes_of(entry):
    """The message sizes the tuner measures an entry at: its class's
    bounds, each rounded to collbench's elements (msg_lo up, msg_hi down,
    at least one element); one where they agree. barrier: grid.BARRIER_SIZE;
    any sizes (msg_hi null): ANY_SIZES."""
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


class Profile:
    """The points of a profile the tuner measures, and those it sets aside.

    points: {collective: {(q, m): seconds}}; skipped: [(entry, why)];
    seconds: the profile's whole time (measured or not), job: its job."""

    def __init__(self, path, job, entries, p, node, known):
        """p: the target's ranks, node: its ranks per node (None: one node),
        known: the collectives this collx has."""
        self.path, self.job, self.entries = path, job, entries
        self.points, self.skipped = {}, []
        self.seconds = sum(e["seconds"] for e in entries)
        for e in entries:
            c, q = e["collective"], e["comm_size"]
            rpn = e.get("ranks_per_node")
            why = None
            if c not in known:
                why = f"no collective {c} in this collx"
            elif q < 2:
                why = "a communicator of one rank: nothing to tune"
            elif q > p:
                why = f"a communicator of {q} ranks, larger than the target's {p}"
            elif rpn is not None and rpn != block_rpn(q, node):
                why = (f"ranks per node {rpn}, where the tuner's {q} ranks (ranks 0..{q - 1}, "
                       f"block placement) have {block_rpn(q, node)}")
            elif e["seconds"] <= 0:
                why = "no time spent"
            if why:
                self.skipped.append((e, why))
                continue
            ms = sizes_of(e)
            for m in ms:
                cell = self.points.setdefault(c, {})
                cell[(q, m)] = cell.get((q, m), 0.0) + e["seconds"] / len(ms)

    def measured_seconds(self):
        return sum(w for pts in self.points.values() for w in pts.values())

    def grids(self):
        """{collective: grid.Grid} of the profile's communicator sizes and
        message sizes per collective (their product: the points not in the
        profile weigh nothing, the sampler measures none of them for
        itself), the collectives with the most time first."""
        order = sorted(self.points, key=lambda c: -sum(self.points[c].values()))
        return {c: gridmod.Grid(c, sorted({q for q, _ in self.points[c]}),
                                sorted({m for _, m in self.points[c]})) for c in order}

    def weights(self):
        """{(collective, q, m): seconds} of the points measured."""
        return {(c, q, m): w for c, pts in self.points.items() for (q, m), w in pts.items()}


def load(path, p, node, known):
    """The Profile of a COLLX_STATS file for a target of p ranks with node
    ranks per node and the collectives known."""
    job, entries = read(path)
    return Profile(path, job, entries, p, node, known)
