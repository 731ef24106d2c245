#!/usr/bin/python3
"""sampler.py: the budget split between grids measured whole and those
left to the guided rounds, and native measured everywhere before them
(from tests/tune/test_tune_units.py's section budget split); where the
budget goes without a profile (issue 52): the initial design at both ends
of every layout, P included, native largest first, and on a replayed grid
at an eighth of its cost every algorithm measured at P and no
communicator size left with native alone (the profile's budget split:
test_profile.py); runs that fail (issue 62): the sampler stops when the
first ones fail before measuring anything, and says the first failed
run's whole message.

    test_sampler.py [REPO_ROOT]"""
import json
import math
import os

import helpers
from collx.tune import grid, report, target
from collx.tune.decide import Decider
from collx.tune.sampler import (FOCUS_BOOST, LAUNCH_TRIES, SCREEN, NothingMeasured, Sampler,
                                 size_weight)
from collx.tune.store import Store


# ---------------------------------------------------------------- budget split
class Synthetic(target.Target):
    """A target whose collbench answers from formulas: allreduce cheap to
    simulate (1 ms a case), bcast dear (0.3 s a case), launch 0.05 s."""
    kind, clock = "smpi", "host CPU seconds"
    case_s = {"allreduce": 0.001, "bcast": 0.3}

    def __init__(self, case_s=None):
        super().__init__(8, None, None, None)
        self.case_s = case_s or self.case_s

    def run_collbench(self, q, args, env=None, timeout=300.0, mem_limit=None):
        opt = {args[i]: args[i + 1] for i in range(len(args) - 1) if args[i].startswith("-")}
        coll, algs = opt["--coll"], opt["--algs"].split(",")
        rows, cost = [], 0.05
        for m in map(int, opt["-m"].split(",")):
            for a in algs:
                us = 10 + (1 + len(a) % 3) * math.log2(q) + m * 1e-3 * (1 + algs.index(a) % 2)
                c = self.case_s[coll]
                c = c(q) if callable(c) else c
                rows.append({"alg": a, "size_bytes": str(m), "median_us": str(us), "ran": a,
                             "ppn": str(q), "host_s": str(c)})
                cost += c
        return rows, target.limits.Outcome(0, "", cost, cost, 0, "")


def split_run(budget, case_s=None, natives=False):
    algs = {"allreduce": ["native", "ring", "recursive_doubling"],
            "bcast": ["native", "binomial", "linear"]}
    grids = {c: grid.Grid(c, [2, 3, 4, 6, 8], grid.msg_sizes(8, 1024)) for c in algs}
    st = Store(0.005)
    opts = type("O", (), {"budget": budget, "reps": 1, "iters": 3, "warmup": 1,
                          "timeout": 60, "mem_limit": None})
    with open(os.devnull, "w") as devnull:
        smp = Sampler(Synthetic(case_s), grids, algs, st, Decider(st, algs, 0.02, grids, None),
                      opts, stream=devnull)
        smp.initial()
        before = {c: sum(k[0] == c for k in st.samples) for c in algs}
        smp.whole()
        if natives:
            smp.natives()
            return st, grids
        return {c: (before[c], sum(k[0] == c for k in st.samples),
                    len(grids[c].cells()) * len(algs[c])) for c in algs}, smp.spent()


def test_cheap_grid_whole_dear_one_guided():
    got, spent = split_run(20.0)
    assert got["allreduce"][1] == got["allreduce"][2] and \
        got["bcast"][1] == got["bcast"][0] and spent <= 20.0 + 1, \
        f"budget split: allreduce's cheap grid measured whole, bcast's dear one left to the " \
        f"guided rounds (measured/grid pairs {got}; spent {spent:.1f} of 20 s)"


def test_two_dear_grids_both_guided():
    got, _ = split_run(20.0, {"allreduce": 0.2, "bcast": 0.3})
    assert all(got[c][1] == got[c][0] < got[c][2] for c in got), \
        f"budget split: two grids dearer than an even share each are both left to the " \
        f"guided rounds ({got})"


def test_grid_turning_dear_stops_whole():
    got, spent = split_run(20.0, {"allreduce": lambda q: 0.001 if q != 6 else 0.4,
                                  "bcast": 0.3})
    assert got["allreduce"][0] < got["allreduce"][1] < got["allreduce"][2] and \
        spent <= 20.0 + 2, \
        f"budget split: a grid that turns dear at a size the initial design did not measure " \
        f"stops being measured whole once a run no longer fits its share; the rest is " \
        f"sampled ({got}, spent {spent:.1f} of 20 s)"


