#!/usr/bin/python3
"""profile.py: the application's profile (the JSON COLLX_STATS=FILE.json
writes; a hand-written sample in fixtures/profile.json) as the tuner's
input: which points it measures (collective, communicator size, the
class's bounds in 4-byte elements, a v-collective's too), weighted by the
time spent there; how it makes each communicator (ranks 0..q-1 under block
placement, or collbench's --comm-shape under a shaped key: one rank per
node, the nodes' leaders); which it sets aside and why (a communicator
larger than P, nodes of unequal sizes or more than the target has, an
unknown collective); the grids it makes; files it refuses. Then the
sampler on a profile: native at the profile's points only, every
algorithm at the points with the most time first, the budget split by
that time, nothing measured off the profile, a shaped key's runs on
--comm-shape.

    test_profile.py [REPO_ROOT]"""
import json
import os
import tempfile

import helpers
from collx.tune import grid, profile, report, target
from collx.tune.decide import Decider
from collx.tune.sampler import Sampler
from collx.tune.store import Store
from test_sampler import Synthetic

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "profile.json")
KNOWN = {"allreduce", "bcast", "allgather", "alltoall", "alltoallv", "barrier"}
ALGS = {"allreduce": ["native", "ring", "recursive_doubling", "rabenseifner"],
        "bcast": ["native", "binomial", "linear"], "barrier": ["native", "bruck"],
        "alltoallv": ["native", "pairwise"], "allgather": ["native", "ring", "bruck"]}


def test_read_and_points():
    job, entries = profile.read(FIXTURE)
    assert job == {"ranks": 32, "nodes": 4, "ranks_per_node": 8, "seconds": 12.5} and \
        len(entries) == 8, f"the job and the entries: {job}, {len(entries)}"
    prof = profile.Profile(FIXTURE, job, entries, 32, 8, KNOWN)
    got = {c: {k: round(w, 9) for k, w in pts.items()} for c, pts in prof.points.items()}
    r = 32   # each entry weighs its rank seconds over the job's ranks
    want = {"allreduce": {(32, 1024): 90.5 / r / 2, (32, 2044): 90.5 / r / 2,
                          (8, 8): (31.0 + 15.0) / r / 2, (8, 12): (31.0 + 15.0) / r / 2},
            "bcast": {(16, 65536): 15.2 / r / 2, (16, 131068): 15.2 / r / 2},
            "allgather-1ppn": {(4, 256): 7.9 / r / 2, (4, 508): 7.9 / r / 2},
            "barrier": {(32, grid.BARRIER_SIZE): 4.5 / r},
            "alltoallv": {(16, 16384): 9.0 / r / 2, (16, 32764): 9.0 / r / 2}}
    assert got == {c: {k: round(w, 9) for k, w in pts.items()} for c, pts in want.items()}, \
        f"each entry at its class's bounds in 4-byte elements, its seconds split; blocking " \
        f"and nonblocking rows of one point add up; a v-collective (ranks per node " \
        f"unknown) at its class's bounds too; one rank per node on 4 nodes (the nodes' " \
        f"leaders) under a key of its own: {prof.points}"
    why = {e["collective"]: w for e, w in prof.skipped}
    assert set(why) == {"alltoall"} and "larger than the target's 32" in why["alltoall"], \
        f"set aside, with the reason: a communicator larger than P: {why}"
    assert abs(prof.seconds - 176.1 / r) < 1e-9 and \
        abs(prof.measured_seconds() - 173.1 / r) < 1e-9, \
        f"the profile's time (the mean rank's, which adds up) and the part measured: " \
        f"{prof.seconds}, {prof.measured_seconds()}"
    assert sum(e["seconds"] for e in entries) <= job["seconds"] and \
        prof.seconds <= job["seconds"], "the fixture's job holds its collectives' time"
    g = prof.grids()
    assert list(g) == ["allreduce", "bcast", "alltoallv", "allgather-1ppn", "barrier"] and \
        g["allreduce"].comms == [8, 32] and g["allreduce"].sizes == [8, 12, 1024, 2044] and \
        g["barrier"].sizes == [4], \
        f"grids: the most time first, the profile's sizes: " \
        f"{[(c, x.comms, x.sizes) for c, x in g.items()]}"
    assert ("no collective bcast in this collx" in
            [w for _, w in profile.Profile(FIXTURE, job, entries, 32, 8,
                                           KNOWN - {"bcast"}).skipped]), \
        "a collective this collx lacks is set aside"


