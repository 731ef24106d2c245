"""Hierarchical study report: tables, plots and a fitted cost model.

    collx report hier [DIR]   (DIR/hier.csv from sweep `hier`; default results/hier)

Writes DIR/hier_tables.md and DIR/hier_<coll>.png. Times are the run time
r (mean over repetitions: simulations without random delays are
deterministic) in microseconds.

The cost model (models/hier.py) is fitted per collective and
variant to every process count but the largest one measured, checked
against that one (the error printed is for runs the fit has not seen),
then refitted on all and evaluated at p = 65536, the paper's largest
scale.
"""
import argparse
import os
from collections import defaultdict

from collx import published
from collx.csvio import read_rows, time_rows
from collx.models import hier as hier_model
from collx.plots.hier import plot
from collx.tune import rules as tune_rules


def paper_speedups():
    """collective -> the paper's average speed-up of hier over flat."""
    return {c: x for (v, c), x in published.parsons().items() if v == "hier"}


def load(path):
    return {(row["coll"], int(row["p"]), int(row["size_bytes"]), row["alg"]): float(row["mean_us"])
            for row in time_rows(read_rows(path), "r")}


def main(argv):
    ap = argparse.ArgumentParser(prog="collx report hier", description="DIR/hier_tables.md, "
                                 "DIR/rules.json and DIR/hier_<coll>.png from DIR/hier.csv "
                                 "(sweep hier)")
    ap.add_argument("dir", nargs="?", default="results/hier", metavar="DIR",
                    help="default results/hier")
    out = ap.parse_args(argv).dir
    t = load(os.path.join(out, "hier.csv"))
    paper = paper_speedups()
    colls = sorted({k[0] for k in t})
    lines = ["# Hierarchical collectives (Parsons & Pai 2014) in SMPI", "",
             "fattree-256x16 (16 ranks per node), run time r in us (mean of the "
             "repetitions), sweep `hier`; speed-up = native / best hier; "
             "best other = the fastest of native and SMPI's SMP-aware built-ins; best hier "
             "= the fastest of hier (the MPI's own leaders' collective), hier+bruck "
             "(collx's Bruck allgatherv among the leaders) and hier_ms (several senders "
             "per node, collx's defaults).", ""]
    for c in colls:
        ps = sorted({k[1] for k in t if k[0] == c})
        variants = sorted({k[3] for k in t if k[0] == c}, key=lambda v: (v != "native", v))
        lines += [f"## {c}", "",
                  "| p | bytes/rank | " + " | ".join(variants) +
                  " | best hier: speed-up vs native | best hier / best other |",
                  "|---" * (len(variants) + 4) + "|"]
        for p in ps:
            for m in sorted({k[2] for k in t if k[0] == c and k[1] == p}):
                vals = [t.get((c, p, m, v)) for v in variants]
                hs = [x for v, x in zip(variants, vals) if v in HIER and x]
                h, n = (min(hs) if hs else None), flat(t, c, p, m)
                others = [x for v, x in zip(variants, vals) if v not in HIER and x]
                sp = f"{n / h:.2f}x" if h and n else ""
                ratio = f"{h / min(others):.2f}" if h and others else ""
                lines.append(f"| {p} | {m} | " +
                             " | ".join(f"{x:.1f}" if x else "" for x in vals) +
                             f" | {sp} | {ratio} |")
        if c in paper:
            lines += ["", f"Paper (65536 cores): hier {paper[c]}x faster than flat on "
                      "average."]
        lines.append("")
        plot(out, c, t, ps, variants)
    lines[4:4] = summary(t)
    lines += model(t)
    lines += senders(os.path.join(out, "senders.csv"))
    lines += real(os.path.join(out, "real"))
    lines += rules(t, os.path.join(out, "rules.json"))
    with open(os.path.join(out, "hier_tables.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"hier_report: {os.path.join(out, 'hier_tables.md')}")


MODELLED = ("native", "hier", "hier+bruck", "hier_ms")
HIER = ("hier", "hier+bruck", "hier_ms")


def flat(t, c, p, m):
    """The flat baseline: native, or SMPI's pairwise where native could
    not be simulated (alltoallv at p = 1024: more than 24 GB)."""
    return t.get((c, p, m, "native")) or t.get((c, p, m, "smpi:pair"))


def speedups(t):
    """Per collective and p: native / the best hier variant at every size
    measured, and the worst case of best other / best hier: rows
    (coll, p, small, every, worst) where small lists the sizes 8 B..1 KiB
    per rank and worst = (ratio, size)."""
    rows = []
    for c in sorted({k[0] for k in t}):
        for p in sorted({k[1] for k in t if k[0] == c}):
            small, every, worst = [], [], None
            for m in sorted({k[2] for k in t if k[0] == c and k[1] == p}):
                n = flat(t, c, p, m)
                h = [t[(c, p, m, v)] for v in HIER if (c, p, m, v) in t]
                others = [y for (cc, pp, mm, v), y in t.items()
                          if (cc, pp, mm) == (c, p, m) and v not in HIER]
                if not n or not h:
                    continue
                every.append(n / min(h))
                if m <= 1024:
                    small.append(n / min(h))
                r = (min(others) / min(h), m)
                worst = r if worst is None or r < worst else worst
            if every:
                rows.append((c, p, small, every, worst))
    return rows


def summary(t):
    """Per collective and p: the mean over small sizes (8 B..1 KiB per
    rank) of native / the best hier variant, beside the paper's average."""
    paper = paper_speedups()
    lines = ["## Summary: speed-up of the best hier variant over flat native", "",
             "Mean over the sizes measured from 8 B to 1 KiB per rank (and over all "
             "sizes) of native / min(hier, hier+bruck, hier_ms); the paper's figure is "
             "its average over its runs at up to 65536 cores (Cray MPT / MPICH as the "
             "flat baseline).", "",
             "| collective | p | small sizes: mean (range) | all sizes: mean | "
             "best other / best hier, worst size | paper |",
             "|---|---|---|---|---|---|"]
    for c, p, small, every, worst in speedups(t):
        sm = (f"{sum(small) / len(small):.2f}x ({min(small):.2f}-{max(small):.2f})"
              if small else "")
        pp = f"{paper[c]}x" if c in paper else ""
        lines.append(f"| {c} | {p} | {sm} | {sum(every) / len(every):.2f}x | "
                     f"{worst[0]:.2f} at {worst[1]} B | {pp} |")
    return lines + [""]


def model(t):
    """The fitted cost model (models/hier.py): checked on the largest
    p measured (not seen by the fit), then refitted on all p and evaluated
    at p = 65536 (4096 nodes of 16)."""
    lines = ["## Cost model and extrapolation", "",
             "T = a R + b B + c L + d per collective and variant, where R (rounds), "
             "B (bytes through a node's link) and L (bytes a rank copies or reduces) "
             "follow from the algorithm the variant runs at (p, m): SMPI 3.32's "
             "Open-MPI-like selector for native and for hier's leaders "
             "(`python/collx/models/hier.py`). Non-negative least squares on relative error. "
             "*Check*: fitted on every p but the largest, worst and mean error on "
             "the largest p (runs the fit has not seen). Then refitted on all p and "
             "evaluated at p = 65536 (4096 nodes of 16).", "",
             "| collective | variant | p fitted | p checked | worst / mean error there | "
             "T at 65536, 8 B (us) | T at 65536, 512 B (us) | native / variant at 65536, "
             "8 B / 512 B | link bytes native / variant |",
             "|---|---|---|---|---|---|---|---|---|"]
    groups = defaultdict(list)
    for (c, p, m, v), y in t.items():
        if v == "smpi:pair" and (c, p, m, "native") not in t:
            v = "native"   # the flat baseline where SMPI's default was not simulable
        if v in MODELLED:
            groups[(c, v)].append((p, m, y))
    at, rows = {}, []
    for (c, v), pts in sorted(groups.items()):
        ps = sorted({p for p, _, _ in pts})
        if len(ps) < 2:
            continue
        fit = [x for x in pts if x[0] < ps[-1]]
        check = [x for x in pts if x[0] == ps[-1]]
        err = "(fitted on one p)"
        if len({p for p, _, _ in fit}) >= 2:
            coef = hier_model.fit([hier_model.features(c, v, p, m) for p, m, _ in fit],
                         [y for *_, y in fit])
            errs = [abs(hier_model.predict(coef, c, v, p, m) - y) / y for p, m, y in check]
            err = f"{100 * max(errs):.0f} % / {100 * sum(errs) / len(errs):.0f} %"
        coef = hier_model.fit([hier_model.features(c, v, p, m) for p, m, _ in pts], [y for *_, y in pts])
        at[(c, v)] = (hier_model.predict(coef, c, v, 65536, 8), hier_model.predict(coef, c, v, 65536, 512))
        rows.append((c, v, ps, err))
    for c, v, ps, err in rows:
        n8, n512 = at.get((c, "native"), (None, None))
        x8, x512 = at[(c, v)]
        ratio = f"{n8 / x8:.1f}x / {n512 / x512:.1f}x" if n8 and v != "native" else ""
        link = ""
        if v != "native":
            bn = hier_model.counts(c, "native", 65536, 512)[1]
            bv = hier_model.counts(c, v, 65536, 512)[1]
            link = f"{bn / bv:.0f}" if bv else ""
        lines.append(f"| {c} | {v} | {','.join(map(str, ps[:-1]))} | {ps[-1]} | {err} | "
                     f"{x8:.0f} | {x512:.0f} | {ratio} | {link} |")
    return lines + [""]


# collx's algorithms a rules file can pick, per collective (hier: with its
# default leaders, i.e. Bruck allgatherv from 64 nodes on, as hier+bruck
# was measured there).
RULE_ALGS = ("native", "hier", "hier_ms")
RULE_COLLS = ("allgather", "bcast", "allreduce", "reduce_scatter_block")


def measured_as(c, p, v, t_get):
    """The time collx's algorithm v (default settings) had at (c, p)."""
    if v == "hier" and c in ("allgather", "allgatherv") and p // 16 >= 64:
        return lambda m: t_get((c, p, m, "hier+bruck"))
    return lambda m: t_get((c, p, m, v))


def rules(t, path):
    """A COLLX_RULES file: per collective, the fastest of collx's
    algorithms at each measured (p, size), as ranges that serve the sizes
    and process counts in between (collx.tune.rules: boundaries at the
    geometric mean of measured neighbours, equal neighbours merged, 16 ranks
    per node, nothing below the smallest p measured). Collectives whose
    size is not known alike on every rank (the v ones) cannot be chosen by
    size and are left out."""
    times = {}
    for c in RULE_COLLS:
        ps = sorted({k[1] for k in t if k[0] == c})
        ms = sorted({k[2] for k in t if k[0] == c})
        if ps:
            times[c] = {(p, m): {v: measured_as(c, p, v, t.get)(m) for v in RULE_ALGS}
                        for p in ps for m in ms}
    sizes = sorted({k[2] for k in t if k[0] in RULE_COLLS})
    procs = sorted({k[1] for k in t if k[0] in RULE_COLLS})
    out = tune_rules.from_sweep(path, times, 16, tune_rules.provenance(
        f"collx report hier {os.path.dirname(path)}", kind="sweep",
        target="SMPI sweep hier (python/collx/sweeps.json), block placement",
        platform="fattree-256x16", mpi="SimGrid SMPI",
        machine={"simulated": "SMPI platform fattree-256x16"}, ranks_per_node=16,
        collectives=[c for c in RULE_COLLS if any(k[0] == c for k in t)],
        comm_size={"min": procs[0], "max": procs[-1]} if procs else None,
        msg_size={"min": sizes[0], "max": sizes[-1]} if sizes else None,
        note="the fastest of native, hier and hier_ms at each measured point"))
    return ["## Rules file", "",
            f"`{os.path.basename(path)}` (written by this report): for each collective "
            "whose message size every rank knows, the fastest of collx's `native`, "
            "`hier` and `hier_ms` at each measured p and size, as ranges that also serve "
            "the process counts and sizes in between, none below the smallest p measured "
            "(`python/collx/tune/rules.py`); "
            "`COLLX_RULES=docs/results/hier/rules.json` runs hier only where it was "
            f"measured faster on fattree-256x16 ({len(out)} rules).", ""]


def senders(path):
    """Sweep `hier-senders`: one sender per node against several."""
    if not os.path.exists(path):
        return []
    t = defaultdict(dict)
    for row in read_rows(path):
        t[(row["platform"], row["coll"], int(row["p"]), int(row["bytes"]))][row["variant"]] = \
            float(row["us"])
    lines = ["## Several senders per node (hier_ms)", "",
             "Sweep `hier-senders`: fattree-256x16, where one core fills the 12 GB/s "
             "node link, and fattree-256x16-slowcore, where one core injects at most "
             "4 GB/s (per-byte send/receive overheads of 0.25 ns/B). Run time r in us.", "",
             "| platform | collective | p | bytes | native | hier | hier_ms | hier / hier_ms |",
             "|---|---|---|---|---|---|---|---|"]
    for (pl, c, p, m), v in sorted(t.items()):
        h, ms = v.get("hier"), v.get("hier_ms")
        lines.append(f"| {pl} | {c} | {p} | {m} | {v.get('native', float('nan')):.1f} | "
                     f"{h or float('nan'):.1f} | {ms or float('nan'):.1f} | "
                     f"{h / ms:.2f}x |" if h and ms else
                     f"| {pl} | {c} | {p} | {m} | | | | |")
    return lines + [""]


def real(d):
    """Tables of sweep `hier-real`: real MPI on this machine, fake nodes."""
    if not os.path.isdir(d):
        return []
    lines = ["## Real MPI on this machine (one node, fake nodes)", "",
             "Sweep `hier-real`: 8 ranks on 2 cores (oversubscribed), the node "
             "split into fake nodes of k ranks; the inter-node messages go through "
             "the same shared memory, so hier pays its extra copies and node "
             "barriers without a network to save. Median run time r in us.", ""]
    for f in sorted(os.listdir(d)):
        if not f.endswith(".csv"):
            continue
        rows = defaultdict(dict)
        for row in time_rows(read_rows(os.path.join(d, f)), "r"):
            rows[int(row["size_bytes"])][row["alg"]] = float(row["median_us"])
        algs = sorted({a for r in rows.values() for a in r}, key=lambda a: (a != "native", a))
        lines += [f"### {f[:-4]}", "", "| bytes/rank | " + " | ".join(algs) + " |",
                  "|---" * (len(algs) + 1) + "|"]
        for m in sorted(rows):
            lines.append(f"| {m} | " + " | ".join(f"{rows[m].get(a, float('nan')):.1f}"
                                                   for a in algs) + " |")
        lines.append("")
    return lines
