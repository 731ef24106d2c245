"""The report's section on Proficz's arrival-pattern-aware scatter and
gather: Tables 3-4 (sweep pap-demo, DIR/pap/pap.csv) and Table 5, the FFT
(sweep fft-demo, DIR/fft/), each beside the paper's numbers."""
import glob
import os

from collx.report.section import Section, nest
from collx.tables import fft as fft_tables
from collx.tables import pap as pap_tables

CLAIM = ("sorting the processes by arrival time (and a background thread) makes scatter "
         "and gather faster under imbalanced arrivals: BSLN up to 1.27x over LIN (Table 3), "
         "BSLS up to 2.52x over LS (Table 4) on 48 nodes of 1 GbE, and the FFT 3.3 % faster "
         "in total, its gathers 16.7 % (Table 5).")
NAMES = {3: "BSLN / LIN", 4: "BSLS / LS"}


def section(res):
    s = Section("Proficz (PAP scatter/gather)",
                "2. Proficz: arrival-pattern-aware scatter and gather", CLAIM)
    heads = []
    path = os.path.join(res, "pap", "pap.csv")
    val, p, platform = pap_tables.load(path) if os.path.exists(path) else ({}, 0, "")
    if val:
        s.body += nest(pap_tables.tables(path), 3)
        heads += tables_3_4(s, val, p, platform)
    else:
        s.missing("Tables 3-4", "pap-demo", "pap")
    d = os.path.join(res, "fft")
    rows, where = fft_runs(d)
    if rows:
        s.body += nest(fft_tables.tables(d), 3) + [""]
        heads += table_5(s, rows, where)
    else:
        s.missing("Table 5, the FFT", "fft-demo", "fft")
    if heads:
        s.ours = "; ".join(heads) + "."
        if not s.misses:
            s.misses.append("nowhere in the cells measured.")
    return s


def tables_3_4(s, val, p, platform):
    """ours: the ratio in the cell with the largest delay (and size) we
    measured, beside the paper's; misses: every delayed cell below it."""
    heads = []
    for table in (3, 4):
        cells = pap_tables.compared(val, table)
        if not cells:
            continue
        k, d, ours, paper = cells[-1]
        heads.append(f"{NAMES[table]} {ours:.2f}x at {k}K floats, {d} ms (SMPI {platform}, p = {p}) "
                     f"— paper {paper:.2f}x")
        below = [f"{k}K floats at {d} ms: {o:.2f}x vs {q:.2f}x" for k, d, o, q in cells
                 if d > 0 and o < q - 0.05]
        if below:
            s.misses.append(f"{NAMES[table]} below the paper's by more than 0.05 in "
                            + "; ".join(below) + ".")
    return heads


def fft_runs(d):
    """The FFT's rows for the headline: SMPI's if it ran, else the mean of
    the real runs; and where they come from."""
    rows, _, _ = fft_tables.mean_of_runs([os.path.join(d, "smpi.txt")])
    if rows:
        return rows, "SMPI"
    rows, _, _ = fft_tables.mean_of_runs(sorted(glob.glob(os.path.join(d, "real-*.txt"))))
    return rows, "real MPI on this machine"


def table_5(s, rows, where):
    """ours: the best PAP-aware gather (SLS or BSLS) against LS in the FFT."""
    ours, paper = fft_tables.gains(rows), fft_tables.paper_gains()
    best = max((a for a in ("sls", "bsls") if a in ours), key=lambda a: ours[a][0], default=None)
    if best is None:
        return []
    head = (f"FFT: {best.upper()} {ours[best][0]:.1f} % less total time than LS, gathers "
            f"{ours[best][1]:.1f} % shorter ({where}) — paper {paper[best][0]:.1f} %, {paper[best][1]:.1f} %")
    if ours[best][0] < paper[best][0]:
        s.misses.append(f"The FFT's total gain ({ours[best][0]:.1f} %) stays below the paper's "
                        f"({paper[best][0]:.1f} %).")
    return [head]
