#!/usr/bin/python3
"""PAP paper Tables 3-4 from bench/pap_sweep.sh's CSV (mean r and e).

Table 3 shape: r(BSLN) - r(LIN) in ms and r(LIN)/r(BSLN), rows = total
vector size (K floats), columns = max delay (ms); Table 4 the same for BSLS
vs LS, each followed by the paper's published cells
(python/proficz_published.csv); then r and e of every algorithm."""
import csv
import os
import sys
from collections import defaultdict

PUBLISHED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "python", "proficz_published.csv")
paper = {}   # (table, kfloats, delay) -> (diff ms, ratio)
with open(PUBLISHED) as f:
    for r in csv.DictReader(line for line in f if not line.startswith("#")):
        paper[(int(r["table"]), int(r["size_kfloats"]), int(r["max_delay_ms"]))] = (
            float(r["diff_ms"]), float(r["ratio"]))

rows = list(csv.DictReader(open(sys.argv[1])))
NP = int(rows[0]["p"]) if rows else 48
PLATFORM = rows[0]["platform"] if rows else "?"
val = defaultdict(dict)   # (coll, alg, kfloats, delay) -> {metric: mean us}
for r in rows:
    if r["kind"] != "time":
        continue
    k = round(int(r["size_bytes"]) // 4 * NP / 1024)
    k = min((128, 256, 512, 1024, 2048), key=lambda s: abs(s - k))
    d = float(r["max_delay_ms"])
    d = 0 if d < 0.5 else int(round(d))
    val[(r["coll"], r["alg"], k, d)][r["metric"]] = float(r["mean_us"]) / 1e3

sizes = sorted({key[2] for key in val})
delays = sorted({key[3] for key in val})


def cmp_table(title, coll, new, base, table):
    print(f"### {title}\n")
    print("each cell: r(%s) - r(%s) [ms] / r(%s) / r(%s)\n" % (new, base, base, new))
    print("| size (K floats) \\ max delay (ms) | " + " | ".join(map(str, delays)) + " |")
    print("|---" * (len(delays) + 1) + "|")
    for k in sizes:
        cells = []
        for d in delays:
            a = val.get((coll, new, k, d), {}).get("r")
            b = val.get((coll, base, k, d), {}).get("r")
            cells.append("-" if a is None or b is None else f"{a - b:+.1f} / {b / a:.2f}")
        print(f"| {k} | " + " | ".join(cells) + " |")
    print("\nthe paper (Tryton, real 1 GbE), same cells:\n")
    print("| size (K floats) \\ max delay (ms) | " + " | ".join(map(str, delays)) + " |")
    print("|---" * (len(delays) + 1) + "|")
    for k in sizes:
        cells = [paper.get((table, k, d)) for d in delays]
        print(f"| {k} | " + " | ".join("-" if c is None else f"{c[0]:+.1f} / {c[1]:.2f}"
                                       for c in cells) + " |")
    print()


def all_table(coll, algs, metric):
    print(f"### {coll}: mean {metric} [ms] per algorithm\n")
    print("| size | delay | " + " | ".join(algs) + " |")
    print("|---" * (len(algs) + 2) + "|")
    for k in sizes:
        for d in delays:
            cells = [val.get((coll, a, k, d), {}).get(metric) for a in algs]
            print(f"| {k} | {d} | " + " | ".join("-" if c is None else f"{c:.1f}" for c in cells) + " |")
    print()


where = "real MPI on this machine" if PLATFORM == "real" else "SMPI " + PLATFORM
print(f"## PAP scatter/gather, {where}, p={NP}\n")
cmp_table("Table 3: BSLN vs LIN (scatter)", "scatter", "bsln", "linear", 3)
cmp_table("Table 4: BSLS vs LS (gather)", "gather", "bsls", "linear_sync", 4)
sc = ["linear", "binomial", "slin", "sbn", "bsln", "bsbn"]
ga = ["linear_sync", "binomial", "sls", "sbn", "bsls", "bsbn"]
for m in ("r", "e"):
    all_table("scatter", sc, m)
    all_table("gather", ga, m)
