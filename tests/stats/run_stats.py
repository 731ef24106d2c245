#!/usr/bin/python3
"""COLLX_STATS test: runs stats_app (tests/stats/stats_app.c) under mpirun
with COLLX_ALLREDUCE_ALGORITHM=rabenseifner and reads what collx reported
at MPI_Finalize.

  run_stats.py --mpiexec M --npflag -n --flags "..." --launcher openmpi|mpich
               --np P --app PROGRAM [--preload libcollx_pmpi.so] [--linked]
               --form csv|json|table|stderr|off

csv, json, table: COLLX_STATS=<temporary file>.csv / .json / .txt;
stderr: COLLX_STATS=1 (rank 0 prints the table); off: COLLX_STATS unset,
and the program must print nothing but its "stats app: OK".

What the program calls (stats_app.c) and so what the report must say, p
ranks, bytes summed over ranks (each rank's send + receive payload):
  allreduce rabenseifner blocking     10 calls, 10 * p * 2 * 8000 bytes
  allreduce recursive_doubling blocking 2 calls (a non-commutative op:
            rabenseifner's fallback), 2 * p * 2 * 16 bytes
  bcast native blocking                3 calls, 3 * p * 400 bytes
  gatherv native blocking              2 calls, 2 * 2 * 8 * p(p+1)/2 bytes
                                       (every rank's send, the root's receive)
  reduce native blocking               1 call (its final check), 4p + 4 bytes
                                       (interposed only: linked, it calls MPI)
  linked only: allreduce rabenseifner nonblocking 4 calls, 4 * p * 16000,
               bcast native nonblocking 1 call, p * 400 bytes
  fallbacks: allreduce, rabenseifner -> recursive_doubling, blocking, 2
             calls, "needs a commutative operation"
With --solo (`stats_app solo`) rank 0 alone makes 5 allreduce of 1000
doubles on MPI_COMM_SELF and the other ranks no collective call at all
(no final reduce either): allreduce rabenseifner blocking 5 calls on 1
rank, 5 * 16000 bytes; nothing else, no fallback.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile


def expected(p, linked, solo):
    if solo:
        return {("allreduce", "rabenseifner", "blocking"): (5, 1, 5 * 16000)}
    rows = {
        ("allreduce", "rabenseifner", "blocking"): (10, 10 * p * 2 * 8000),
        ("allreduce", "recursive_doubling", "blocking"): (2, 2 * p * 2 * 16),
        ("bcast", "native", "blocking"): (3, 3 * p * 400),
        ("gatherv", "native", "blocking"): (2, 2 * 2 * 8 * p * (p + 1) // 2),
    }
    if linked:
        rows[("allreduce", "rabenseifner", "nonblocking")] = (4, 4 * p * 16000)
        rows[("bcast", "native", "nonblocking")] = (1, p * 400)
    else:
        rows[("reduce", "native", "blocking")] = (1, 4 * p + 4)
    return {key: (calls, p, nbytes) for key, (calls, nbytes) in rows.items()}


FALLBACK = ("allreduce", "rabenseifner", "recursive_doubling", "blocking")
REASON = "needs a commutative operation"
REQUIREMENT = "a commutative operation"


def launch(a, env):
    preload = a.preload or ""
    if os.environ.get("LD_PRELOAD"):   # what the test run preloads (MPICH's yield helper)
        preload = ":".join(x for x in (preload, os.environ["LD_PRELOAD"]) if x)
    if preload:
        env = dict(env, LD_PRELOAD=preload)
    cmd = [a.mpiexec, a.npflag, str(a.np)] + a.flags.split()
    for k, v in env.items():
        cmd += ["-x", f"{k}={v}"] if a.launcher == "openmpi" else ["-genv", k, v]
    cmd.append(a.app)
    if a.solo:
        cmd.append("solo")
    print("+", " ".join(cmd), flush=True)
    # the launcher itself runs without the preload
    base = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and
            not k.startswith("COLLX_")}
    r = subprocess.run(cmd, env=base, capture_output=True, text=True, timeout=120)
    print(r.stdout + r.stderr)
    return r


def parse_table(text):
    """Rows of the human table: {(coll, alg, mode): (calls, ranks, bytes, s)}
    and {(coll, asked, ran, mode): (calls, ranks, reason)}."""
    served, fallbacks, part = {}, {}, None
    for line in text.splitlines():
        if line.startswith("collx: COLLX_STATS"):
            part = "served"
        elif line.startswith("collx: fallbacks"):
            part = "fallbacks"
        elif part == "served" and re.match(r"^[a-z_]+ +[a-z0-9_]+ +(blocking|nonblocking) ", line):
            f = line.split()
            served[(f[0], f[1], f[2])] = (int(f[3]), int(f[4]), int(f[5]), float(f[6]))
        elif part == "fallbacks" and re.match(r"^[a-z_]+ +[a-z0-9_]+ +[a-z0-9_?]+ +"
                                              r"(blocking|nonblocking) +\d", line):
            f = line.split(None, 6)
            fallbacks[(f[0], f[1], f[2], f[3])] = (int(f[4]), int(f[5]), f[6])
    return served, fallbacks


def parse_csv(text):
    served, fallbacks = {}, {}
    rows = list(csv.DictReader(text.splitlines()))
    for r in rows:
        if r["table"] == "served":
            served[(r["collective"], r["algorithm"], r["mode"])] = (
                int(r["calls"]), int(r["ranks"]), int(r["bytes"]), float(r["seconds"]))
        elif r["table"] == "fallback":
            fallbacks[(r["collective"], r["asked"], r["algorithm"], r["mode"])] = (
                int(r["calls"]), int(r["ranks"]), r["reason"], r["requirement"])
        else:
            raise ValueError(f"unknown table {r['table']!r}")
    return served, fallbacks


def parse_json(text):
    d = json.loads(text)
    served = {(r["collective"], r["algorithm"], r["mode"]):
              (r["calls"], r["ranks"], r["bytes"], r["seconds"]) for r in d["served"]}
    fallbacks = {(r["collective"], r["asked"], r["ran"], r["mode"]):
                 (r["calls"], r["ranks"], r["reason"], r["requirement"])
                 for r in d["fallbacks"]}
    return served, fallbacks, d


def check_report(a, served, fallbacks, bad):
    want = expected(a.np, a.linked, a.solo)
    for key, counts in want.items():
        got = served.get(key)
        if not got:
            bad.append(f"no row {key}")
            continue
        if got[:3] != counts:
            bad.append(f"{key}: calls, ranks, bytes = {got[:3]}, want {counts}")
        if not got[3] > 0:
            bad.append(f"{key}: time {got[3]} s, want > 0")
    for key in served:
        if key not in want:
            bad.append(f"unexpected row {key}: {served[key]}")
    fb = fallbacks.get(FALLBACK)
    if a.solo:
        if fallbacks:
            bad.append(f"unexpected fallbacks {fallbacks}")
        return
    if not fb:
        bad.append(f"no fallback row {FALLBACK}")
    else:
        if fb[0] != 2 or fb[1] != a.np or fb[2] != REASON:
            bad.append(f"fallback {FALLBACK}: {fb[:3]}, want (2, {a.np}, {REASON!r})")
        if len(fb) > 3 and fb[3] != REQUIREMENT:
            bad.append(f"fallback requirement {fb[3]!r}, want {REQUIREMENT!r}")
    for key in fallbacks:
        if key != FALLBACK:
            bad.append(f"unexpected fallback {key}: {fallbacks[key]}")


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--mpiexec", "--npflag", "--launcher", "--app", "--form"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--flags", default="")
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--preload", default="")
    ap.add_argument("--linked", action="store_true")
    ap.add_argument("--solo", action="store_true")
    a = ap.parse_args()
    bad = []
    env = {"COLLX_ALLREDUCE_ALGORITHM": "rabenseifner"}
    with tempfile.TemporaryDirectory(prefix="collx_stats_") as tmp:
        out = os.path.join(tmp, "stats." + {"csv": "csv", "json": "json"}.get(a.form, "txt"))
        if a.form in ("csv", "json", "table"):
            env["COLLX_STATS"] = out
        elif a.form == "stderr":
            env["COLLX_STATS"] = "1"
        r = launch(a, env)
        text = r.stdout + r.stderr
        if r.returncode != 0 or "stats app: OK" not in r.stdout:
            bad.append(f"the program failed (exit code {r.returncode}) or printed no OK")
        if a.form == "off":
            extra = [l for l in text.splitlines() if l.strip() and l != "stats app: OK"]
            if extra:
                bad.append(f"COLLX_STATS unset, yet the run printed {extra[:5]}")
        elif a.form == "stderr":
            served, fallbacks = parse_table(r.stderr)
            check_report(a, served, fallbacks, bad)
        else:
            if "collx" in text:
                bad.append("COLLX_STATS names a file, yet collx printed something")
            if not os.path.exists(out):
                bad.append(f"no {out}")
            else:
                report = open(out).read()
                print(f"---- {out}\n{report}")
                if a.form == "csv":
                    served, fallbacks = parse_csv(report)
                elif a.form == "json":
                    served, fallbacks, d = parse_json(report)
                    if d.get("ranks") != a.np:
                        bad.append(f"json ranks {d.get('ranks')}, want {a.np}")
                else:
                    served, fallbacks = parse_table(report)
                check_report(a, served, fallbacks, bad)
    if bad:
        print("run_stats: FAILED\n  " + "\n  ".join(bad))
        return 1
    print(f"run_stats: OK ({a.form}, p={a.np}{', linked' if a.linked else ''}"
          f"{', solo' if a.solo else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
