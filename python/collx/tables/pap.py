"""PAP paper (Proficz 2020) Tables 3-4 from sweep `pap`'s CSV (mean r and e).

Table 3 shape: r(BSLN) - r(LIN) in ms and r(LIN)/r(BSLN), rows = total
vector size (K floats), columns = max delay (ms); Table 4 the same for BSLS
vs LS, each followed by the paper's published cells
(published/proficz_published.csv); then r and e of every algorithm. And
the paper's figures (plots/pap.py) with pap_scaling.md, r per process
count as a table.

    collx tables pap PAP_CSV [-o OUT.md]
    collx plot pap SWEEP_CSV OUTDIR [SCALING_CSV] [--size K] [--delay MS]
"""
import argparse
import os
from collections import defaultdict

from collx import published
from collx.csvio import read_rows, time_rows
from collx.plots import pap as figures
from collx.tables import command

ALGS = {"scatter": ["linear", "binomial", "slin", "sbn", "bsln", "bsbn"],
        "gather": ["linear_sync", "binomial", "sls", "sbn", "bsls", "bsbn"]}
SIZES_K = (128, 256, 512, 1024, 2048)


def size_kfloats(row):
    """The paper's total vector size (K floats) nearest to a row's bytes per
    rank: the sweep rounds N / p down to whole floats."""
    k = int(row["size_bytes"]) // 4 * int(row["p"]) / 1024
    return min(SIZES_K, key=lambda s: abs(s - k))


def delay_ms(row):
    """The maximum delay in whole ms; the "0 ms" column ran with 1 us."""
    d = float(row["max_delay_ms"])
    return 0 if d < 0.5 else int(round(d))


def load(path):
    """(coll, alg, kfloats, delay) -> {metric: mean in ms}; p, platform."""
    rows = time_rows(read_rows(path))
    val = defaultdict(dict)
    for r in rows:
        val[(r["coll"], r["alg"], size_kfloats(r), delay_ms(r))][r["metric"]] = \
            float(r["mean_us"]) / 1e3
    p = int(rows[0]["p"]) if rows else 48
    return val, p, rows[0]["platform"] if rows else "?"


# Table 3 compares BSLN with LIN (scatter), Table 4 BSLS with LS (gather)
COMPARED = {3: ("scatter", "bsln", "linear"), 4: ("gather", "bsls", "linear_sync")}


def compared(val, table):
    """The cells of the paper's table that we measured: (kfloats, delay ms,
    our r(base) / r(new), the paper's), largest delay and size last."""
    coll, new, base = COMPARED[table]
    paper = published.proficz()
    out = []
    for k, d in sorted({(key[2], key[3]) for key in val}, key=lambda kd: (kd[1], kd[0])):
        a = val.get((coll, new, k, d), {}).get("r")
        b = val.get((coll, base, k, d), {}).get("r")
        if a and b and (table, k, d) in paper:
            out.append((k, d, b / a, paper[(table, k, d)][1]))
    return out


def cmp_table(val, paper, title, coll, new, base, table):
    sizes = sorted({key[2] for key in val})
    delays = sorted({key[3] for key in val})
    out = [f"### {title}\n",
           "each cell: r(%s) - r(%s) [ms] / r(%s) / r(%s)\n" % (new, base, base, new),
           "| size (K floats) \\ max delay (ms) | " + " | ".join(map(str, delays)) + " |",
           "|---" * (len(delays) + 1) + "|"]
    for k in sizes:
        cells = []
        for d in delays:
            a = val.get((coll, new, k, d), {}).get("r")
            b = val.get((coll, base, k, d), {}).get("r")
            cells.append("-" if a is None or b is None else f"{a - b:+.1f} / {b / a:.2f}")
        out.append(f"| {k} | " + " | ".join(cells) + " |")
    out += ["\nthe paper (Tryton, real 1 GbE), same cells:\n",
            "| size (K floats) \\ max delay (ms) | " + " | ".join(map(str, delays)) + " |",
            "|---" * (len(delays) + 1) + "|"]
    for k in sizes:
        cells = [paper.get((table, k, d)) for d in delays]
        out.append(f"| {k} | " + " | ".join("-" if c is None else f"{c[0]:+.1f} / {c[1]:.2f}"
                                            for c in cells) + " |")
    return out + [""]


