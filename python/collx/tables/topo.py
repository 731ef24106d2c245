"""Tables of the topology-aware allgather (Bhowmik & Bodele 2019, Figs. 2-6
shape): gains of ring and recursive doubling with topology reordering per
placement and node count beside the paper's 12-40 %, absolute times, the
cost of measuring the distances (sweep `topo`: DIR/topo.csv, DIR/cost.csv),
with the figures of plots/topo.py; and the short summary of sweep
`topo-demo`.

    collx plot topo [DIR]        (DIR/tables.md, DIR/allgather_{ring,rd}.png)
    collx tables topo-demo DIR   (DIR/summary.md)
"""
import argparse
import os

from collx import published
from collx.csvio import read_rows, time_rows
from collx.plots import topo as figures
from collx.plotting import pyplot

PLACE = {"block": "block (ranks fill nodes)", "scattered": "scattered (nodes alternate switches)",
         "rr": "round-robin (--map-by node)"}
FAM = {"ring": ("ring", "ring_topo", "ring_topo_hier"),
       "rd": ("recursive_doubling", "rd_topo", "rd_topo_hier")}
SERIES = ["native", "ring", "ring_topo", "ring_topo_hier", "recursive_doubling", "rd_topo",
          "rd_topo_hier"]


def load(d):
    """time[(placement, nodes, series, size)] = run time r (median), us;
    series = the algorithm, _hier for collx's node-level mapping."""
    time = {}
    for r in read_rows(os.path.join(d, "topo.csv")):
        if r["metric"] != "r":
            continue
        series = r["alg"] + ("_hier" if r["map"] == "hier" else "")
        time[(r["placement"], int(r["nodes"]), series, int(r["size_bytes"]))] = float(r["median_us"])
    return time


def gain(time, base, new, pl, n, group):
    """Mean over the sizes of the group of 1 - t_new / t_base, in %."""
    g = [1 - time[(pl, n, new, s)] / time[(pl, n, base, s)] for s in group
         if (pl, n, new, s) in time and (pl, n, base, s) in time]
    return 100 * sum(g) / len(g) if g else None


def fmt(x):
    return "-" if x is None else "%+.0f %%" % x if abs(x) >= 10 else "%+.1f %%" % x


def dims(time):
    placements = [p for p in ("block", "scattered", "rr") if any(k[0] == p for k in time)]
    return placements, sorted({k[1] for k in time}), sorted({k[3] for k in time})


