"""The report's sections that are not a paper's: real MPI on this machine
(sweep demo-real), the emulated cluster (DIR/cluster/tables.md of
cluster-demo) and any SMPI sweep no paper section took (the tuner's
section: tuner.py)."""
import os

from collx.report.section import Section, include
from collx.report.sweeps import Sweeps
from collx.tables import cluster as cluster_tables
from collx.tables import sweep as sweep_tables


def real_mpi(res):
    s = Section("Real MPI on this machine", "Real MPI on this machine")
    real = Sweeps(res, "real/*.csv")
    files = list(real.files)
    if not files:
        s.missing("every collective with real MPI", "demo-real", "real")
        return s
    s.body += ["Oversubscribed ranks on a 2-core machine: use the ratios, not the absolute "
               "numbers. Metric: r (run time, PAP paper eq. 1), median over repetitions.", ""]
    real.render(s, None, "Every collective, every registered algorithm", real=True)
    won, total, best = 0, 0, None
    for _, rows in files:
        keys, cols, val = sweep_tables.pivot(rows, "r", "median_us")
        for k in keys:
            top = sweep_tables.fastest(cols, val, k)
            nat = next((c for c in cols if c.endswith("/native")), None)
            total += 1
            if nat and top != nat and (k, nat) in val:
                won += 1
                gain = val[(k, nat)] / val[(k, top)]
                best = max(best or (0, ""), (gain, f"{top} at {k} B, {gain:.2f}x"))
    p = files[0][1][0]["p"]
    s.ours = (f"p = {p}: a collx algorithm beat native at {won} of {total} (collective, size) points"
              + (f"; the largest margin: {best[1]}." if best else "."))
    return s


def emulated_cluster(res):
    """DIR/cluster/tables.md (made by cluster-demo's last step; made here
    if only the CSVs are there)."""
    s = Section("On the emulated cluster", "On the emulated cluster")
    d = os.path.join(res, "cluster")
    md = os.path.join(d, "tables.md")
    if not os.path.exists(md) and any(os.path.exists(os.path.join(d, f"{n}.csv"))
                                      for n in ("topo", "hier", "rma")):
        cluster_tables.main([d])
    if not os.path.exists(md):
        s.missing("real MPI over real TCP on shaped links", "cluster-demo", "cluster")
        return s
    s.body += include(md, "cluster", 3, drop_title=True)
    cases, _ = cluster_tables.load(os.path.join(d, "topo.csv"))
    if cases:
        checks = [ln[2:] for ln in cluster_tables.targets(cases) if ln.startswith("- ")]
        s.ours = "topology targets at 256 KiB: " + "; ".join(checks) + "."
    return s


def other_sweeps(res, smpi):
    """The SMPI sweeps on platforms no paper section took; None if none."""
    s = Section("Other SMPI sweeps", "Other SMPI sweeps")
    if not smpi.render(s, None, "Sweeps on other platforms"):
        return None
    return s
