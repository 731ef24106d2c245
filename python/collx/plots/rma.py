"""Plots of the one-sided broadcast sweeps: time vs m at the largest p and
time vs p at the largest m, per platform (OUTDIR/<platform>.png). The
command that reads the sweep and writes them beside its tables is
tables/rma.py's (collx plot rma)."""
from collx.plotting import pyplot


def figure(data, plat, ps, ms, unit, algs, path):
    """path: the algorithms algs of data[(platform, alg)] = {(p, m): us} on
    platform plat, at the process counts ps and sizes ms measured there;
    unit: (bytes per unit, its name) for the m axis."""
    plt = pyplot()
    div, uname = unit
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
    fig.savefig(path, dpi=90)
    plt.close(fig)
