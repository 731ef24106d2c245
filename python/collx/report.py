"""collx demo report: reads the CSVs the demo's sweeps (group `demo` of
sweeps.json) wrote into a results directory and writes report.md (tables,
guideline verdicts, published numbers beside ours) and PNG plots next to it.

    python3 -m collx report results/<date>

CSV schema: bench/README.md. Every sweep_* file is rendered generically,
so new algorithms and new sweeps appear without changes here."""
import glob
import os
from collections import defaultdict

from collx import published
from collx.csvio import read_rows as read
from collx.plots import demo as figures
from collx.tables import rma as rma_tables

PROBLEMS = ["same", "random", "spikes", "decreasing", "alternating", "twoblocks"]


def us(x):
    x = float(x)
    return f"{x / 1000:.2f} ms" if x >= 100000 else f"{x:.1f}"


def fmt(x):
    return "-" if x is None else (f"{x:.0f}" if x >= 100 else f"{x:.1f}")


# ------------------------------------------------------------ Träff tables
def traff_table(rows, coll, pub, out, figdir, name):
    """Table 1 shape: MPI_Gather per algorithm, Guideline (2), MPI_Gatherv per
    algorithm (t, min over repetitions); violations in bold with a mark."""
    reg = "gather" if coll == "gatherv" else "scatter"
    t = {}          # (coll, alg, problem, b) -> t min
    mm = {}
    for r in rows:
        if r["kind"] == "time" and r["metric"] == "t":
            t[(r["coll"], r["alg"], r["problem"], int(r["b"]))] = float(r["min_us"])
            mm[(r["problem"], int(r["b"]))] = (r["m"], r["m_pad"])
    viol = {(r["coll"], r["alg"], r["problem"], int(r["b"]), r["metric"])
            for r in rows if r["kind"] == "guideline" and r["violated"] == "1"}
    order = ["native", "linear", "binomial"]
    ralgs = sorted({k[1] for k in t if k[0] == reg},
                   key=lambda a: (order.index(a) if a in order else len(order), a))
    galgs = sorted({k[1] for k in t if k[0] == "allreduce+" + reg})
    valgs = sorted({k[1] for k in t if k[0] == coll}, key=lambda a: (a != "native", a != "linear", a))
    bs = sorted({k[3] for k in t})
    probs = [p for p in PROBLEMS if any(k[2] == p for k in t)]
    p = rows[0]["p"]
    out.append(f"Platform {rows[0]['platform']}, p = {p} ({rows[0]['ppn']} per node), root {rows[0]['root']}, "
               f"{rows[0]['warmup']} warm-up + {rows[0]['iters']} timed repetitions, "
               "t = time of the slowest process, minimum over repetitions, in us. "
               f"Guideline (2) = MPI_Allreduce(1 int) + MPI_{reg.capitalize()}(m'), best of "
               f"{', '.join(galgs)}. **bold ‼** = guideline violated by more than the 5 % tolerance "
               f"(G1 in the MPI_{reg.capitalize()} columns, only for `same` where MPI_{reg.capitalize()} can be used; "
               f"G2 in the MPI_{coll.capitalize()} columns).")
    if pub:
        out.append(f"Published (Träff Table 1, NEC MPI on a real 35x16 QDR cluster, min) in the *paper* columns.")
    out.append("")
    hdr = ["problem", "b", "m", "m'"] + [f"{reg}/{a}" for a in ralgs] + ["G2 bound"] + \
          [f"{coll}/{a}" for a in valgs]
    if pub:
        hdr += ["paper gather", "paper G2", "paper gatherv", "paper TUW"]
    out.append("| " + " | ".join(hdr) + " |")
    out.append("|" + "---|" * len(hdr))

    def cell(c, a, pr, b, guideline):   # a time, marked if it violates the guideline
        s = fmt(t.get((c, a, pr, b)))
        return f"**{s} ‼**" if (c, a, pr, b, guideline) in viol else s

    for pr in probs:
        for b in bs:
            m, mp = mm.get((pr, b), ("", ""))
            cells = [pr, str(b), m, mp] + [cell(reg, a, pr, b, "G1") for a in ralgs]
            g2 = [t[("allreduce+" + reg, a, pr, b)] for a in galgs if ("allreduce+" + reg, a, pr, b) in t]
            cells.append(fmt(min(g2)) if g2 else "-")
            cells += [cell(coll, a, pr, b, "G2") for a in valgs]
            if pub:
                q = pub.get((1, pr, b))
                cells += [q["gather_min"], q["g2_min"], q["gatherv_min"], q["tuw_min"]] if q else ["-"] * 4
            out.append("| " + " | ".join(cells) + " |")
    out.append("")
    nv = sum(1 for v in viol if v[0] == coll)
    out.append(f"Guideline (2) violations by MPI_{coll.capitalize()} algorithm: " + ", ".join(
        f"{a}: {sum(1 for v in viol if v[0] == coll and v[1] == a)}/{len(probs) * len(bs)}" for a in valgs)
        + f" (total {nv}).")
    out.append("")
    png = f"{name}.png"
    figures.traff(t, coll, reg, valgs, galgs, probs, bs, pub,
                  f"{coll}, p={p}, {rows[0]['platform']} (SMPI)", os.path.join(figdir, png))
    out.append(f"![{coll} p={p}]({png})")
    out.append("")
    return t, viol


