"""Träff's Table 1 shape from sweep `demo-traff` (DIR/smpi/traff_<coll>.csv,
collbench --guidelines): MPI_Gather per algorithm, the Guideline (2) bound,
MPI_Gatherv (or Scatterv) per algorithm, guideline violations marked, the
paper's NEC MPI columns beside (published/traff_published.csv); the
calibration table against the three libraries Träff measured; and the
counts the report's headline needs (violations, speed-ups, the paper's)."""
import os
from collections import defaultdict

from collx.plots import demo as figures
from collx.tables import fmt

PROBLEMS = ["same", "random", "spikes", "decreasing", "alternating", "twoblocks"]
BS = (1, 10, 100, 1000, 10000)
TOLERANCE = 0.05   # collbench's default --tolerance, used for the paper's cells too


def times(rows):
    """t[(coll, alg, problem, b)] = min t; mm[(problem, b)] = (m, m');
    viol = {(coll, alg, problem, b, 'G1' or 'G2')} violated."""
    t, mm = {}, {}
    for r in rows:
        if r["kind"] == "time" and r["metric"] == "t":
            t[(r["coll"], r["alg"], r["problem"], int(r["b"]))] = float(r["min_us"])
            mm[(r["problem"], int(r["b"]))] = (r["m"], r["m_pad"])
    viol = {(r["coll"], r["alg"], r["problem"], int(r["b"]), r["metric"])
            for r in rows if r["kind"] == "guideline" and r["violated"] == "1"}
    return t, mm, viol


def table(rows, coll, pub, out, figdir, name):
    """Table 1 shape: MPI_Gather per algorithm, Guideline (2), MPI_Gatherv per
    algorithm (t, min over repetitions); violations in bold with a mark.
    Appends to out, draws figdir/name.png; returns (t, viol)."""
    reg = "gather" if coll == "gatherv" else "scatter"
    t, mm, viol = times(rows)
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
        out.append("Published (Träff Table 1, NEC MPI on a real 35x16 QDR cluster, min) in the *paper* columns.")
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
    """Our linear Gatherv and binomial Gather (problem `same`) beside NEC MPI,
    MVAPICH and Open MPI on Träff's real machine."""
    out.append("Calibration of ib-qdr-36x16 (problem `same`, min times in us): our simulated linear "
               "MPI_Gatherv and binomial MPI_Gather against the three libraries Träff measured on the real "
               "machine (Tables 1-3).")
    out.append("")
    out.append("| b | ours gatherv/linear | NEC | MVAPICH | Open MPI | ours gather/binomial | NEC | MVAPICH | Open MPI |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for b in BS:
        row = [str(b), fmt(t.get(("gatherv", "linear", "same", b)))]
        row += [pub[(k, "same", b)]["gatherv_min"] for k in (1, 2, 3)]
        row += [fmt(t.get(("gather", "binomial", "same", b)))]
        row += [pub[(k, "same", b)]["gather_min"] for k in (1, 2, 3)]
        out.append("| " + " | ".join(row) + " |")
    out.append("")


def wins(t, coll):
    """How often each v-algorithm is the fastest over (problem, b)."""
    algs = sorted({k[1] for k in t if k[0] == coll})
    n = defaultdict(int)
    for pr in PROBLEMS:
        for b in BS:
            vs = {a: t[(coll, a, pr, b)] for a in algs if (coll, a, pr, b) in t}
            if vs:
                n[min(vs, key=vs.get)] += 1
    return dict(n)


def cells(t, coll):
    """The number of (problem, b) cells measured for coll."""
    return len({(k[2], k[3]) for k in t if k[0] == coll})


def violations(viol, coll, alg, guideline="G2"):
    return sum(1 for v in viol if v[0] == coll and v[1] == alg and v[4] == guideline)


def small_speedups(t, coll, base="native", new="tuw", bmax=100):
    """base / new for b <= bmax, every problem but two blocks (where a
    linear algorithm sends almost nothing): the paper's 'small instances'."""
    return [t[(coll, base, pr, b)] / t[(coll, new, pr, b)]
            for pr in PROBLEMS if pr != "twoblocks" for b in BS
            if b <= bmax and (coll, base, pr, b) in t and (coll, new, pr, b) in t]


def paper_counts(pub, table_no=1, bmax=100):
    """The same counts for the paper's table: Guideline (2) violations of the
    library's MPI_Gatherv and of TUW_Gatherv (min times, 5 % tolerance), the
    number of cells, and MPI_Gatherv / TUW_Gatherv for the small instances."""
    rows = [(k, r) for k, r in pub.items() if k[0] == table_no]
    g2 = {k: float(r["g2_min"]) * (1 + TOLERANCE) for k, r in rows}
    lib = sum(1 for k, r in rows if float(r["gatherv_min"]) > g2[k])
    tuw = sum(1 for k, r in rows if float(r["tuw_min"]) > g2[k])
    speed = [float(r["gatherv_min"]) / float(r["tuw_min"]) for k, r in rows
             if k[1] != "twoblocks" and k[2] <= bmax]
    return lib, tuw, len(rows), speed
