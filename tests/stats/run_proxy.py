#!/usr/bin/python3
"""proxy_app (bench/proxy_app.c) under COLLX_STATS: the profile of the
cycle profile -> tune -> run (bench/README.md, "proxy_app").

  run_proxy.py --sim-run sim/run --platform ib-6x8 --hostfile H --np 12
               --app proxy_app --case profile|forced|corrupt

SMPI (collx linked, CX_ calls), placed by the hostfile H on 3 nodes of 4:
a grid of 3 rows (one per node) x 4, 3 iterations.
  profile: "OK", the CSV line, and the JSON profile row by row: alltoall
           on 4 ranks of one node, allgather on 3 ranks one per node,
           allreduce (16 B and 8 KiB) and bcast on 12; all native; and
           the tuner reads it (collx.tune.profile, 12 ranks, 4 per node):
           the points it measures, the column's allgather on a shape of
           its own (allgather-1ppn), nothing set aside.
  forced:  every collective forced to a collx algorithm
           (COLLX_<COLL>_ALGORITHM): "OK", each served by it, no fallback.
  corrupt: --corrupt damages one result of each collective: "FAILED (6
           wrong results)" and a non-zero exit status.

  run_proxy.py --mpiexec M --npflag -n --flags "..." --launcher openmpi|mpich
               --preload libcollx_pmpi.so --np 6 --app proxy_app --case real|forced

A real MPI, the plain MPI program under the interposer, nodes faked as
2 consecutive ranks (COLLX_RANKS_PER_NODE=2): a grid of np/2 rows x 2,
"OK" and a profile row for each collective at its communicator size and
node layout: a row's 2 ranks on one node, a column's np/2 ranks one per
node on np/2 nodes (the fake layout goes by rank in MPI_COMM_WORLD, as
real nodes), the world's np on np/2 nodes of 2; forced as above (hier,
the node-aware algorithms, on the fake nodes).
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_stats import check_profile, parse_json, profile_key, tuner_reads  # noqa: E402

ITERS = 3
FORCED = {"smpi": {"allreduce": "hier", "alltoall": "bruck", "allgather": "ring",
                   "bcast": "binomial"},
          "real": {"allreduce": "hier", "alltoall": "hier", "allgather": "hier",
                   "bcast": "hier"}}
# SMPI, 3 nodes of 4: (coll, comm size, ranks per node, nodes, class) -> calls
SMPI_ROWS = {("alltoall", 4, 4, 1, 2048, 4095): ITERS,
             ("allgather", 3, 1, 3, 512, 1023): ITERS,
             ("allreduce", 12, 4, 3, 16, 31): 2 * ITERS,
             ("allreduce", 12, 4, 3, 8192, 16383): ITERS,
             ("bcast", 12, 4, 3, 4096, 8191): 1}
# What the tuner measures there, {key: {(q, bytes)}}: each class's bounds in
# 4-byte elements; the column (3 ranks, one per node) on --comm-shape 3x1.
TUNER_POINTS = {"alltoall": {(4, 2048), (4, 4092)},
                "allgather-1ppn": {(3, 512), (3, 1020)},
                "allreduce": {(12, 16), (12, 28), (12, 8192), (12, 16380)},
                "bcast": {(12, 4096), (12, 8188)}}
LINE = re.compile(r"^proxy_app: (\d+) ranks, (\d+) x (\d+), (\d+) iterations, [\d.]+ s, "
                  r"collectives [\d.]+ s \(share [\d.]+\), (OK|FAILED \((\d+) wrong results\))$",
                  re.M)


def launch(a, env, tmp, args):
    if a.sim_run:   # SMPI: the ranks share smpirun's environment
        cmd = [a.sim_run, a.platform, str(a.np), "--", a.app] + args
        env = dict(env, SIM_HOSTFILE=a.hostfile) if a.hostfile else env
    else:
        preload = ":".join(x for x in (a.preload, os.environ.get("LD_PRELOAD")) if x)
        cmd = [a.mpiexec, a.npflag, str(a.np)] + a.flags.split()
        for k, v in dict(env, LD_PRELOAD=preload).items():
            cmd += ["-x", f"{k}={v}"] if a.launcher == "openmpi" else ["-genv", k, v]
        cmd += [a.app] + args
    print("+", " ".join(cmd), flush=True)
    base = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and
            not k.startswith("COLLX_")}
    if a.sim_run:
        base.update(env)
    # cwd: smpirun leaves its hostfile in the working directory when a rank fails
    r = subprocess.run(cmd, env=base, cwd=tmp, capture_output=True, text=True, timeout=120)
    print(r.stdout + r.stderr)
    return r


def verdict(r, bad, grid, wrong=0):
    """The result line: ranks, rows x cols, iterations, OK or FAILED."""
    m = LINE.search(r.stdout)
    if not m:
        bad.append("no result line")
        return
    got = (int(m[1]), int(m[2]), int(m[3]), int(m[4]))
    if got[:3] != grid or got[3] != ITERS:
        bad.append(f"ranks, rows, cols, iterations {got}, want {grid + (ITERS,)}")
    if wrong and (m[6] is None or int(m[6]) != wrong or r.returncode == 0):
        bad.append(f"want FAILED ({wrong} wrong results) and a non-zero exit status "
                   f"(exit status {r.returncode})")
    if not wrong and (m[5] != "OK" or r.returncode != 0):
        bad.append(f"not OK (exit status {r.returncode})")


def check_csv(r, bad, grid):
    lines = r.stdout.splitlines()
    head = [i for i, l in enumerate(lines) if l.startswith("platform,ranks,")]
    if not head or head[0] + 1 >= len(lines):
        bad.append("no CSV header and row")
        return
    row = next(csv.DictReader(lines[head[0]:head[0] + 2]))
    if (int(row["ranks"]), int(row["rows"]), int(row["cols"])) != grid or row["wrong"] != "0" \
            or not 0 < float(row["coll_s"]) <= float(row["loop_s"]) + 1e-12:
        bad.append(f"CSV row {row}")


def report(path, bad):
    if not os.path.exists(path):
        bad.append(f"no {path}")
        return None
    with open(path) as f:
        text = f.read()
    print(f"---- {path}\n{text}")
    return parse_json(text, bad)


def smpi_case(a, tmp, bad):
    out = os.path.join(tmp, "profile.json")
    env, args, grid = {"COLLX_STATS": out}, ["--iters", str(ITERS)], (12, 3, 4)
    if a.case == "forced":
        env.update({f"COLLX_{c.upper()}_ALGORITHM": alg for c, alg in FORCED["smpi"].items()})
    r = launch(a, env, tmp, args + (["--csv"] if a.case == "profile" else []) +
               (["--corrupt"] if a.case == "corrupt" else []))
    verdict(r, bad, grid, 6 if a.case == "corrupt" else 0)
    if a.case == "corrupt":
        return
    got = report(out, bad)
    if not got:
        return
    served, fallbacks, job, prof, _ = got
    if tuple(job[:3]) != (12, 3, 4):
        bad.append(f"job {job}, want 12 ranks on 3 nodes of 4")
    want_alg = FORCED["smpi"] if a.case == "forced" else {}
    algs = {coll: alg for coll, alg, _ in served}
    if algs != {c: want_alg.get(c, "native") for c in FORCED["smpi"]} or fallbacks:
        bad.append(f"served by {algs}, fallbacks {fallbacks}")
    if a.case == "profile":
        check_csv(r, bad, grid)
        want = {profile_key(c, "blocking", q, ppn, n, lo, hi): (calls, 12)
                for (c, q, ppn, n, lo, hi), calls in SMPI_ROWS.items()}
        check_profile(prof, want, bad)
        tuner_reads(out, bad, p=12, node=4, points=TUNER_POINTS, skipped_want={})


def real_case(a, tmp, bad):
    out = os.path.join(tmp, "profile.json")
    env = {"COLLX_STATS": out, "COLLX_RANKS_PER_NODE": "2"}
    if a.case == "forced":
        env.update({f"COLLX_{c.upper()}_ALGORITHM": alg for c, alg in FORCED["real"].items()})
    r = launch(a, env, tmp, ["--iters", str(ITERS)])
    rows = a.np // 2
    verdict(r, bad, (a.np, rows, 2))
    got = report(out, bad)
    if not got:
        return
    served, fallbacks, _, prof, _ = got
    # (collective, comm size, ranks per node, nodes)
    shapes = {(k[0], k[2], k[3], k[4]) for k in prof}
    want = {("alltoall", 2, 2, 1), ("allgather", rows, 1, rows), ("allreduce", a.np, 2, rows),
            ("bcast", a.np, 2, rows)}
    if shapes != want:
        bad.append(f"profile rows (collective, comm size, ranks per node, nodes) "
                   f"{sorted(shapes)}, want {sorted(want)}")
    if a.case == "forced":
        algs = {coll: alg for coll, alg, _ in served}
        if algs != FORCED["real"] or fallbacks:
            bad.append(f"served by {algs}, fallbacks {fallbacks}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--case", required=True,
                    choices=("profile", "forced", "corrupt", "real"))
    ap.add_argument("--sim-run")
    ap.add_argument("--platform")
    ap.add_argument("--hostfile")
    for opt in ("--mpiexec", "--npflag", "--launcher", "--preload"):
        ap.add_argument(opt)
    ap.add_argument("--flags", default="")
    a = ap.parse_args()
    if a.sim_run and (not a.platform or a.np != 12 or a.case == "real"):
        ap.error("SMPI: --platform, --np 12 and --case profile|forced|corrupt")
    if not a.sim_run and (not (a.mpiexec and a.npflag and a.launcher and a.preload)
                          or a.np % 2 or a.case not in ("real", "forced")):
        ap.error("real MPI: --mpiexec, --npflag, --launcher, --preload, an even --np "
                 "and --case real|forced")
    for k in ("app", "sim_run", "hostfile", "preload"):   # the runs' cwd is a temporary one
        if getattr(a, k) and os.path.exists(getattr(a, k)):
            setattr(a, k, os.path.abspath(getattr(a, k)))
    bad = []
    with tempfile.TemporaryDirectory(prefix="collx_proxy_") as tmp:
        try:
            (smpi_case if a.sim_run else real_case)(a, tmp, bad)
        except subprocess.TimeoutExpired:
            bad.append("the run did not end within 120 s (a hang)")
    if bad:
        print("run_proxy: FAILED\n  " + "\n  ".join(bad))
        return 1
    print(f"run_proxy: OK ({a.case}, p={a.np})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