def calibration(t, pub, out):
    out.append("Calibration of ib-qdr-36x16 (problem `same`, min times in us): our simulated linear "
               "MPI_Gatherv and binomial MPI_Gather against the three libraries Träff measured on the real "
               "machine (Tables 1-3).")
    out.append("")
    out.append("| b | ours gatherv/linear | NEC | MVAPICH | Open MPI | ours gather/binomial | NEC | MVAPICH | Open MPI |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for b in (1, 10, 100, 1000, 10000):
        row = [str(b), fmt(t.get(("gatherv", "linear", "same", b)))]
        row += [pub[(k, "same", b)]["gatherv_min"] for k in (1, 2, 3)]
        row += [fmt(t.get(("gather", "binomial", "same", b)))]
        row += [pub[(k, "same", b)]["gather_min"] for k in (1, 2, 3)]
        out.append("| " + " | ".join(row) + " |")
    out.append("")


# ------------------------------------------------------------ generic sweeps
def sweep(rows, title, out, figdir, name, metric="t", stat="min_us"):
    """Pivot: rows = size (or problem/b), columns = coll/alg."""
    rows = [r for r in rows if r["kind"] == "time" and r["metric"] == metric]
    if not rows:
        return None
    cols = []
    for r in rows:
        c = f"{r['coll']}/{r['alg']}"
        if c not in cols:
            cols.append(c)
    keyf = (lambda r: int(r["size_bytes"])) if rows[0]["size_bytes"] else (lambda r: (r["problem"], int(r["b"])))
    val = {(keyf(r), f"{r['coll']}/{r['alg']}"): float(r[stat]) for r in rows}
    keys = []
    for r in rows:
        if keyf(r) not in keys:
            keys.append(keyf(r))
    r0 = rows[0]
    out.append(f"### {title}")
    out.append("")
    out.append(f"{r0['platform']}, p = {r0['p']} ({r0['ppn']} per node), {r0['warmup']} warm-up + "
               f"{r0['iters']} repetitions; {metric} ({stat.replace('_us', '')} over repetitions) in us"
               + (f", arrival delays uniform in [0, {r0['max_delay_ms']} ms]" if float(r0["max_delay_ms"]) else "") + ".")
    out.append("")
    out.append("| size (B) | " + " | ".join(cols) + " |")
    out.append("|---|" + "---|" * len(cols))
    for k in keys:
        vs = [val.get((k, c)) for c in cols]
        best = min(v for v in vs if v is not None)
        cells = [("**" + fmt(v) + "**") if v == best and len(cols) > 1 else fmt(v) for v in vs]
        out.append(f"| {k if not isinstance(k, tuple) else '%s b=%d' % k} | " + " | ".join(cells) + " |")
    out.append("")
    lo, hi = keys[0], keys[-1]
    best = [min((c for c in cols if val.get((k, c)) is not None), key=lambda c: val[(k, c)])
            for k in (lo, hi)]
    line = (f"- {title} (p={r0['p']}): fastest at {lo} B: {best[0]} ({fmt(val[(lo, best[0])])} us), "
            f"at {hi} B: {best[1]} ({fmt(val[(hi, best[1])])} us)")
    if not isinstance(keys[0], tuple) and len(keys) > 1:
        figures.sweep(keys, cols, val, title, metric, os.path.join(figdir, name + ".png"))
        out.append(f"![{title}]({name}.png)")
        out.append("")
    return line


def rma_demo(path):
    """Sweep rma-demo's points: the one-sided broadcast beside two-sided."""
    if not os.path.exists(path):
        return []
    data = rma_tables.load(path)
    out = ["## One-sided broadcast (Paznikov 2024)", ""]
    for plat in rma_tables.platforms(data):
        out += rma_tables.platform_tables(data, plat)
    return out + [""]


def main(argv):
    if len(argv) != 1:
        raise SystemExit("usage: python3 -m collx report RESULTS_DIR")
    res = argv[0]
    pub = published.traff()
    out = ["# collx demo report", ""]
    summary = []
    timing = os.path.join(res, "timings.txt")
    body = []
    t_g = None
    for coll in ("gatherv", "scatterv"):
        f = os.path.join(res, "smpi", f"traff_{coll}.csv")
        if not os.path.exists(f):
            continue
        rows = read(f)
        body.append(f"## Träff Table 1 shape: {coll}, p = {rows[0]['p']}")
        body.append("")
        t, viol = traff_table(rows, coll, pub if coll == "gatherv" else None, body, res, f"traff_{coll}")
        if coll == "gatherv":
            t_g = t
        algs = sorted({k[1] for k in t if k[0] == coll})
        wins = defaultdict(int)
        for pr in PROBLEMS:
            for b in (1, 10, 100, 1000, 10000):
                vs = {a: t.get((coll, a, pr, b)) for a in algs}
                vs = {a: v for a, v in vs.items() if v is not None}
                if vs:
                    wins[min(vs, key=vs.get)] += 1
        summary.append(f"- {coll} p={rows[0]['p']}: fastest algorithm per (problem, b): "
                       + ", ".join(f"{a} {n}" for a, n in sorted(wins.items(), key=lambda x: -x[1]))
                       + f"; guideline violations: {sum(1 for v in viol if v[0] == coll)} G2, "
                       f"{sum(1 for v in viol if v[4] == 'G1')} G1.")
    if t_g:
        body.append("## Calibration")
        body.append("")
        calibration(t_g, pub, body)
        lin = t_g.get(("gatherv", "linear", "same", 10))
        summary.append(f"- calibration: linear MPI_Gatherv p=560 b=10 = {fmt(lin)} us simulated "
                       f"(Träff measured min 1236 NEC, 1014 MVAPICH, 176 Open MPI).")
    for sec, pattern in (("Real MPI on this machine", "real/*.csv"), ("SMPI sweeps", "smpi/sweep_*.csv")):
        files = sorted(glob.glob(os.path.join(res, pattern)))
        if not files:
            continue
        body.append(f"## {sec}")
        body.append("")
        if sec.startswith("Real"):
            body.append("Oversubscribed ranks on a 2-core machine: use the ratios, not the absolute "
                        "numbers. Metric: r (run time, PAP paper eq. 1), median over repetitions.")
            body.append("")
        for f in files:
            rows = read(f)
            base = os.path.splitext(os.path.basename(f))[0]
            title = base.replace("sweep_", "").replace("_", " ")
            if sec.startswith("Real"):
                line = sweep(rows, f"{title} (real MPI)", body, res, "real_" + base, "r", "median_us")
            else:
                metric = "r" if float(rows[0]["max_delay_ms"]) else "t"
                stat = "mean_us" if metric == "r" else "min_us"
                line = sweep(rows, title + " (SMPI)", body, res, base, metric, stat)
            if line:
                summary.append(line)
    for part in (("pap", "pap_tables.md"), ("fft", "fft_table.md"), ("topo", "summary.md"),
                 ("cluster", "tables.md")):
        path = os.path.join(res, *part)
        if os.path.exists(path):
            text = open(path).read().replace("](", "](%s/" % part[0])   # its images
            body.append("#" + text if text.startswith("# ") else text)   # a section here
    body += rma_demo(os.path.join(res, "rma", "rma_demo.csv"))
    out.append("## Summary")
    out.append("")
    out += summary
    if os.path.exists(timing):
        out.append("")
        out.append("Wall time of the demo steps:")
        out.append("")
        out.append("```")
        out.append(open(timing).read().rstrip())
        out.append("```")
    out.append("")
    out += body
    with open(os.path.join(res, "report.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(summary))

