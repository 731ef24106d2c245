"""Tables and plots of the emulated-cluster sweeps (cluster-topo,
cluster-hier, cluster-rma; cluster/README.md): real MPI over real TCP on
shaped links, every launch a separate run.

    collx tables cluster DIR   (DIR/tables.md, DIR/*.png)

Per case (placement, collective, size, algorithm) over the launches: the
minimum of every call's run time r (max finish - min start) and the median
of the launches' mean r. Ratios compare minima (real runs are noisy; the
issue's targets say minima of at least 5 runs)."""
import argparse
import os
import statistics

from collx.csvio import read_rows, time_rows
from collx.plotting import pyplot

PLACEMENTS = ("block", "cyclic", "alternate")


def load(path):
    """cases[(placement, coll, size, alg)] = {"min": us, "median": us, "runs": n},
    plus the cluster spec and MPI of the file."""
    if not os.path.exists(path):
        return {}, {}
    rows = time_rows(read_rows(path), "r")
    per = {}
    info = {}
    for r in rows:
        key = (r["placement"], r["coll"], int(r["size_bytes"]), r["alg"])
        per.setdefault(key, []).append((float(r["min_us"]), float(r["mean_us"])))
        info = {"cluster": r.get("cluster", ""), "mpi": r.get("mpi", ""), "p": r["p"],
                "iters": r["iters"], "ran": info.get("ran", set()) | {(r["alg"], r["ran"])}}
    cases = {k: {"min": min(m for m, _ in v), "median": statistics.median(x for _, x in v),
                 "runs": len(v)} for k, v in per.items()}
    return cases, info


def ms(us):
    return "-" if us is None else "%.1f" % (us / 1000) if us >= 10000 else "%.2f" % (us / 1000)


def ratio(a, b):
    return "-" if not a or not b else "%.2fx" % (a / b)


def dims(cases):
    places = [p for p in PLACEMENTS if any(k[0] == p for k in cases)]
    colls = sorted({k[1] for k in cases})
    sizes = sorted({k[2] for k in cases})
    algs = []
    for k in cases:
        if k[3] not in algs:
            algs.append(k[3])
    return places, colls, sizes, algs


def size_text(b):
    return "%d MiB" % (b >> 20) if b >= 1 << 20 else "%d KiB" % (b >> 10) if b >= 1024 else "%d B" % b


def head(info, what):
    runs = "launches of %s calls each" % info.get("iters", "?")
    return ["Cluster `%s`, %s, p = %s; %s; times in ms: min over every call / median of "
            "the launches' means." % (info.get("cluster"), info.get("mpi"), info.get("p"), runs),
            "", what, ""]


def table(cases, place, coll, sizes, algs, pairs):
    """One markdown table: a row per size, min / median per algorithm, then
    the ratios (a / b of minima) named in pairs."""
    out = ["| size | " + " | ".join(algs) + " | " + " | ".join("%s / %s" % p for p in pairs) + " |",
           "|---" * (1 + len(algs) + len(pairs)) + "|"]
    for s in sizes:
        cells = []
        for a in algs:
            c = cases.get((place, coll, s, a))
            cells.append("-" if not c else "%s / %s" % (ms(c["min"]), ms(c["median"])))
        rs = []
        for a, b in pairs:
            ca, cb = cases.get((place, coll, s, a)), cases.get((place, coll, s, b))
            rs.append(ratio(ca and ca["min"], cb and cb["min"]))
        out.append("| %s | %s | %s |" % (size_text(s), " | ".join(cells), " | ".join(rs)))
    return out + [""]


def targets(cases):
    """The issue's targets on 4x2, 2 switches, 256 KiB allgather."""
    def t(pl, a):
        c = cases.get((pl, "allgather", 262144, a))
        return c and c["min"]
    out = ["### Targets (256 KiB per rank, minima)", ""]
    checks = [("alternate: ring / ring_topo >= 1.5", t("alternate", "ring"), t("alternate", "ring_topo"),
               lambda x: x >= 1.5),
              ("alternate: rd_topo / recursive_doubling <= 1.05", t("alternate", "rd_topo"),
               t("alternate", "recursive_doubling"), lambda x: x <= 1.05),
              ("block: ring_topo / ring <= 1.10", t("block", "ring_topo"), t("block", "ring"),
               lambda x: x <= 1.10)]
    for name, a, b, ok in checks:
        if a and b:
            out.append("- %s: **%.2f** (%s)" % (name, a / b, "met" if ok(a / b) else "NOT met"))
        else:
            out.append("- %s: not measured" % name)
    return out + [""]


