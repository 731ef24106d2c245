"""The report's section on Bhowmik & Bodele's topology-aware allgather: the
gains of sweep topo-demo (DIR/topo/, SMPI cse-2switch-30x8) beside the
paper's 12-40 %, the allgather sweep of demo-smpi on the same cluster, and
the emulated cluster's targets (DIR/cluster/topo.csv) when it ran."""
import os

from collx import published
from collx.report.section import Section, nest
from collx.tables import cluster as cluster_tables
from collx.tables import topo as topo_tables

LO, HI = published.BHOWMIK_GAIN_PCT
CLAIM = (f"reordering the ranks by measured node distances makes ring and recursive-doubling "
         f"MPI_Allgather {LO}-{HI} % faster on a 30-node cluster of two 1 Gbps switches.")
PLATFORM = "cse-2switch-30x8"


def span(xs):
    lo, hi = f"{min(xs):+.0f}", f"{max(xs):+.0f}"
    return f"{lo} %" if lo == hi else f"{lo} to {hi} %"


def section(res, smpi):
    s = Section("Bhowmik & Bodele (topology)",
                "5. Bhowmik & Bodele: topology-aware allgather", CLAIM)
    d = os.path.join(res, "topo")
    gains = topo_tables.demo_gains(d) if os.path.isdir(d) else []
    if gains:
        s.body += nest(topo_tables.demo_summary(d), 3) + [""]
        headline(s, gains)
    else:
        s.missing("the reordering gains", "topo-demo", "topo")
    if not smpi.render(s, (PLATFORM,), "Every allgather on the same cluster (SMPI, demo-smpi)"):
        s.missing("allgather on cse-2switch-30x8", "demo-smpi", "smpi")
    cases, _ = cluster_tables.load(os.path.join(res, "cluster", "topo.csv"))
    if cases:
        s.body += nest(cluster_tables.targets(cases), 3)
        s.body += ["The emulated cluster's tables: section *On the emulated cluster*.", ""]
    return s


def headline(s, gains):
    ring = [g[3] for g in gains]
    rd = [g[4] for g in gains]
    best = max(gains, key=lambda g: max(g[3], g[4]))
    s.ours = (f"gain over rank order ring_topo {span(ring)}, rd_topo {span(rd)} "
              f"(SMPI {PLATFORM}, 8 nodes x 8; best {max(best[3], best[4]):+.0f} % "
              f"{best[0]} at {best[1] // 1024} KB) — paper {LO}-{HI} %.")
    below = [(f"{pl} {m // 1024} KB {alg} {g:+.0f} %", abs(g) < 0.5) for pl, m, _, r, d in gains
             for alg, g in (("ring", r), ("rd", d)) if g < LO]
    if below:
        kept = sum(1 for _, same in below if same)
        s.misses.append(f"Below the paper's {LO} % in {len(below)} of {2 * len(gains)} cases: "
                        + ", ".join(b for b, _ in below) + "." +
                        (f" In {kept} of them the reordering kept the rank order: the placement "
                         "already suits the algorithm." if kept else ""))
    else:
        s.misses.append(f"nowhere: every case gains at least {LO} %.")