def test_native_everywhere_before_rounds():
    st, grids = split_run(40.0, {"allreduce": 0.2, "bcast": 0.3}, natives=True)
    missing = [(c, q, m) for c, g in grids.items() for q, m in g.cells()
               if not st.usable(c, "native", q, m)]
    others = {k[1] for k in st.samples if k[1] != "native"}
    # off the initial design a native run may cost NATIVE_SHARE of the
    # budget: its largest sizes are left out, never its smallest
    smallest = [(c, q) for c, g in grids.items() for q in g.comms
                if not st.usable(c, "native", q, g.sizes[0])]
    tails = all(not st.usable(c, "native", q, mm)
                for c, q, m in missing for mm in grids[c].sizes if mm > m)
    assert not smallest and tails and others, \
        f"native measured at every communicator size after the initial design, before " \
        f"the rounds, leaving out only the largest sizes of a dear run (missing: {missing})"


# ---------------------------------------------------------------- priority
def test_initial_design_spans_each_layout():
    comms = grid.comm_sizes(144, 8)
    t = Synthetic()
    t.p, t.node = 144, 8
    smp = Sampler(t, {}, {}, Store(0.005), None, type("O", (), {"budget": None, "reps": 1}),
                  stream=open(os.devnull, "w"))
    got = smp.init_comms(grid.Grid("allreduce", comms, [8]))
    assert got == [2, 8, 10, 16, 72, 118, 144], \
        f"P = 144, 8 per node: each layout at both ends (inside a node 2 and 8, a part " \
        f"past whole nodes 10 and 118, whole nodes 16 and P) and P/2: {got}"
    t.p = 32
    got = smp.init_comms(grid.Grid("allreduce", grid.comm_sizes(32, 8), [8]))
    assert got == [2, 8, 10, 16, 24, 30, 32], \
        f"P = 32, 8 per node: P/2 the smallest of whole nodes, the middle one instead: {got}"
    t.p = 144
    t.p, t.node = 8, None
    got = smp.init_comms(grid.Grid("allreduce", [2, 3, 4, 6, 8], [8]))
    assert got == [2, 4, 8], f"one node: the smallest, the middle and P: {got}"


def replayed(name, coll, fraction):
    """The sampler on a replayed grid (docs/results/tune/<name>/grid) of one
    collective with a fraction of its grid's cost: (store, grid, decider,
    the replay target)."""
    path = os.path.join(helpers.ROOT, "docs", "results", "tune", name, "grid", "tune.json")
    t = target.Replay(path)
    algs = {coll: dict(t.registry())[coll]}
    with open(path) as f:
        meta = json.load(f)
    g = {coll: grid.Grid(coll, meta["comm_sizes"], grid.msg_sizes(*meta["sizes"]))}
    cost = sum(b["cost"] for b in t.src.batches if b["coll"] == coll)
    st = Store(0.005)
    opts = type("O", (), {"budget": cost * fraction, "reps": 1, "iters": 3, "warmup": 1,
                          "timeout": 60, "mem_limit": None})
    dec = Decider(st, algs, 0.02, g, t.node)
    with open(os.devnull, "w") as devnull:
        smp = Sampler(t, g, algs, st, dec, opts, stream=devnull)
        smp.initial()
        smp.whole()
        first_native = len(st.batches)
        smp.natives()
        natives = [b["q"] for b in st.batches[first_native:]]
        smp.guided()
    dec.refit(coll)
    return st, g[coll], dec, t, natives, smp


