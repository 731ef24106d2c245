"""Figures of the PAP paper (Proficz 2020) from collbench CSV:
  pap_delay.png    Figs. 14-15: mean run time r vs maximum delay (one size)
  pap_size.png     Fig. 16: r vs total vector size (one maximum delay)
  pap_scaling.png  Fig. 17: r vs number of processes (sweep `pap-scaling`)

The command that reads the sweeps and draws them (with pap_scaling.md,
the same as a table) is tables/pap.py's (collx plot pap)."""
from collections import defaultdict

from collx.plotting import pyplot

LABEL = {"linear": "LIN", "linear_sync": "LS", "binomial": "BNOM", "slin": "SLIN",
         "sls": "SLS", "sbn": "SBN", "bsln": "BSLN", "bsls": "BSLS", "bsbn": "BSBN"}


def series(val, coll, alg, fixed, axis):
    """Points (x, r) of one algorithm along axis 2 (p), 3 (size) or 4 (delay)."""
    pts = defaultdict(float)
    for key, v in val.items():
        if key[0] == coll and key[1] == alg and all(key[i] == fixed[i] for i in fixed):
            pts[key[axis]] = v
    return sorted(pts.items())


def figure(val, algs, fixed, axis, xlabel, title, out, logx=False, logy=False):
    """out: scatter and gather side by side, r of val[(coll, alg, p,
    kfloats, delay)] along axis (2, 3 or 4) with the other keys fixed
    ({axis: value}); algs: {coll: [algorithms]}."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, coll in zip(axes, ("scatter", "gather")):
        for alg in algs[coll]:
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