def test_time_adds_up():
    """Two collectives whose slowest ranks differ: their slowest-rank
    seconds add up to more than the job; their rank seconds over the
    ranks do not (issue 63: "0.0167 s in collectives in a 0.0098 s job")."""
    job = {"ranks": 4, "nodes": 1, "ranks_per_node": 4, "seconds": 1.0}
    es = [{"collective": c, "mode": "blocking", "comm_size": 4, "ranks_per_node": 4,
           "nodes": 1, "msg_lo": 8, "msg_hi": 15, "calls": 10, "ranks": 4,
           "seconds": 0.9, "rank_seconds": 0.9 + 3 * 0.1} for c in ("allreduce", "bcast")]
    prof = profile.Profile("two.json", job, es, 4, 4, KNOWN)
    assert sum(e["seconds"] for e in es) > job["seconds"] and \
        abs(prof.seconds - 0.6) < 1e-9 and prof.seconds <= job["seconds"], \
        f"the profile's time is the mean rank's: {prof.seconds}"
    old = [dict(e, rank_seconds=None) for e in es]
    assert abs(profile.Profile("old.json", job, old, 4, 4, KNOWN).seconds - 1.8) < 1e-9, \
        "a profile without rank seconds: the slowest rank's seconds"


def test_sizes_of():
    got = [profile.sizes_of({"collective": "allreduce", "msg_lo": lo, "msg_hi": hi})
           for lo, hi in ((1, 1), (2, 3), (1024, 2047), (0, 0), (4, 7), (100, 1000))]
    assert got == [[4], [4], [1024, 2044], [4], [4], [100, 1000]], \
        f"the class's bounds as collbench sends them (whole 4-byte elements): {got}"
    got = [profile.sizes_of({"collective": c, "msg_lo": lo, "msg_hi": hi}) for c, lo, hi in
           (("alltoallv", 4, 7), ("gatherv", 1024, 2047), ("reduce_scatter", 0, 0))]
    assert got == [[4], [1024, 2044], [4]], \
        f"a v-collective's class (COLLX_STATS: the mean block of its counts, as collbench's " \
        f"-m) at its bounds, as any collective's, not at profile.ANY_SIZES: {got}"
    assert profile.sizes_of({"collective": "alltoallv", "msg_lo": 0, "msg_hi": None}) == \
        list(profile.ANY_SIZES), "any sizes (an older collx's v-collective): ANY_SIZES"


def test_refused():
    bad = {"not json": "{", "no profile": json.dumps({"job": {}}),
           "missing keys": json.dumps({"profile": [{"collective": "bcast"}]}),
           "lo above hi": json.dumps({"profile": [{"collective": "bcast", "comm_size": 4,
                                                   "msg_lo": 64, "msg_hi": 8,
                                                   "seconds": 1}]}),
           "negative": json.dumps({"profile": [{"collective": "bcast", "comm_size": -4,
                                                "msg_lo": 8, "msg_hi": 8, "seconds": 1}]})}
    with tempfile.TemporaryDirectory() as d:
        for name, text in bad.items():
            path = os.path.join(d, "p.json")
            with open(path, "w") as f:
                f.write(text)
            try:
                profile.read(path)
            except profile.ProfileError as e:
                assert path in str(e), f"{name}: the message names the file: {e}"
            else:
                raise AssertionError(f"{name}: refused")
        try:
            profile.read(os.path.join(d, "none.json"))
        except profile.ProfileError as e:
            assert "cannot read" in str(e), str(e)


class Recording(Synthetic):
    """Synthetic, keeping the words of every run: (q, args)."""

    def __init__(self, case_s):
        super().__init__(case_s)
        self.runs = []

    def run_collbench(self, q, args, env=None, timeout=300.0, mem_limit=None):
        self.runs.append((q, list(args)))
        return super().run_collbench(q, args, env, timeout, mem_limit)