def plot(cases, coll, path, title):
    places, _, sizes, algs = dims({k: v for k, v in cases.items() if k[1] == coll})
    plt = pyplot()
    fig, axes = plt.subplots(1, len(places), figsize=(5 * len(places), 4), squeeze=False)
    for ax, pl in zip(axes[0], places):
        for a in algs:
            xs = [s for s in sizes if (pl, coll, s, a) in cases]
            ax.plot([x / 1024 for x in xs], [cases[(pl, coll, x, a)]["min"] / 1000 for x in xs],
                    marker="o", label=a)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("KiB per rank")
        ax.set_ylabel("ms (min)")
        ax.set_title("%s, %s" % (coll, pl))
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def ran_note(info):
    other = sorted("%s ran %s" % (a, r) for a, r in info.get("ran", ()) if r and a != r)
    return ["Handed over (column `ran`): " + ", ".join(other) + ".", ""] if other else []


def section(d, csv_name, title, what, out):
    """The cases of DIR/csv_name, after the section's heading and head
    lines in out; empty (and nothing written) when the sweep did not run."""
    cases, info = load(os.path.join(d, csv_name))
    if cases:
        out += ["## " + title, ""] + head(info, what)
    return cases, info


def section_topo(d, out):
    cases, info = section(d, "topo.csv", "Topology-aware allgather (the topology paper's experiment)",
                          "Block: node0, node1 on switch 0 hold ranks 0-3. Alternate: nodes taken "
                          "alternately from the switches, so every ring neighbour is across the "
                          "uplink (and recursive doubling's distance-1 partners too, its cheap "
                          "step).", out)
    if not cases:
        return
    places, _, sizes, algs = dims(cases)
    for pl in places:
        out += ["### %s" % pl, ""]
        out += table(cases, pl, "allgather", sizes, algs,
                     [("ring", "ring_topo"), ("recursive_doubling", "rd_topo"), ("native", "ring_topo"),
                      ("native", "rd_topo")])
    out += targets(cases) + ran_note(info)
    plot(cases, "allgather", os.path.join(d, "topo.png"), "allgather on %s" % info.get("cluster"))
    out += ["![allgather per placement](topo.png)", ""]


def section_hier(d, out):
    cases, info = section(d, "hier.csv", "Hierarchical collectives (hier, hier_ms) against flat ones",
                          "One switch, node links shaped; flat = native and the flat collx "
                          "algorithm named in the table.", out)
    if not cases:
        return
    places, colls, sizes, _ = dims(cases)
    for coll in colls:
        algs = dims({k: v for k, v in cases.items() if k[1] == coll})[3]
        for pl in places:
            out += ["### %s, %s" % (coll, pl), ""]
            out += table(cases, pl, coll, sizes, algs, [("native", "hier"), ("native", "hier_ms")])
        plot(cases, coll, os.path.join(d, "hier-%s.png" % coll), "%s on %s" % (coll, info.get("cluster")))
        out += ["![%s](hier-%s.png)" % (coll, coll), ""]
    out += ran_note(info)


def section_rma(d, out):
    cases, info = section(d, "rma.csv", "One-sided broadcast across nodes",
                          "MPICH (windows between nodes work there; Debian's Open MPI cannot "
                          "create them over TCP and hands every call to native).", out)
    if not cases:
        return
    places, _, sizes, algs = dims(cases)
    for pl in places:
        out += table(cases, pl, "bcast", sizes, algs,
                     [("native", "rma_binomial"), ("binomial", "rma_binomial"), ("native", "rma_linear")])
    out += ran_note(info)
    plot(cases, "bcast", os.path.join(d, "rma.png"), "bcast on %s (%s)" % (info.get("cluster"), info.get("mpi")))
    out += ["![bcast](rma.png)", ""]


def main(argv):
    ap = argparse.ArgumentParser(prog="collx tables cluster", description="DIR/tables.md and "
                                 "PNGs of the emulated-cluster sweeps (cluster-*) in DIR")
    ap.add_argument("dir", metavar="DIR")
    d = ap.parse_args(argv).dir
    out = ["# collx on the emulated cluster", "",
           "Generated by `./run collx tables cluster %s` from the CSVs of the sweeps "
           "`cluster-*` (python/collx/sweeps.json; `./run collx sweep --list`)." % d, ""]
    for section in (section_topo, section_hier, section_rma):
        section(d, out)
    pap = os.path.join(d, "pap_tables.md")
    if os.path.exists(pap):
        out += ["## PAP over TCP", "", "See [pap_tables.md](pap_tables.md).", ""]
    with open(os.path.join(d, "tables.md"), "w") as f:
        f.write("\n".join(out))
    print("wrote", os.path.join(d, "tables.md"))
    return 0
