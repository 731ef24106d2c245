#!/usr/bin/python3
"""Table 5 of the PAP paper from bench/fft_table.sh's raw outputs: total,
run and elapsed time per gather algorithm, with each one's total time
relative to LS, and the paper's values beside. Also writes DIR/fft.csv."""
import csv
import os
import sys

D = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "python", "proficz_fft_published.csv")) as f:
    paper = {r["algorithm"]: r for r in csv.DictReader(
        line for line in f if not line.startswith("#"))}


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


out = csv.writer(open(os.path.join(D, "fft.csv"), "w"))
out.writerow(["where", "algorithm", "total_s", "run_s", "elapsed_s", "result_ok"])
for where, name in (("smpi", "SMPI tryton-1gbe-48, 8 nodes"), ("real", "real MPI, this machine")):
    rows, head = parse(os.path.join(D, where + ".txt"))
    if not rows:
        continue
    base = next((r for r in rows if r["algorithm"] == "linear_sync"), rows[0])
    print(f"### Table 5 shape: {name}\n\n`{head}`\n")
    print("| algorithm | total [s] | run r [s] | elapsed e [s] | total vs LS | "
          "paper total [s] | paper r [s] | paper e [s] | paper total vs LS |")
    print("|---|---|---|---|---|---|---|---|---|")
    pb = float(paper["linear_sync"]["total_s"])
    for r in rows:
        out.writerow([where, r["algorithm"], r["total_s"], r["run_s"], r["elapsed_s"], int(r["ok"])])
        p = paper.get(r["algorithm"])
        pc = (f"{float(p['total_s']):.3f} | {float(p['run_s']):.3f} | {float(p['elapsed_s']):.3f} | "
              f"{pb / float(p['total_s']):.3f}") if p else "- | - | - | -"
        flag = "" if r["ok"] else " (WRONG RESULT)"
        print(f"| {r['algorithm']}{flag} | {r['total_s']:.3f} | {r['run_s']:.4f} | "
              f"{r['elapsed_s']:.4f} | {base['total_s'] / r['total_s']:.3f} | {pc} |")
    print()
print("'vs LS' = total(LS) / total(algorithm); > 1 is faster than LS. "
      "The paper ran 1000 iterations x 100 repetitions on 8 Tryton nodes (1 GbE); "
      "'native' = the paper's 'MPI' row (Open MPI's default gather).")