def profile_sampler(prof, grids, algs, t, budget, stream):
    """A sampler on prof's points, 32 ranks of 8 per node, one sample a
    point, through target t; and its store."""
    st = Store(0.005)
    opts = type("O", (), {"budget": budget, "reps": 1, "iters": 3, "warmup": 1,
                          "timeout": 60, "mem_limit": None})
    t.p, t.node = 32, 8
    return Sampler(t, grids, algs, st, Decider(st, algs, 0.02, grids, 8), opts,
                   stream=stream, weights=prof.weights()), st


def sampled(budget, runs=None):
    job, entries = profile.read(FIXTURE)
    prof = profile.Profile(FIXTURE, job, entries, 32, 8, KNOWN)
    grids = prof.grids()
    algs = {c: ALGS[grid.coll_of(c)] for c in grids}
    t = Recording({c: 0.05 for c in ALGS})
    with open(os.devnull, "w") as devnull:
        s, st = profile_sampler(prof, grids, algs, t, budget, devnull)
        s.natives()
        natives = [(b["coll"], b["q"], tuple(b["sizes"])) for b in st.batches]
        s.profiled()
        s.guided()
    if runs is not None:
        runs += t.runs
    return prof, st, natives


def test_sampler_on_a_profile():
    runs = []
    prof, st, natives = sampled(None, runs)
    assert natives == [("allreduce", 32, (1024, 2044)), ("barrier", 32, (4,)),
                       ("bcast", 16, (65536, 131068)), ("alltoallv", 16, (16384, 32764)),
                       ("allreduce", 8, (8, 12)), ("allgather-1ppn", 4, (256, 508))], \
        f"native at the profile's points only, the largest communicators first: {natives}"
    off = [k for k in st.samples if (k[2], k[3]) not in prof.points[k[0]]]
    assert not off, f"nothing measured off the profile's points: {off[:5]}"
    every = [(c, a, q, m) for c, pts in prof.points.items() for q, m in pts
             for a in ALGS[grid.coll_of(c)]]
    missing = [k for k in every if k not in st.samples]
    assert not missing, f"without a budget every algorithm at every profile point: {missing}"
    shaped = [args[:4] for q, args in runs if "--comm-shape" in args]
    assert shaped and all(a == ["--coll", "allgather", "--comm-shape", "4x1"] for a in shaped) \
        and all(args[:2] != ["--coll", "allgather"] for q, args in runs
                if "--comm-shape" not in args), \
        f"the nodes' leaders measured on collbench's --comm-shape 4x1, as allgather: {runs}"


def test_placement():
    # (q, ranks per node, nodes) on 32 ranks, 8 per node (4 nodes)
    got = {case: profile.placement(*case, 32, 8) for case in [
        (16, 8, 2), (12, 8, 2), (4, 4, 1), (16, None, None),   # ranks 0..q-1
        (4, 1, 4), (8, 2, 4), (12, 4, 3), (2, 1, 2),           # k ranks on each node
        (5, 2, 3), (8, 4, None), (8, 1, 8), (16, 16, 1), (8, 2, 3)]}   # not made
    assert [per for per, _ in got.values()] == [None] * 4 + [1, 2, 4, 1] + [None] * 5 and \
        all(why is None for _, why in list(got.values())[:8]), \
        f"ranks 0..q-1 where block placement gives the profile's nodes (or it says none), " \
        f"else k ranks on each node (--comm-shape): {got}"
    why = [w for _, w in list(got.values())[8:]]
    assert "unequal" in why[0] and "nodes unknown" in why[1] and "has 4 of 8" in why[2] and \
        "has 4 of 8" in why[3] and "unequal" in why[4], \
        f"not made: nodes of unequal sizes or unknown, more nodes or ranks per node than " \
        f"the target has: {why}"
    per, why = profile.placement(4, 1, 4, 8, None)
    assert per is None and "one node" in why, \
        f"a target of one node makes no communicator across nodes: {why}"


