#!/usr/bin/python3
"""sampler.py: the budget split between grids measured whole and those
left to the guided rounds, and native measured everywhere before them.
From tests/tune/test_tune_units.py's section budget split.

    test_sampler.py [REPO_ROOT]"""
import math
import os

import helpers
from collx.tune import grid, target
from collx.tune.decide import Decider
from collx.tune.sampler import Sampler
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
    got, spent = split_run(20.0, {"allreduce": lambda q: 0.001 if q <= 4 else 0.1,
                                  "bcast": 0.3})
    assert got["allreduce"][0] < got["allreduce"][1] < got["allreduce"][2] and \
        spent <= 20.0 + 2, \
        f"budget split: a grid that turns dear past the sizes measured stops being measured " \
        f"whole once a run no longer fits its share; the rest is sampled ({got}, spent " \
        f"{spent:.1f} of 20 s)"


def test_native_everywhere_before_rounds():
    st, grids = split_run(40.0, {"allreduce": 0.2, "bcast": 0.3}, natives=True)
    missing = [(c, q, m) for c, g in grids.items() for q, m in g.cells()
               if not st.usable(c, "native", q, m)]
    others = {k[1] for k in st.samples if k[1] != "native"}
    assert not missing and others, \
        f"native measured at every grid point after the initial " \
        f"design, before the rounds (missing: {missing})"


if __name__ == "__main__":
    helpers.run_module(globals())