def test_priority_on_replayed_grid():
    # fattree-256x16's allreduce grid (P = 48, 16 per node) at an eighth of
    # its cost: the sampler before issue 52 measured no algorithm but native
    # at 36-48 ranks there (alternatives at 2-32 only), and its rules ran
    # native at every point of P
    st, g, dec, t, natives, smp = replayed("fattree-256x16", "allreduce", 1 / 8)
    assert natives == sorted(natives, reverse=True), \
        f"native at every communicator size, the largest first: {natives}"
    alts = {q: {k[1] for k in st.samples if k[2] == q and k[1] != "native"} for q in g.comms}
    assert all(len(alts[q]) >= 6 for q in (16, 2)), \
        f"every algorithm measured at both ends of the layouts up to P/2 (16 inside one " \
        f"node, 2): {alts}"
    # above P/2 (48, and 44 past two nodes) the algorithms slower than
    # SCREEN times the best at the reference size at every size there are
    # screened out; every other one is measured
    ref = smp.ref_q
    for q in (48, 44):
        for a in set(alts[ref]) - alts[q]:
            slow = [st.stat("allreduce", a, ref, m).mean /
                    min(st.stat("allreduce", b, ref, m).mean for b in alts[ref] | {"native"}
                        if st.usable("allreduce", b, ref, m))
                    for m in g.sizes if st.usable("allreduce", a, ref, m)]
            assert slow and min(slow) > SCREEN, \
                f"{a} not measured at {q} ranks: only if {SCREEN} times slower than the best " \
                f"at {ref} ranks at every size measured there ({slow})"
        assert len(alts[q]) >= 3, f"the contenders measured at {q} ranks: {alts[q]}"
    # the job's own sizes count FOCUS_BOOST times in the rounds
    assert smp.focus == {48, 24} and \
        [smp.weight("allreduce", q, 8) for q in (48, 24, 16)] == \
        [FOCUS_BOOST, FOCUS_BOOST / 2, 16 / 48], \
        f"P and P/2 focused, their gains boosted: {sorted(smp.focus)}"
    ch = dec.choices("allreduce", g)
    bases = {(q, m): report.basis(st, dec, "allreduce", q, m, ch[(q, m)]) for q, m in g.cells()}
    alone = [q for q in g.comms if all(bases[(q, m)] == "native alone" for m in g.sizes)]
    assert not alone, f"no communicator size left with native alone: {alone}"
    cost = {}
    for b in st.batches:
        cost[b["q"]] = cost.get(b["q"], 0.0) + b["cost"]
    big = sum(v for q, v in cost.items() if q >= 24) / sum(cost.values())
    assert big >= 0.5, f"most of the budget at P/2 and above: {100 * big:.0f} %"


# ---------------------------------------------------------------- failed runs (issue 62)
SLOTS = ("--------------------------------------------------------------------------\n"
         "There are not enough slots available in the system to satisfy the 4\n"
         "slots that were requested by the application:\n\n  collbench\n\n"
         "Alternatively, you can use the --oversubscribe option to ignore the\n"
         "number of available slots when deciding the number of processes to\n"
         "launch.\n"
         "--------------------------------------------------------------------------\n")


class Failing(Synthetic):
    """Synthetic, whose runs fail as Open MPI does with more ranks than
    slots (before the first case): every run, or those numbered in fail."""
    kind = "real"
    launches_vary = True

    def __init__(self, fail=None, killed=False):
        super().__init__()
        self.fail, self.n, self.killed = fail, 0, killed

    def run_collbench(self, q, args, env=None, timeout=300.0, mem_limit=None):
        self.n += 1
        if self.killed:   # the memory limit, at every run's first case
            return [], target.limits.Outcome(None, "memory: 9.0 GiB resident > limit 1.0 GiB",
                                             0.1, 0.1, 0, "", ["collbench"])
        if self.fail is None or self.n in self.fail:
            return [], target.limits.Outcome(1, "", 0.1, 0.1, 0, SLOTS,
                                             ["mpirun", "-n", "4", "collbench"])
        return super().run_collbench(q, args, env, timeout, mem_limit)


def failing_sampler(fail, killed=False):
    algs = {"allreduce": ["native", "ring", "recursive_doubling"]}
    grids = {"allreduce": grid.Grid("allreduce", [2, 4], [8, 64])}
    st = Store(0.01)
    opts = type("O", (), {"budget": 30.0, "reps": 1, "iters": 3, "warmup": 1,
                          "timeout": 60, "mem_limit": None})
    return Sampler(Failing(fail, killed), grids, algs, st, Decider(st, algs, 0.02, grids, None),
                   opts, stream=open(os.devnull, "w"))


def test_runs_killed_by_a_limit_do_not_stop_it():
    # out of memory at every run's first case: each algorithm's point, not the
    # launch; every point is tried (and presumed to fail beyond), none stops it
    smp = failing_sampler(None, killed=True)
    smp.initial()
    smp.natives()
    smp.guided()
    algs = {a for (_, a, _, _) in smp.store.failed}
    assert len(smp.failures) >= LAUNCH_TRIES and algs == set(smp.algs["allreduce"]) and \
        not smp.store.samples, \
        f"killed runs are points that cannot be measured, not a failing launch: " \
        f"{len(smp.failures)} runs, failed {algs}"