def test_shaped_points():
    # LAMMPS's PPPM on 4 nodes x 2 (docs/results/tune/profile-cycle): the
    # FFT's columns, 4 ranks one per node, and the whole job
    entries = [{"collective": "alltoallv", "comm_size": 4, "ranks_per_node": 1, "nodes": 4,
                "msg_lo": 0, "msg_hi": None, "seconds": 1.69},
               {"collective": "allreduce", "comm_size": 8, "ranks_per_node": 2, "nodes": 4,
                "msg_lo": 8, "msg_hi": 15, "seconds": 0.52},
               {"collective": "allreduce", "comm_size": 4, "ranks_per_node": 2, "nodes": 2,
                "msg_lo": 8, "msg_hi": 15, "seconds": 0.1}]
    prof = profile.Profile("lammps", {}, entries, 8, 2, KNOWN)
    g = prof.grids()
    assert not prof.skipped and list(g) == ["alltoallv-1ppn", "allreduce"] and \
        g["alltoallv-1ppn"].comms == [4] and g["allreduce"].comms == [4, 8] and \
        grid.comm_args("alltoallv-1ppn", 4) == ["--coll", "alltoallv", "--comm-shape", "4x1"], \
        f"the columns measured as alltoallv on --comm-shape 4x1, apart from the block " \
        f"communicators: {[(c, x.comms) for c, x in g.items()]}, {prof.skipped}"


def test_budget_split_by_time():
    # allreduce at 32 ranks has 3.0 of the profile's 5.45 s measured: with
    # a budget that pays for part of the profile, it is measured first and
    # whole, the lighter points with what is left
    prof, st, _ = sampled(1.6)
    spent = {}
    for b in st.batches:
        spent[(b["coll"], b["q"])] = spent.get((b["coll"], b["q"]), 0.0) + b["cost"]
    heavy = [a for a in ("ring", "recursive_doubling", "rabenseifner")
             if ("allreduce", a, 32, 1024) in st.samples]
    assert len(heavy) == 3 and spent[("allreduce", 32)] == max(spent.values()), \
        f"the point with the most time measured first and whole, and most spent there: " \
        f"{spent}, {heavy}"
    assert sum(spent.values()) <= 1.6 + 0.6, f"the budget holds (within a run): {spent}"


class DearAlgorithms(Synthetic):
    """native cheap to simulate (SMPI's own: 0.01 s a case), every other
    algorithm 30 times dearer (collx's schedules at 1024 ranks), b1 1000
    times (bcast's pipeline_chain there); a run is killed at its timeout,
    the cases before kept."""

    def run_collbench(self, q, args, env=None, timeout=300.0, mem_limit=None):
        rows, out = super().run_collbench(q, args, env, timeout, mem_limit)
        cost, kept = 0.05, []
        for r in rows:
            r["host_s"] = str({"native": 0.01, "b1": 10.0}.get(r["alg"], 0.3))
            if cost + float(r["host_s"]) > timeout:
                return kept, target.limits.Outcome(
                    None, f"timeout: more than {timeout:g} s of CPU time", timeout, timeout,
                    0, "")
            cost += float(r["host_s"])
            kept.append(r)
        return rows, target.limits.Outcome(0, "", cost, cost, 0, "")


def test_probe_leaves_no_collective_alone():
    # ex5f at 1024 ranks: allreduce 48 % of the time, bcast 26 %, scan 25 %;
    # predicted from native's cases, allreduce's run took the whole budget
    # and the scan kept native with no comparison. Now every collective's
    # new algorithms are measured first at its heaviest size, in runs sized
    # by what the first ones cost, within its share.
    es = [{"collective": c, "mode": "blocking", "comm_size": 32, "ranks_per_node": 8,
           "nodes": 4, "msg_lo": lo, "msg_hi": hi, "calls": 10, "ranks": 32, "seconds": t}
          for c, lo, hi, t in (("allreduce", 4, 7, 0.41), ("allreduce", 8, 15, 0.07),
                               ("bcast", 4, 7, 0.26), ("scan", 4, 7, 0.25))]
    prof = profile.Profile("ex5f.json", {}, es, 32, 8, {"allreduce", "bcast", "scan"})
    grids = prof.grids()
    algs = {"allreduce": ["native"] + [f"a{i}" for i in range(6)],
            "bcast": ["native"] + [f"b{i}" for i in range(6)],
            "scan": ["native", "recursive_doubling", "linear"]}
    with open(os.devnull, "w") as devnull:
        s, st = profile_sampler(prof, grids, algs, DearAlgorithms({c: 0.01 for c in algs}),
                                4.0, devnull)
        s.natives()
        s.profiled()
    measured = {c: sorted({k[1] for k in st.samples if k[0] == c and k[1] != "native"})
                for c in algs}
    assert all(measured.values()), \
        f"every collective an algorithm measured besides native: {measured}"
    assert all(("allreduce", a, 32, 4) in st.samples for a in algs["allreduce"]), \
        f"allreduce's six at its heaviest size: {measured}"
    assert st.cannot("bcast", "b1", 32, 4), \
        "bcast's b1, dearer than its share, stopped there and counted as out of time"
    assert s.spent() <= 4.0 + 0.7, f"the budget holds within a run: {s.spent()}"


