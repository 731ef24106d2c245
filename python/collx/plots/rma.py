"""Plots of the one-sided broadcast sweeps: time vs m at the largest p and
time vs p at the largest m, per platform (OUTDIR/<platform>.png), beside
the tables of tables/rma.py (OUTDIR/tables.md).

    python3 -m collx plots rma CSV OUTDIR
"""
import os

from collx.plotting import pyplot
from collx.tables import rma as tables


def figure(data, plat, path):
    plt = pyplot()
    ps, ms = tables.grid(data, plat)
    div, uname = tables.UNIT.get(plat, (1, "B"))
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    for a in tables.ALGS:
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
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv):
    if len(argv) != 2:
        raise SystemExit("usage: python3 -m collx plots rma CSV OUTDIR")
    data = tables.load(argv[0])
    for plat in tables.platforms(data):
        figure(data, plat, os.path.join(argv[1], f"{plat}.png"))
    md = tables.tables(data)
    with open(os.path.join(argv[1], "tables.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
