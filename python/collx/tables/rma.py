"""Tables of the one-sided broadcast sweeps (CSV columns platform,p,m,alg,
min,median,mean,max in us; sweeps `rma`, `rma-real`, `rma-demo`): mean time
per (p, m), the crossover of rma_binomial over rma_linear, rma_binomial over
two-sided binomial and native, and a LogGP fit of rma_binomial. rma_*_put
rows (if any): the paper's PutRequest for every size (COLLX_RMA_LL_MAX=0).
With the plots of plots/rma.py:

    collx plot rma CSV OUTDIR   (OUTDIR/tables.md, OUTDIR/<platform>.png)
"""
import argparse
import math
import os
from collections import defaultdict

import numpy as np

from collx import published
from collx.csvio import read_rows
from collx.plots import rma as figures

ALGS = ["rma_linear", "rma_binomial", "binomial", "native", "rma_binomial_put"]
UNIT = {"ib-6x8": (1 << 20, "MiB"), "gige-18x8": (1 << 10, "KiB")}


def load(path):
    """(platform, alg) -> {(p, m): mean us}."""
    data = defaultdict(dict)
    for r in read_rows(path):
        data[(r["platform"], r["alg"])][(int(r["p"]), int(r["m"]))] = float(r["mean"])
    return data


def platforms(data):
    return sorted({plat for plat, _ in data})


def grid(data, plat):
    """The process counts and sizes measured on a platform."""
    ps = sorted({p for (a_plat, a), d in data.items() if a_plat == plat for p, _ in d})
    ms = sorted({m for (a_plat, a), d in data.items() if a_plat == plat for _, m in d})
    return ps, ms


def platform_tables(data, plat):
    ps, ms = grid(data, plat)
    div, uname = UNIT.get(plat, (1, "B"))
    md = [f"\n### {plat}: mean time (us), rma_binomial / rma_linear / binomial / native\n",
          "| p \\ m (" + uname + ") | " + " | ".join(str(m // div) for m in ms) + " |",
          "|---" * (len(ms) + 1) + "|"]
    for p in ps:
        cells = []
        for m in ms:
            v = [data.get((plat, a), {}).get((p, m)) for a in ALGS]
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
    return md


def loggp_fit(data, plat):
    """LogGP (paper, sec. 2): t = (o + (m-1)G + 2q + L + O_r) log2 P + o + L,
    i.e. t = S (A + m G) + B with S = ceil(log2 P) stages. A, G, B are fitted
    by least squares on rma_binomial at the two smallest p of the platform
    and the model predicts every other point (models/rma.py predicts from
    measured parameters instead)."""
    d = data.get((plat, "rma_binomial"), {})
    ps = sorted({p for p, _ in d})
    fit = [(p, m, t) for (p, m), t in d.items() if p in ps[:2]]
    if len(fit) < 3:
        return []
    X = np.array([[math.ceil(math.log2(p)), math.ceil(math.log2(p)) * m, 1.0] for p, m, _ in fit])
    y = np.array([t for _, _, t in fit])
    (A, G, B), *_ = np.linalg.lstsq(X, y, rcond=None)
    md = [f"\n### {plat}: LogGP fit on p = {ps[:2]}: per stage {A:.1f} us + m x {G * 1e3:.4f} ns/B, "
          f"constant {B:.1f} us (1/G = {1 / G / 1e3 if G > 0 else float('nan'):.2f} GB/s)\n",
          "| p | m | measured (us) | LogGP (us) | error |",
          "|---|---|---|---|---|"]
    for (p, m), t in sorted(d.items()):
        pred = math.ceil(math.log2(p)) * (A + m * G) + B
        md.append(f"| {p} | {m} | {t:.0f} | {pred:.0f} | {100 * (pred - t) / t:+.0f} % |")
    return md


def size_text(m):
    return f"{m / (1 << 20):g} MiB" if m >= 1 << 20 else f"{m / 1024:g} KiB" if m >= 1024 else f"{m} B"


def ratios(data, plat, p, m):
    """rma_binomial over rma_linear, two-sided binomial and native at one
    point (None where one of them was not measured)."""
    t = {a: data.get((plat, a), {}).get((p, m)) for a in ("rma_binomial", "rma_linear", "binomial", "native")}
    rb = t["rma_binomial"]
    return {a: (rb / t[a] if rb and t[a] else None) for a in ("rma_linear", "binomial", "native")}


def paper_verdict(plat, p, m):
    """Which one-sided broadcast the paper found faster at (p, m): 'binomial',
    'linear', or None where its crossovers do not tell. The paper says the
    binomial one's advantage grows with p and m, so a crossover at (p0, m0)
    also holds for every larger p and m; returns the crossover row that
    decided."""
    for r in (r for r in published.paznikov() if r["platform"] == plat):
        if r["vary"] == "m" and p >= r["p"] and m >= r["m_bytes"]:
            return "binomial", r
        if r["vary"] == "p" and m >= r["m_bytes"] and p >= r["p"]:
            return "binomial", r
    for r in (r for r in published.paznikov() if r["platform"] == plat):
        if r["vary"] == "m" and p <= r["p"] and m < r["m_bytes"]:
            return "linear", r
        if r["vary"] == "p" and m <= r["m_bytes"] and p < r["p"]:
            return "linear", r
    return None, None


def crossover_text(r):
    """A paper's crossover row in words."""
    if r["vary"] == "m":
        return f"p = {r['p']}: binomial ahead from m = {size_text(r['m_bytes'])} (Fig. {r['fig']})"
    return f"m = {size_text(r['m_bytes'])}: binomial ahead from p = {r['p']} (Fig. {r['fig']})"


def paper_crossovers(plat):
    """The paper's crossovers on the platform it ran on, as list lines."""
    rows = [r for r in published.paznikov() if r["platform"] == plat]
    if not rows:
        return []
    return ([f"\nThe paper's crossovers on this cluster (rma_binomial faster than rma_linear):\n"]
            + [f"- {crossover_text(r)}" for r in rows])


def tables(data):
    md = []
    for plat in platforms(data):
        md += platform_tables(data, plat)
    for plat in platforms(data):
        md += loggp_fit(data, plat)
    return md


def plot_main(argv):
    """collx plot rma: a figure per platform and the tables beside them."""
    ap = argparse.ArgumentParser(prog="collx plot rma", description="OUTDIR/<platform>.png "
                                 "and OUTDIR/tables.md of the one-sided broadcast sweeps")
    ap.add_argument("csv", metavar="CSV")
    ap.add_argument("outdir", metavar="OUTDIR")
    o = ap.parse_args(argv)
    data = load(o.csv)
    for plat in platforms(data):
        ps, ms = grid(data, plat)
        figures.figure(data, plat, ps, ms, UNIT.get(plat, (1, "B")), ALGS,
                       os.path.join(o.outdir, f"{plat}.png"))
    md = tables(data)
    with open(os.path.join(o.outdir, "tables.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