def tables(d, time):
    placements, nodes, sizes = dims(time)
    small = [s for s in sizes if s <= 16384]
    large = [s for s in sizes if s >= 131072]
    out = ["# Topology-aware allgather in SMPI (cse-2switch-30x8)", "",
           "Gain = 1 - t(reordered) / t(same algorithm in rank order), mean over the "
           "sizes of the group (small: 1-16 KB, large: 128-2048 KB per rank); run time r "
           "(max finish - min start), median. Paper (real 2-switch cluster, 4/8/16 nodes): "
           "%d-%d %% faster." % published.BHOWMIK_GAIN_PCT, ""]
    for fam, (base, paper, hier) in FAM.items():
        out += ["## %s" % ("Ring" if fam == "ring" else "Recursive doubling"), "",
                "| placement | nodes | p | small: paper map | small: hier map | "
                "large: paper map | large: hier map | worst size: paper / hier | "
                "large: vs native (best map) |",
                "|---|---|---|---|---|---|---|---|---|"]
        for pl in placements:
            for n in nodes:
                best = []
                for s in large:
                    cand = [time.get((pl, n, a, s)) for a in (paper, hier)]
                    cand = [c for c in cand if c]
                    nat = time.get((pl, n, "native", s))
                    if cand and nat:
                        best.append(1 - min(cand) / nat)
                vsn = 100 * sum(best) / len(best) if best else None
                worst = [min((gain(time, base, a, pl, n, [s]) for s in sizes
                              if gain(time, base, a, pl, n, [s]) is not None), default=None)
                         for a in (paper, hier)]
                out.append("| %s | %d | %d | %s | %s | %s | %s | %s / %s | %s |" % (
                    pl, n, 8 * n, fmt(gain(time, base, paper, pl, n, small)),
                    fmt(gain(time, base, hier, pl, n, small)), fmt(gain(time, base, paper, pl, n, large)),
                    fmt(gain(time, base, hier, pl, n, large)), fmt(worst[0]), fmt(worst[1]), fmt(vsn)))
        out.append("")

    out += ["## Times (ms, run time r)", ""]
    for pl in placements:
        for n in nodes:
            out += ["### %s, %d nodes (p=%d)" % (pl, n, 8 * n), "",
                    "| size | " + " | ".join(SERIES) + " |", "|---" * (len(SERIES) + 1) + "|"]
            for s in sizes:
                if not any((pl, n, a, s) in time for a in SERIES):
                    continue
                cells = ["%.2f" % (time[(pl, n, a, s)] / 1e3) if (pl, n, a, s) in time else "-"
                         for a in SERIES]
                out.append("| %d KB | %s |" % (s // 1024, " | ".join(cells)))
            out.append("")

    cost_path = os.path.join(d, "cost.csv")
    if os.path.exists(cost_path):
        out += ["## Cost of measuring the distances (once per communicator)", "",
                "| placement | nodes | p | node pairs | measuring (s) | one native allgather of 2 MB/rank (s) | ratio |",
                "|---|---|---|---|---|---|---|"]
        for r in read_rows(cost_path):
            out.append("| %s | %s | %s | %s | %.3f | %.3f | %.3f |" % (
                r["placement"], r["nodes"], r["p"], r["pairs"], float(r["measure_s"]),
                float(r["allgather_s"]), float(r["ratio"])))
        out.append("")
    return out


DEMO_PLACEMENTS = ("block", "scattered", "rr8")
DEMO_SIZES = (4096, 262144)


def demo_gains(d):
    """Sweep `topo-demo` (DIR/<placement>-<size>.csv): rows (placement,
    bytes, times in ms per algorithm, ring gain %, recursive-doubling gain
    %), gain = 1 - reordered / rank order; the cases a smaller run left out
    are missing."""
    rows = []
    for pl in DEMO_PLACEMENTS:
        for m in DEMO_SIZES:
            path = os.path.join(d, f"{pl}-{m}.csv")
            if not os.path.exists(path):
                continue
            t = {r["alg"]: float(r["median_us"]) / 1000 for r in time_rows(read_rows(path), "r")}
            if not {"ring", "ring_topo", "recursive_doubling", "rd_topo"} <= set(t):
                continue   # a failed run
            rows.append((pl, m, t, 100 * (1 - t["ring_topo"] / t["ring"]),
                         100 * (1 - t["rd_topo"] / t["recursive_doubling"])))
    return rows


def demo_summary(d):
    """Sweep `topo-demo`: the gains table and the cost of measuring."""
    out = ["# Topology-aware allgather, SMPI cse-2switch-30x8, 8 nodes x 8 ranks", "",
           "Run time r (ms); gain = 1 - reordered / rank order.", "",
           "| placement | size | ring | ring_topo | gain | rd | rd_topo | gain |",
           "|---|---|---|---|---|---|---|---|"]
    for pl, m, t, ring, rd in demo_gains(d):
        out.append("| %s | %d KB | %.2f | %.2f | %+.0f %% | %.2f | %.2f | %+.0f %% |" % (
            pl, m / 1024, t["ring"], t["ring_topo"], ring, t["recursive_doubling"], t["rd_topo"], rd))
    out.append("")
    if not os.path.exists(os.path.join(d, "cost.csv")):   # its run failed
        return out
    c = read_rows(os.path.join(d, "cost.csv"))[0]
    out.append("Measuring the distances: %d node pairs, %.3f s simulated = %.3f of one native "
               "allgather of 2 MB per rank (%.3f s)." % (int(c["pairs"]), float(c["measure_s"]),
                                                           float(c["ratio"]), float(c["allgather_s"])))
    return out


def main(argv):
    """collx tables topo-demo DIR."""
    ap = argparse.ArgumentParser(prog="collx tables topo-demo",
                                 description="DIR/summary.md of sweep topo-demo")
    ap.add_argument("dir", metavar="DIR")
    d = ap.parse_args(argv).dir
    text = "\n".join(demo_summary(d)) + "\n"
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write(text)
    print(text, end="")


def plot_main(argv):
    """collx plot topo [DIR]: the tables and figures of sweep `topo`."""
    ap = argparse.ArgumentParser(prog="collx plot topo", description="DIR/tables.md and "
                                 "DIR/allgather_{ring,rd}.png of sweep topo (DIR/topo.csv, "
                                 "DIR/cost.csv)")
    ap.add_argument("dir", nargs="?", default="docs/results/topo", metavar="DIR",
                    help="default docs/results/topo")
    d = ap.parse_args(argv).dir
    time = load(d)
    with open(os.path.join(d, "tables.md"), "w") as f:
        f.write("\n".join(tables(d, time)) + "\n")
    print("wrote", os.path.join(d, "tables.md"))
    try:
        plt = pyplot()
    except ImportError:
        print("no matplotlib: tables only")
        return
    for fam, algs in FAM.items():
        figures.figure(plt, time, dims(time), fam, algs,
                       os.path.join(d, "allgather_%s.png" % fam))
