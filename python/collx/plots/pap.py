"""Figures of the PAP paper (Proficz 2020) from collbench CSV:
  pap_delay.png    Figs. 14-15: mean run time r vs maximum delay (one size)
  pap_size.png     Fig. 16: r vs total vector size (one maximum delay)
  pap_scaling.png  Fig. 17: r vs number of processes (sweep `pap-scaling`),
                   and pap_scaling.md, the same as a table

    python3 -m collx plots pap SWEEP_CSV OUTDIR [SCALING_CSV] [--size K] [--delay MS]
"""
import argparse
import os
from collections import defaultdict

from collx.csvio import read_rows, time_rows
from collx.plotting import pyplot
from collx.tables.pap import ALGS, delay_ms, size_kfloats

LABEL = {"linear": "LIN", "linear_sync": "LS", "binomial": "BNOM", "slin": "SLIN",
         "sls": "SLS", "sbn": "SBN", "bsln": "BSLN", "bsls": "BSLS", "bsbn": "BSBN"}


def load(path):
    """(coll, alg, p, kfloats, delay) -> mean r in ms."""
    return {(r["coll"], r["alg"], int(r["p"]), size_kfloats(r), delay_ms(r)):
            float(r["mean_us"]) / 1e3 for r in time_rows(read_rows(path), "r")}


def series(val, coll, alg, fixed, axis):
    """Points (x, r) of one algorithm along axis 2 (p), 3 (size) or 4 (delay)."""
    pts = defaultdict(float)
    for key, v in val.items():
        if key[0] == coll and key[1] == alg and all(key[i] == fixed[i] for i in fixed):
            pts[key[axis]] = v
    return sorted(pts.items())


def figure(val, fixed, axis, xlabel, title, out, logx=False, logy=False):
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, coll in zip(axes, ("scatter", "gather")):
        for alg in ALGS[coll]:
            pts = series(val, coll, alg, fixed, axis)
            if not pts:
                continue
            xs = [x for x, _ in pts]
            ax.plot(range(len(xs)) if logx else xs, [y for _, y in pts], marker="o",
                    label=LABEL[alg], linestyle="--" if alg.startswith("b") and alg != "binomial" else "-")
            if logx:
                ax.set_xticks(range(len(xs)), [str(x) for x in xs])
        ax.set_title(f"{coll}: {title}")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("mean run time r [ms]" + (" (log)" if logy else ""))
        if logy:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    print("pap_plots:", out)


def scaling_table(val, size, delay, out):
    """Markdown: mean r [ms] of every algorithm per process count."""
    with open(out, "w") as f:
        for coll in ("scatter", "gather"):
            algs = ALGS[coll]
            f.write(f"### {coll}: mean r [ms] vs processes (N={size}K floats, "
                    f"max delay {delay} ms)\n\n| p | " + " | ".join(LABEL[a] for a in algs) +
                    f" | {LABEL[algs[0]]} / {LABEL[algs[4]]} |\n" + "|---" * (len(algs) + 2) + "|\n")
            for p in sorted({k[2] for k in val if k[0] == coll}):
                r = [val.get((coll, a, p, size, delay)) for a in algs]
                cells = ["-" if x is None else f"{x:.1f}" for x in r]
                ratio = f"{r[0] / r[4]:.2f}" if r[0] and r[4] else "-"
                f.write(f"| {p} | " + " | ".join(cells) + f" | {ratio} |\n")
            f.write("\n")
    print("pap_plots:", out)


def main(argv):
    ap = argparse.ArgumentParser(prog="collx plots pap")
    ap.add_argument("sweep")
    ap.add_argument("outdir")
    ap.add_argument("scaling", nargs="?")
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--delay", type=int, default=50)
    o = ap.parse_args(argv)
    os.makedirs(o.outdir, exist_ok=True)
    val = load(o.sweep)
    p = max(k[2] for k in val)
    figure(val, {2: p, 3: o.size}, 4, "maximum delay [ms]",
           f"p={p}, N={o.size}K floats", os.path.join(o.outdir, "pap_delay.png"), logx=True,
           logy=True)
    figure(val, {2: p, 4: o.delay}, 3, "total vector N [K floats]",
           f"p={p}, max delay {o.delay} ms", os.path.join(o.outdir, "pap_size.png"), logx=True)
    if o.scaling:
        sval = load(o.scaling)
        figure(sval, {3: o.size, 4: o.delay}, 2, "processes (nodes)",
               f"N={o.size}K floats, max delay {o.delay} ms",
               os.path.join(o.outdir, "pap_scaling.png"))
        scaling_table(sval, o.size, o.delay, os.path.join(o.outdir, "pap_scaling.md"))
