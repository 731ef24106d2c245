#!/usr/bin/python3
"""mpivalidate.py: the MPI's default vs its tuned choice vs collx's, with
Welch's interval across launches and a paired one within them, and the
per-collective summary (geometric means, points slower beyond noise).

    test_mpivalidate.py [REPO_ROOT]"""
import math

import helpers
from collx.tune import mpivalidate as mv


def test_welch():
    r, lo, hi = mv.welch([math.log(0.5)] * 2 + [math.log(0.52)], [0.0, 0.01, -0.01])
    assert 0.49 < r < 0.52 and hi < 1, f"twice as fast, beyond the noise: {r} [{lo}, {hi}]"
    assert mv.welch([0.0], [0.0, 0.1]) is None, "one launch: no interval"


def test_row_and_summary():
    o = {"default": [0.0, 0.02, -0.02], "tuned": [-0.7, -0.69, -0.71],
         "collx": [0.3, 0.31, 0.29], "paired": [1.0, 1.0, 1.0],
         "us": {"default": [2.0] * 3, "tuned": [1.0] * 3, "collx": [2.7] * 3}, "ran": {"x"}}
    row = mv.row_of("allreduce", 2, 12, o, [], 2)
    s = mv.summary([row])[0]
    assert row["collx_rule"] == "native" and row["mpi_tuned_us"] == "1.000", row
    assert s["tuned_slower"] == 0 and s["collx_slower"] == 1 and \
        s["collx_slower_tuned"] == 1 and s["tuned_default"] < 0.51, \
        f"collx slower than both beyond the noise, the tuned MPI not: {s}"


def test_smpi_exact():
    o = {"default": [math.log(10.0)], "tuned": [math.log(8.0)], "collx": [math.log(10.04)],
         "paired": [math.log(10.04 / 8.0)],
         "us": {"default": [10.0], "tuned": [8.0], "collx": [10.04]}, "ran": {"hier"}}
    row = mv.row_of("bcast", 64, 3072, o, [], 16, tol=0.005)
    s = mv.summary([row])[0]
    assert row["tuned_over_default"] == "0.800" and row["collx_over_default"] == "1.004", \
        f"SMPI: one simulation each, exact ratios: {row}"
    assert s["tuned_slower"] == 0 and s["collx_slower"] == 0 and s["collx_slower_tuned"] == 1, \
        f"0.4 % slower is within SMPI's floor, 25 % is not: {s}"


if __name__ == "__main__":
    helpers.run_module(globals())
