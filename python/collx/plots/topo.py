"""Figures of sweep `topo` (Bhowmik & Bodele 2019, Figs. 2-6 shape):
allgather time vs message size, ring and recursive doubling with and
without topology reordering, per placement and node count. The command
that reads the sweep and writes them with its tables is tables/topo.py's
(collx plot topo)."""
STYLE = {"native": ("k", ":", "native"), "ring": ("C0", "-", "ring (rank order)"),
         "ring_topo": ("C1", "-", "ring_topo (paper map)"),
         "ring_topo_hier": ("C2", "--", "ring_topo (hier map)"),
         "recursive_doubling": ("C0", "-", "rd (rank order)"),
         "rd_topo": ("C1", "-", "rd_topo (paper map)"),
         "rd_topo_hier": ("C2", "--", "rd_topo (hier map)")}


def figure(plt, time, dims, fam, algs, path):
    """path: one panel per placement and node count from
    time[(placement, nodes, series, size)] = us; dims: (placements, nodes,
    sizes) to draw."""
    placements, nodes, sizes = dims
    fig, axes = plt.subplots(len(placements), len(nodes), figsize=(4 * len(nodes),
                             3.2 * len(placements)), squeeze=False)
    for i, pl in enumerate(placements):
        for j, n in enumerate(nodes):
            ax = axes[i][j]
            for a in ("native",) + algs:
                xs = [s for s in sizes if (pl, n, a, s) in time]
                if xs:
                    c, ls, lab = STYLE[a]
                    ax.plot([x / 1024 for x in xs], [time[(pl, n, a, x)] / 1e3 for x in xs],
                            color=c, ls=ls, marker="o", ms=3, label=lab)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title("%s, %d nodes (p=%d)" % (pl, n, 8 * n), fontsize=9)
            ax.set_xlabel("message size per rank (KB)", fontsize=8)
            ax.set_ylabel("time (ms)", fontsize=8)
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Allgather, %s, cse-2switch-30x8 (SMPI): message size vs time" %
                 ("ring" if fam == "ring" else "recursive doubling"))
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print("wrote", path)