# ---------------------------------------------------------------- setup (issue 53)
def qe_like(calls):
    """Quantum ESPRESSO's bcasts on the emulated cluster, cut down: 8
    ranks, 64 KiB..128 KiB (one class), `calls` calls, and an allreduce
    class whose entry does not count its calls."""
    es = [{"collective": "bcast", "mode": "blocking", "comm_size": 8, "ranks_per_node": 8,
           "nodes": 1, "msg_lo": 65536, "msg_hi": 131071, "calls": calls, "ranks": 8,
           "seconds": 0.5},
          {"collective": "bcast", "mode": "nonblocking", "comm_size": 8, "ranks_per_node": 8,
           "nodes": 1, "msg_lo": 65536, "msg_hi": 131071, "calls": 1, "ranks": 8,
           "seconds": 0.01},
          {"collective": "allreduce", "mode": "blocking", "comm_size": 8, "ranks_per_node": 8,
           "nodes": 1, "msg_lo": 8, "msg_hi": 15, "ranks": 8, "seconds": 0.2}]
    return profile.Profile("qe.json", {}, es, 8, 8, KNOWN)


def test_calls_per_point():
    prof = qe_like(2)
    assert prof.calls() == {("bcast", 8, 65536): 3, ("bcast", 8, 131068): 3}, \
        f"each size of a class its whole calls, blocking and nonblocking added; an entry " \
        f"without calls gives none: {prof.calls()}"
    fix = profile.Profile(FIXTURE, *profile.read(FIXTURE), 32, 8, KNOWN).calls()
    assert fix[("allreduce", 8, 8)] == 50100 and fix[("allgather-1ppn", 4, 256)] == 1000, \
        f"the fixture's calls, a shaped key's under it: {fix}"


def test_setup_charged_to_profile_calls():
    # binomial_topo 4 times faster per call than native, its setup on a new
    # communicator 0.1 s (collbench's first call minus the median): not
    # chosen for 3 calls, chosen for 3000; the report says what was lost
    for calls, want in ((2, "native"), (2999, "binomial_topo")):
        prof = qe_like(calls)
        grids = prof.grids()
        algs = {"bcast": ["native", "binomial_topo"], "allreduce": ["native"]}
        st = Store(0.005)
        rows = [{"alg": a, "size_bytes": str(m), "median_us": str(us), "ran": a, "ppn": "8",
                 "host_s": "", "first_us": str(us + setup) if m == 65536 else ""}
                for m in (65536, 131068) for a, us, setup in
                (("native", 400.0 * m / 65536, 10.0), ("binomial_topo", 100.0 * m / 65536, 1e5))]
        st.add_rows("bcast", 8, rows, {})
        dec = Decider(st, algs, 0.02, grids, 8, calls=prof.calls())
        choices = {c: dec.choices(c, g) for c, g in grids.items()}
        got = {m: choices["bcast"][(8, m)] for m in (65536, 131068)}
        assert got == {65536: want, 131068: want}, f"{calls + 1} calls: {got}"
        lost = report.lost_to_setup(dec, grids, choices)
        lines = report.setup_lines(lost, choices)
        if want == "native":
            assert set(lost) == {("bcast", 8, 65536), ("bcast", 8, 131068)} and \
                "- bcast p=8 64K: binomial_topo: setup 0.1 s over 3 calls (0.250 of native " \
                "per call); chosen: native" in lines, f"the report says why: {lines}"
        else:
            assert not lost and not lines, f"nothing lost to a setup: {lines}"


if __name__ == "__main__":
    helpers.run_module(globals())
