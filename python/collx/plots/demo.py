"""Figures of the demo report (report/): Träff's t vs b per problem, and
a sweep's time vs bytes per rank, one line per algorithm."""
from collx.plotting import pyplot


def traff(t, coll, reg, valgs, galgs, probs, bs, pub, title, path):
    """t vs b per problem: one line per v-algorithm, the Guideline (2) bound,
    and for gatherv the paper's NEC MPI_Gatherv and TUW_Gatherv."""
    plt = pyplot()
    fig, axes = plt.subplots(2, 3, figsize=(13, 7), sharex=True)
    for ax, pr in zip(axes.flat, probs):
        for a in valgs:
            ys = [t.get((coll, a, pr, b)) for b in bs]
            ax.loglog(bs, ys, marker="o", label=f"{coll}/{a}")
        ys = [min([t[("allreduce+" + reg, a, pr, b)] for a in galgs if ("allreduce+" + reg, a, pr, b) in t] or [None])
              for b in bs]
        ax.loglog(bs, ys, "k--", label="guideline (2) bound")
        if pub and coll == "gatherv":
            ax.loglog(bs, [float(pub[(1, pr, b)]["gatherv_min"]) for b in bs], "r:", marker="x",
                      label="paper MPI_Gatherv (NEC)")
            ax.loglog(bs, [float(pub[(1, pr, b)]["tuw_min"]) for b in bs], "g:", marker="x",
                      label="paper TUW_Gatherv")
        ax.set_title(pr)
        ax.set_xlabel("b (MPI_INT per rank)")
        ax.set_ylabel("t [us]")
        ax.grid(True, which="both", alpha=0.3)
    axes.flat[0].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def sweep(keys, cols, val, title, metric, path):
    """val[(bytes, column)] vs bytes per rank, log-log."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for c in cols:
        ax.loglog(keys, [val.get((k, c)) for k in keys], marker="o", label=c)
    ax.set_xlabel("bytes per rank")
    ax.set_ylabel(f"{metric} [us]")
    ax.set_title(f"{title}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