def all_table(val, coll, metric):
    sizes = sorted({key[2] for key in val})
    delays = sorted({key[3] for key in val})
    algs = ALGS[coll]
    out = [f"### {coll}: mean {metric} [ms] per algorithm\n",
           "| size | delay | " + " | ".join(algs) + " |",
           "|---" * (len(algs) + 2) + "|"]
    for k in sizes:
        for d in delays:
            cells = [val.get((coll, a, k, d), {}).get(metric) for a in algs]
            out.append(f"| {k} | {d} | " + " | ".join("-" if c is None else f"{c:.1f}"
                                                       for c in cells) + " |")
    return out + [""]


def tables(path):
    val, p, platform = load(path)
    paper = published.proficz()
    where = "real MPI on this machine" if platform == "real" else "SMPI " + platform
    out = [f"## PAP scatter/gather, {where}, p={p}\n"]
    out += cmp_table(val, paper, "Table 3: BSLN vs LIN (scatter)", "scatter", "bsln", "linear", 3)
    out += cmp_table(val, paper, "Table 4: BSLS vs LS (gather)", "gather", "bsls", "linear_sync", 4)
    for m in ("r", "e"):
        out += all_table(val, "scatter", m)
        out += all_table(val, "gather", m)
    return out


def main(argv):
    command("collx tables pap", "csv", tables, argv)


# ---------------------------------------------------------------- figures

def load_r(path):
    """(coll, alg, p, kfloats, delay) -> mean r in ms."""
    return {(r["coll"], r["alg"], int(r["p"]), size_kfloats(r), delay_ms(r)):
            float(r["mean_us"]) / 1e3 for r in time_rows(read_rows(path), "r")}


def scaling_table(val, size, delay, out):
    """Markdown: mean r [ms] of every algorithm per process count."""
    label = figures.LABEL
    with open(out, "w") as f:
        for coll in ("scatter", "gather"):
            algs = ALGS[coll]
            f.write(f"### {coll}: mean r [ms] vs processes (N={size}K floats, "
                    f"max delay {delay} ms)\n\n| p | " + " | ".join(label[a] for a in algs) +
                    f" | {label[algs[0]]} / {label[algs[4]]} |\n" + "|---" * (len(algs) + 2) + "|\n")
            for p in sorted({k[2] for k in val if k[0] == coll}):
                r = [val.get((coll, a, p, size, delay)) for a in algs]
                cells = ["-" if x is None else f"{x:.1f}" for x in r]
                ratio = f"{r[0] / r[4]:.2f}" if r[0] and r[4] else "-"
                f.write(f"| {p} | " + " | ".join(cells) + f" | {ratio} |\n")
            f.write("\n")
    print("pap_plots:", out)


def plot_main(argv):
    """collx plot pap: the paper's figures from sweep `pap` (and
    `pap-scaling`)."""
    ap = argparse.ArgumentParser(prog="collx plot pap",
                                 description="PAP Figs. 14-17 (pap_delay.png, pap_size.png; "
                                 "with SCALING_CSV pap_scaling.png and pap_scaling.md)")
    ap.add_argument("sweep", metavar="SWEEP_CSV")
    ap.add_argument("outdir", metavar="OUTDIR")
    ap.add_argument("scaling", nargs="?", metavar="SCALING_CSV")
    ap.add_argument("--size", type=int, default=2048, help="K floats (default 2048)")
    ap.add_argument("--delay", type=int, default=50, help="maximum delay, ms (default 50)")
    o = ap.parse_args(argv)
    os.makedirs(o.outdir, exist_ok=True)
    val = load_r(o.sweep)
    p = max(k[2] for k in val)
    figures.figure(val, ALGS, {2: p, 3: o.size}, 4, "maximum delay [ms]",
                   f"p={p}, N={o.size}K floats", os.path.join(o.outdir, "pap_delay.png"),
                   logx=True, logy=True)
    figures.figure(val, ALGS, {2: p, 4: o.delay}, 3, "total vector N [K floats]",
                   f"p={p}, max delay {o.delay} ms", os.path.join(o.outdir, "pap_size.png"),
                   logx=True)
    if o.scaling:
        sval = load_r(o.scaling)
        figures.figure(sval, ALGS, {3: o.size, 4: o.delay}, 2, "processes (nodes)",
                       f"N={o.size}K floats, max delay {o.delay} ms",
                       os.path.join(o.outdir, "pap_scaling.png"))
        scaling_table(sval, o.size, o.delay, os.path.join(o.outdir, "pap_scaling.md"))
