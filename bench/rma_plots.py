#!/usr/bin/env python3
"""Plots and tables of bench/rma_sweep.sh's CSV (docs/results/rma/sweep.csv):
time vs m at the largest p, time vs p at the largest m, per platform, and the
crossover of rma_binomial over rma_linear, rma_binomial over two-sided
binomial and native. rma_*_put rows (if any): the paper's PutRequest for
every size (COLLX_RMA_LL_MAX=0). usage: rma_plots.py CSV OUTDIR"""
import csv, sys, os
from collections import defaultdict
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
out = sys.argv[2]
data = defaultdict(dict)   # (platform, alg) -> {(p, m): mean}
for r in rows:
    data[(r["platform"], r["alg"])][(int(r["p"]), int(r["m"]))] = float(r["mean"])
platforms = sorted({r["platform"] for r in rows})
algs = ["rma_linear", "rma_binomial", "binomial", "native", "rma_binomial_put"]
unit = {"ib-6x8": (1 << 20, "MiB"), "gige-18x8": (1 << 10, "KiB")}
md = []
for plat in platforms:
    ps = sorted({p for (a_plat, a), d in data.items() if a_plat == plat for p, _ in d})
    ms = sorted({m for (a_plat, a), d in data.items() if a_plat == plat for _, m in d})
    div, uname = unit.get(plat, (1, "B"))
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    for a in algs:
        d = data.get((plat, a), {})
        if not d:
            continue
        style = "o--" if a.endswith("_put") else "o-"
        ax[0].plot([m / div for m in ms if (ps[-1], m) in d],
                   [d[(ps[-1], m)] / 1000 for m in ms if (ps[-1], m) in d], style, label=a)
        ax[1].plot([p for p in ps if (p, ms[-1]) in d],
                   [d[(p, ms[-1])] / 1000 for p in ps if (p, ms[-1]) in d], style, label=a)
    ax[0].set(xlabel=f"m ({uname})", ylabel="mean time (ms)", title=f"{plat}, p={ps[-1]}")
    ax[1].set(xlabel="p", ylabel="mean time (ms)", title=f"{plat}, m={ms[-1] // div} {uname}")
    for a_ in ax:
        a_.grid(alpha=.3)
        a_.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, f"{plat}.png"), dpi=90)
    md.append(f"\n### {plat}: mean time (us), rma_binomial / rma_linear / binomial / native\n")
    md.append("| p \\ m (" + uname + ") | " + " | ".join(str(m // div) for m in ms) + " |")
    md.append("|---" * (len(ms) + 1) + "|")
    for p in ps:
        cells = []
        for m in ms:
            v = [data.get((plat, a), {}).get((p, m)) for a in algs]
            cells.append(" / ".join("-" if x is None else f"{x:.0f}" for x in
                                    (v[1], v[0], v[2], v[3])))
        md.append(f"| {p} | " + " | ".join(cells) + " |")
    md.append(f"\n{plat}: smallest p where rma_binomial < rma_linear, per m:\n")
    for m in ms:
        lin, bin_ = data.get((plat, "rma_linear"), {}), data.get((plat, "rma_binomial"), {})
        first = next((p for p in ps if (p, m) in lin and (p, m) in bin_
                      and bin_[(p, m)] < lin[(p, m)]), None)
        md.append(f"- m = {m // div} {uname}: " + (f"p >= {first}" if first else "never in the range"))
    md.append(f"\n{plat}: rma_binomial / two-sided binomial, rma_binomial / native "
              f"(target <= 1.25){'; in brackets the paper protocol (rma_binomial_put) / binomial' if data.get((plat, 'rma_binomial_put')) else ''}\n")
    md.append("| p \\ m (" + uname + ") | " + " | ".join(str(m // div) for m in ms) + " |")
    md.append("|---" * (len(ms) + 1) + "|")
    for p in ps:
        cells = []
        for m in ms:
            rb, b, n = (data.get((plat, a), {}).get((p, m)) for a in ("rma_binomial", "binomial", "native"))
            put = data.get((plat, "rma_binomial_put"), {}).get((p, m))
            c = "-" if None in (rb, b, n) else f"{rb / b:.2f} / {rb / n:.2f}"
            if put is not None and b:
                c += f" ({put / b:.2f})"
            cells.append(c)
        md.append(f"| {p} | " + " | ".join(cells) + " |")
# LogGP (paper, sec. 2): t = (o + (m-1)G + 2q + L + O_r) log2 P + o + L, i.e.
# t = S (A + m G) + B with S = ceil(log2 P) stages. A, G, B are fitted by
# least squares on rma_binomial at the two smallest p of each platform and
# the model predicts every other point (not fitted from ping-pong: see
# README, "what is left").
import math
import numpy as np
for plat in platforms:
    d = data.get((plat, "rma_binomial"), {})
    ps = sorted({p for p, _ in d})
    fit = [(p, m, t) for (p, m), t in d.items() if p in ps[:2]]
    if len(fit) < 3:
        continue
    X = np.array([[math.ceil(math.log2(p)), math.ceil(math.log2(p)) * m, 1.0] for p, m, _ in fit])
    y = np.array([t for _, _, t in fit])
    (A, G, B), *_ = np.linalg.lstsq(X, y, rcond=None)
    md.append(f"\n### {plat}: LogGP fit on p = {ps[:2]}: per stage {A:.1f} us + m x {G * 1e3:.4f} ns/B, "
              f"constant {B:.1f} us (1/G = {1 / G / 1e3 if G > 0 else float('nan'):.2f} GB/s)\n")
    md.append("| p | m | measured (us) | LogGP (us) | error |")
    md.append("|---|---|---|---|---|")
    for (p, m), t in sorted(d.items()):
        pred = math.ceil(math.log2(p)) * (A + m * G) + B
        md.append(f"| {p} | {m} | {t:.0f} | {pred:.0f} | {100 * (pred - t) / t:+.0f} % |")
open(os.path.join(out, "tables.md"), "w").write("\n".join(md) + "\n")
print("\n".join(md))
