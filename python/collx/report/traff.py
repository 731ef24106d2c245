"""The report's section on Träff's linear-time Gatherv/Scatterv: Table 1
shape (sweep demo-traff, DIR/smpi/traff_<coll>.csv) beside the paper's NEC
MPI numbers, the guideline verdicts, the calibration table."""
import os

from collx import published
from collx.csvio import read_rows
from collx.report.section import Section
from collx.tables import traff as traff_tables

CLAIM = ("TUW_Gatherv, a tree built in linear time from the block sizes, keeps "
         "Guideline (2) (MPI_Gatherv no slower than MPI_Allreduce + a padded MPI_Gather) "
         "where the libraries' MPI_Gatherv break it, and is 5 to more than 20 times faster "
         "than them on small problems (Table 1: NEC MPI, p = 560, real QDR InfiniBand).")


def span(xs):
    return f"{min(xs):.0f}-{max(xs):.0f}x" if xs else "-"


def section(res):
    s = Section("Träff (Gatherv/Scatterv)",
                "1. Träff: linear-time irregular gather and scatter", CLAIM)
    pub = published.traff()
    found = {}
    for coll in ("gatherv", "scatterv"):
        path = os.path.join(res, "smpi", f"traff_{coll}.csv")
        rows = read_rows(path) if os.path.exists(path) else []
        if not rows:
            s.missing(f"the {coll.capitalize()} table", "demo-traff", "smpi")
            continue
        s.body += [f"### Table 1 shape: {coll}, p = {rows[0]['p']}", ""]
        t, viol = traff_tables.table(rows, coll, pub if coll == "gatherv" else None,
                                     s.body, res, f"traff_{coll}")
        wins = traff_tables.wins(t, coll)
        s.body += ["Fastest algorithm per (problem, b): " +
                   ", ".join(f"{a} {n}" for a, n in sorted(wins.items(), key=lambda x: -x[1])) +
                   f"; guideline violations: {sum(1 for v in viol if v[0] == coll)} G2, "
                   f"{sum(1 for v in viol if v[4] == 'G1')} G1.", ""]
        found[coll] = t, viol
    if "gatherv" in found:
        t = found["gatherv"][0]
        s.body += ["### Calibration", ""]
        traff_tables.calibration(t, pub, s.body)
        lin = t.get(("gatherv", "linear", "same", 10))
        if lin:
            s.body += [f"Linear MPI_Gatherv, p = 560, b = 10: {lin:.0f} us simulated; Träff measured "
                       "(min) 1236 NEC, 1014 MVAPICH, 176 Open MPI.", ""]
    headline(s, found, pub)
    return s


def headline(s, found, pub):
    """ours: Guideline (2) verdicts and tuw's speed-up over native, beside
    the same counts of the paper's Table 1."""
    if "gatherv" not in found:
        return
    t, viol = found["gatherv"]
    n = traff_tables.cells(t, "gatherv")
    ours_tuw = traff_tables.violations(viol, "gatherv", "tuw")
    ours_lib = traff_tables.violations(viol, "gatherv", "native")
    speed = traff_tables.small_speedups(t, "gatherv")
    lib, tuw, np_, pspeed = traff_tables.paper_counts(pub)
    s.ours = (f"tuw breaks Guideline (2) in {ours_tuw}/{n} cells, native MPI_Gatherv in "
              f"{ours_lib}/{n}; tuw is {span(speed)} faster than native MPI_Gatherv for b <= 100 "
              f"(SMPI ib-qdr-36x16, p = 560) — paper (Table 1's minima, same 5 % rule): "
              f"TUW_Gatherv {tuw}/{np_}, NEC MPI_Gatherv {lib}/{np_}, {span(pspeed)} faster.")
    if "scatterv" in found:
        tv, vv = found["scatterv"]
        s.ours += (f" Scatterv (no table in the paper): tuw {traff_tables.violations(vv, 'scatterv', 'tuw')}"
                   f"/{traff_tables.cells(tv, 'scatterv')}, native "
                   f"{traff_tables.violations(vv, 'scatterv', 'native')}/{traff_tables.cells(tv, 'scatterv')}.")
    if ours_tuw > tuw:
        s.misses.append(f"tuw breaks Guideline (2) in {ours_tuw} cells where TUW_Gatherv broke it "
                        f"in {tuw}.")
    if speed and pspeed and max(speed) < max(pspeed):
        row = pub[(1, "same", 1)]
        nat, tuw1 = t.get(("gatherv", "native", "same", 1)), t.get(("gatherv", "tuw", "same", 1))
        why = (f" (problem same, b = 1: ours native {nat:.0f} us / tuw {tuw1:.0f} us, NEC MPI_Gatherv "
               f"{float(row['gatherv_min']):.0f} us / TUW_Gatherv {float(row['tuw_min']):.0f} us)"
               if nat and tuw1 else "")
        s.misses.append(f"Our largest speed-up of tuw over native MPI_Gatherv ({max(speed):.0f}x) "
                        f"stays below the paper's ({max(pspeed):.0f}x){why}.")
    if not s.misses:
        s.misses.append("nowhere in these counts.")
