"""Figures of the hierarchical study: run time vs bytes per rank, one panel
per process count, one line per variant."""
import os

from collx.plotting import pyplot


def plot(out, c, t, ps, variants):
    """out/hier_<c>.png from t[(coll, p, bytes, variant)] = us."""
    try:
        plt = pyplot()
    except ImportError:
        return
    fig, axes = plt.subplots(1, len(ps), figsize=(4.5 * len(ps), 3.6), squeeze=False)
    for ax, p in zip(axes[0], ps):
        for i, v in enumerate(variants):   # one colour per variant in every panel
            pts = sorted((k[2], y) for k, y in t.items() if k[0] == c and k[1] == p and k[3] == v)
            if pts:
                ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=v,
                        color=f"C{i % 10}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("bytes per rank")
        ax.set_ylabel("run time (us)")
        ax.set_title(f"{c}, p={p}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, f"hier_{c}.png"), dpi=110)
    plt.close(fig)
