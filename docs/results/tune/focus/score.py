"""Scores rules files against an exhaustive grid (a tune.json of --grid):
tuned/best per collective at P, at P/2 and at every grid point (geometric
mean and worst), the worst tuned/native and the points more than 2 %
slower than native. Used by replays.sh.

usage: score.py GRID RULES [RULES...]"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "python"))
from collx.tune import rules as rulesmod  # noqa: E402
from collx.tune.store import Store  # noqa: E402


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def text(xs):
    return f"{gm(xs):.3f} {max(xs, default=float('nan')):.2f}"


def score(grid, path):
    st = Store.from_json(grid["measurements"])
    t = {k: sum(v) / len(v) for k, v in st.samples.items()}
    p = grid["p"]
    rules = rulesmod.load(path)
    print(path)
    every = {"P": [], "P/2": [], "all": []}
    slow, worst_native = 0, 1.0
    for c in grid["colls"]:
        labels = grid["algs"][c]
        per = {"P": [], "P/2": [], "all": []}
        for q, m in sorted({(q, m) for (cc, _, q, m) in t if cc == c}):
            a = rulesmod.match(rules, c, q, m, st.ppn.get((c, q), q)) or "native"
            if (c, a, q, m) not in t:   # not in the grid: its algorithm's, else native
                a = a.split("@")[0] if (c, a.split("@")[0], q, m) in t else "native"
            best = min(t[(c, x, q, m)] for x in labels if (c, x, q, m) in t)
            r, rn = t[(c, a, q, m)] / best, t[(c, a, q, m)] / t[(c, "native", q, m)]
            worst_native, slow = max(worst_native, rn), slow + (rn > 1.02)
            per["all"].append(r)
            if q == p:
                per["P"].append(r)
            if q == p // 2:
                per["P/2"].append(r)
        for k in per:
            every[k] += per[k]
        print(f"  {c:22s} " + "  ".join(f"{k}: {text(v)}" for k, v in per.items()))
    print(f"  {'ALL':22s} " + "  ".join(f"{k}: {text(v)}" for k, v in every.items()) +
          f"  tuned/native worst {worst_native:.3f}, >2% slower: {slow}")


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        g = json.load(f)
    for r in sys.argv[2:]:
        score(g, r)
