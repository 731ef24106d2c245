#!/usr/bin/env python3
"""Figures and tables of bench/topo_sweep.sh (Bhowmik & Bodele 2019, Figs. 2-6
shape): allgather time vs message size, ring and recursive doubling with and
without topology reordering, per placement and node count; gains beside the
paper's 12-40 %; the cost of measuring the distances.
    bench/topo_plots.py [DIR]   (DIR/topo.csv, DIR/cost.csv -> DIR/*.png, DIR/tables.md)"""
import csv
import os
import sys
from collections import defaultdict

DIR = sys.argv[1] if len(sys.argv) > 1 else "docs/results/topo"
rows = list(csv.DictReader(open(os.path.join(DIR, "topo.csv"))))
# time[(placement, nodes, series, size)] = run time r (median), us
time = {}
for r in rows:
    if r["metric"] != "r":
        continue
    alg = r["alg"]
    series = alg + ("_hier" if r["map"] == "hier" else "")
    time[(r["placement"], int(r["nodes"]), series, int(r["size_bytes"]))] = float(r["median_us"])
placements = [p for p in ("block", "scattered", "rr") if any(k[0] == p for k in time)]
nodes = sorted({k[1] for k in time})
sizes = sorted({k[3] for k in time})
SMALL = [s for s in sizes if s <= 16384]
LARGE = [s for s in sizes if s >= 131072]
PLACE = {"block": "block (ranks fill nodes)", "scattered": "scattered (nodes alternate switches)",
         "rr": "round-robin (--map-by node)"}
FAM = {"ring": ("ring", "ring_topo", "ring_topo_hier"),
       "rd": ("recursive_doubling", "rd_topo", "rd_topo_hier")}


def gain(base, new, pl, n, group):
    """Mean over the sizes of the group of 1 - t_new / t_base, in %."""
    g = [1 - time[(pl, n, new, s)] / time[(pl, n, base, s)] for s in group
         if (pl, n, new, s) in time and (pl, n, base, s) in time]
    return 100 * sum(g) / len(g) if g else None


def fmt(x):
    return "-" if x is None else "%+.0f %%" % x if abs(x) >= 10 else "%+.1f %%" % x


out = ["# Topology-aware allgather in SMPI (cse-2switch-30x8)", "",
       "Gain = 1 - t(reordered) / t(same algorithm in rank order), mean over the "
       "sizes of the group (small: 1-16 KB, large: 128-2048 KB per rank); run time r "
       "(max finish - min start), median. Paper (real 2-switch cluster, 4/8/16 nodes): "
       "12-40 % faster.", ""]
for fam, (base, paper, hier) in FAM.items():
    out += ["## %s" % ("Ring" if fam == "ring" else "Recursive doubling"), "",
            "| placement | nodes | p | small: paper map | small: hier map | "
            "large: paper map | large: hier map | worst size: paper / hier | "
            "large: vs native (best map) |",
            "|---|---|---|---|---|---|---|---|---|"]
    for pl in placements:
        for n in nodes:
            best = []
            for s in LARGE:
                cand = [time.get((pl, n, a, s)) for a in (paper, hier)]
                cand = [c for c in cand if c]
                nat = time.get((pl, n, "native", s))
                if cand and nat:
                    best.append(1 - min(cand) / nat)
            vsn = 100 * sum(best) / len(best) if best else None
            worst = [min((gain(base, a, pl, n, [s]) for s in sizes
                          if gain(base, a, pl, n, [s]) is not None), default=None)
                     for a in (paper, hier)]
            out.append("| %s | %d | %d | %s | %s | %s | %s | %s / %s | %s |" % (
                pl, n, 8 * n, fmt(gain(base, paper, pl, n, SMALL)),
                fmt(gain(base, hier, pl, n, SMALL)), fmt(gain(base, paper, pl, n, LARGE)),
                fmt(gain(base, hier, pl, n, LARGE)), fmt(worst[0]), fmt(worst[1]), fmt(vsn)))
    out.append("")

# absolute times, ms
out += ["## Times (ms, run time r)", ""]
series = ["native", "ring", "ring_topo", "ring_topo_hier", "recursive_doubling", "rd_topo",
          "rd_topo_hier"]
for pl in placements:
    for n in nodes:
        out += ["### %s, %d nodes (p=%d)" % (pl, n, 8 * n), "",
                "| size | " + " | ".join(series) + " |", "|---" * (len(series) + 1) + "|"]
        for s in sizes:
            if not any((pl, n, a, s) in time for a in series):
                continue
            cells = ["%.2f" % (time[(pl, n, a, s)] / 1e3) if (pl, n, a, s) in time else "-"
                     for a in series]
            out.append("| %d KB | %s |" % (s // 1024, " | ".join(cells)))
        out.append("")

cost_path = os.path.join(DIR, "cost.csv")
if os.path.exists(cost_path):
    out += ["## Cost of measuring the distances (once per communicator)", "",
            "| placement | nodes | p | node pairs | measuring (s) | one native allgather of 2 MB/rank (s) | ratio |",
            "|---|---|---|---|---|---|---|"]
    for r in csv.DictReader(open(cost_path)):
        out.append("| %s | %s | %s | %s | %.3f | %.3f | %.3f |" % (
            r["placement"], r["nodes"], r["p"], r["pairs"], float(r["measure_s"]),
            float(r["allgather_s"]), float(r["ratio"])))
    out.append("")
open(os.path.join(DIR, "tables.md"), "w").write("\n".join(out) + "\n")
print("wrote", os.path.join(DIR, "tables.md"))

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("no matplotlib: tables only")
    sys.exit(0)
STYLE = {"native": ("k", ":", "native"), "ring": ("C0", "-", "ring (rank order)"),
         "ring_topo": ("C1", "-", "ring_topo (paper map)"),
         "ring_topo_hier": ("C2", "--", "ring_topo (hier map)"),
         "recursive_doubling": ("C0", "-", "rd (rank order)"),
         "rd_topo": ("C1", "-", "rd_topo (paper map)"),
         "rd_topo_hier": ("C2", "--", "rd_topo (hier map)")}
for fam, algs in FAM.items():
    fig, axes = plt.subplots(len(placements), len(nodes), figsize=(4 * len(nodes),
                             3.2 * len(placements)), squeeze=False)
    for i, pl in enumerate(placements):
        for j, n in enumerate(nodes):
            ax = axes[i][j]
            for a in ("native",) + algs:
                xs = [s for s in sizes if (pl, n, a, s) in time]
                if xs:
                    c, ls, lab = STYLE[a]
                    ax.plot([x / 1024 for x in xs], [time[(pl, n, a, x)] / 1e3 for x in xs],
                            color=c, ls=ls, marker="o", ms=3, label=lab)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title("%s, %d nodes (p=%d)" % (pl, n, 8 * n), fontsize=9)
            ax.set_xlabel("message size per rank (KB)", fontsize=8)
            ax.set_ylabel("time (ms)", fontsize=8)
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Allgather, %s, cse-2switch-30x8 (SMPI): message size vs time" %
                 ("ring" if fam == "ring" else "recursive doubling"))
    fig.tight_layout()
    path = os.path.join(DIR, "allgather_%s.png" % fam)
    fig.savefig(path, dpi=90)
    print("wrote", path)