def test_every_run_fails_stops_early():
    smp = failing_sampler(None)
    try:
        smp.initial()
        smp.whole()
        smp.natives()
        smp.guided()
    except NothingMeasured as e:
        assert len(e.args[0]) == LAUNCH_TRIES and len(smp.store.batches) == LAUNCH_TRIES and \
            not smp.store.samples, \
            f"stopped after {LAUNCH_TRIES} runs that failed before their first case " \
            f"({len(smp.store.batches)} runs)"
        assert all(line in e.args[0][0]["report"] for line in SLOTS.splitlines() if line), \
            "the failed run kept with its whole message"
    else:
        raise AssertionError("every run failed and nothing was measured: NothingMeasured")


def test_some_runs_fail_said_with_the_first_message():
    smp = failing_sampler({1, 3})
    smp.initial()
    smp.whole()
    smp.natives()
    smp.guided()
    text = smp.failures_text()
    assert smp.store.samples and len(smp.failures) == 2, \
        f"two runs failed, the others measured: {len(smp.failures)} failed"
    assert text.startswith(f"2 of {len(smp.store.batches)} runs failed;") and \
        "command: mpirun -n 4 collbench" in text and \
        all(line.strip() in text for line in SLOTS.splitlines()), \
        f"the count and the first failed run's whole message:\n{text}"


class BcastFails(Failing):
    """Every bcast run fails before its first case (as Open MPI without
    slots); allreduce's run."""

    def run_collbench(self, q, args, env=None, timeout=300.0, mem_limit=None):
        if args[args.index("--coll") + 1] == "bcast":
            self.n += 1
            return [], target.limits.Outcome(3, "", 0.1, 0.1, 0, "collbench: bcast fails\n",
                                             ["mpirun", "-n", "4", "collbench"])
        return Synthetic.run_collbench(self, q, args, env, timeout, mem_limit)


def test_collective_whose_runs_keep_failing_is_given_up():
    # issue 62: every bcast launch failed in 0.2 s; the tuner launched 42 of
    # them and said "no point at risk: sampling done"
    algs = {"allreduce": ["native", "ring", "recursive_doubling"],
            "bcast": ["native", "binomial", "linear"]}
    grids = {c: grid.Grid(c, [2, 4], [8, 64, 512]) for c in algs}
    st = Store(0.01)
    opts = type("O", (), {"budget": 30.0, "reps": 1, "iters": 3, "warmup": 1,
                          "timeout": 60, "mem_limit": None})
    said = []
    smp = Sampler(BcastFails(set()), grids, algs, st, Decider(st, algs, 0.02, grids, None),
                  opts, stream=open(os.devnull, "w"))
    smp.say = said.append
    smp.initial()
    smp.whole()
    smp.natives()
    smp.guided()
    bcast_runs = [b for b in st.batches if b["coll"] == "bcast"]
    assert len(bcast_runs) == LAUNCH_TRIES and "bcast" in smp.given_up, \
        f"bcast launched {len(bcast_runs)} times, given up after {LAUNCH_TRIES}"
    assert any(k[0] == "allreduce" for k in st.samples), "allreduce measured all the same"
    assert any(x.startswith("bcast: its last 3 runs failed") for x in said) and \
        not any(x.startswith("no point at risk") for x in said) and \
        any("bcast not measured" in x for x in said if x.startswith("sampling done")), \
        f"said, and no 'no point at risk': {said[-3:]}"


def test_smaller_run_when_none_fits():
    # the planned run (3 algorithms, one a variant, at 2 sizes) costs more than
    # is left; its dear size and then the variant left out, it fits and runs
    smp = failing_sampler(set())
    smp.algs = {"allreduce": ["native", "ring", "ring@COLLX_X=1"]}
    smp.budget = 3.0
    dear = {8: 0.2, 64: 5.0}
    smp.cost.case = lambda c, a, q, m: dear[m]
    smp.fits = lambda c, q, algs, sizes: sum(dear[m] for m in sizes) * len(algs) <= 0.5
    ran = []
    smp.batch = lambda c, q, algs, sizes, why: (ran.append((algs, sizes)),
                                                smp.store.batches.append({}))
    plan = (1.0, 1.0, 20.0, 2, ["native", "ring", "ring@COLLX_X=1"], [8, 64], 4)
    assert smp.smaller_run([(plan, "allreduce")], 4) and \
        ran == [(["native", "ring"], [8])], \
        f"the run with its dear size, then its variant, left out: {ran}"
    smp.fits = lambda *a: False
    assert not smp.smaller_run([(plan, "allreduce")], 4), "nothing fits: no run"


def test_size_weight():
    assert [size_weight(q, 144) for q in (144, 72, 18)] == [1.0, 0.5, 0.125], \
        "an expected gain counts q / P without a profile"


if __name__ == "__main__":
    helpers.run_module(globals())
