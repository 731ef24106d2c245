"""Table 5 of the PAP paper from sweep `fft`'s raw outputs (DIR/smpi.txt,
DIR/real-<n>.txt): total, run and elapsed time per gather algorithm, with
each one's total time relative to LS, and the paper's values beside. Also
writes DIR/fft.csv.

    python3 -m collx tables fft DIR [-o OUT.md]
"""
import csv
import glob
import os

from collx import published
from collx.tables import command


def parse(path):
    rows, head = [], ""
    if not os.path.exists(path):
        return rows, head
    for line in open(path):
        if line.startswith("# fft"):
            head = line[2:].strip()
        elif line.strip() and not line.startswith("#"):
            f = line.split()
            rows.append(dict(algorithm=f[0], total_s=float(f[1]), run_s=float(f[2]),
                             elapsed_s=float(f[3]), ok=len(f) == 4))
    return rows, head


def mean_of_runs(paths):
    """Per algorithm, the mean of every run's numbers (and the runs' totals)."""
    runs = [parse(p) for p in paths]
    runs = [r for r in runs if r[0]]
    if not runs:
        return [], "", 0
    rows = []
    for i, r0 in enumerate(runs[0][0]):
        same = [r[0][i] for r in runs if len(r[0]) > i]
        row = {k: sum(x[k] for x in same) / len(same) for k in ("total_s", "run_s", "elapsed_s")}
        row.update(algorithm=r0["algorithm"], ok=all(x["ok"] for x in same),
                   totals=[x["total_s"] for x in same])
        rows.append(row)
    return rows, runs[0][1], len(runs)


def gains(rows):
    """algorithm -> (total, run r) saved against LS (linear_sync), in %;
    rows as mean_of_runs gives them (or the paper's, as numbers)."""
    base = next((r for r in rows if r["algorithm"] == "linear_sync"), None)
    if not base:
        return {}
    return {r["algorithm"]: (100 * (1 - float(r["total_s"]) / float(base["total_s"])),
                             100 * (1 - float(r["run_s"]) / float(base["run_s"])))
            for r in rows}


def paper_gains():
    return gains(list(published.proficz_fft().values()))


def tables(d):
    """The markdown lines; writes d/fft.csv on the way."""
    paper = published.proficz_fft()
    md = []
    with open(os.path.join(d, "fft.csv"), "w", newline="") as f:
        out = csv.writer(f, lineterminator="\r\n")   # csv's default, as before
        out.writerow(["where", "algorithm", "total_s", "run_s", "elapsed_s", "result_ok", "runs"])
        real_runs = sorted(glob.glob(os.path.join(d, "real-*.txt"))) or [os.path.join(d, "real.txt")]
        for where, name, paths in (("smpi", "SMPI tryton-1gbe-48, 8 nodes", [os.path.join(d, "smpi.txt")]),
                                   ("real", "real MPI, this machine", real_runs)):
            rows, head, nruns = mean_of_runs(paths)
            if not rows:
                continue
            if nruns > 1:
                name += f", mean of {nruns} runs (total's min-max in brackets)"
            base = next((r for r in rows if r["algorithm"] == "linear_sync"), rows[0])
            md += [f"### Table 5 shape: {name}\n\n`{head}`\n",
                   "| algorithm | total [s] | run r [s] | elapsed e [s] | total vs LS | "
                   "paper total [s] | paper r [s] | paper e [s] | paper total vs LS |",
                   "|---|---|---|---|---|---|---|---|---|"]
            pb = float(paper["linear_sync"]["total_s"])
            for r in rows:
                out.writerow([where, r["algorithm"], f"{r['total_s']:.4f}", f"{r['run_s']:.5f}",
                              f"{r['elapsed_s']:.5f}", int(r["ok"]), nruns])
                p = paper.get(r["algorithm"])
                pc = (f"{float(p['total_s']):.3f} | {float(p['run_s']):.3f} | {float(p['elapsed_s']):.3f} | "
                      f"{pb / float(p['total_s']):.3f}") if p else "- | - | - | -"
                flag = "" if r["ok"] else " (WRONG RESULT)"
                spread = (f" [{min(r['totals']):.3f}-{max(r['totals']):.3f}]" if nruns > 1 else "")
                md.append(f"| {r['algorithm']}{flag} | {r['total_s']:.3f}{spread} | {r['run_s']:.4f} | "
                          f"{r['elapsed_s']:.4f} | {base['total_s'] / r['total_s']:.3f} | {pc} |")
            md.append("")
    md.append("'vs LS' = total(LS) / total(algorithm); > 1 is faster than LS. "
              "The paper ran 1000 iterations x 100 repetitions on 8 Tryton nodes (1 GbE); "
              "'native' = the paper's 'MPI' row (Open MPI's default gather).")
    return md


def main(argv):
    command("collx tables fft", "dir", tables, argv)
