#!/usr/bin/python3
"""Online tuning under SimGrid's SMPI (sim/run): collx linked into the
program (no interposer), its end at MPI_Finalize. SMPI (3.32) finalizes a
rank before it deletes MPI_COMM_SELF's attributes, where the end was
hooked, so the end found MPI gone and wrote no cache; collx's own
MPI_Finalize (src/core/api/smpi_finalize.smpi.c) now runs it first.

proxy_app (bench/proxy_app.c) on ib-6x8, 12 ranks placed on 3 nodes of 4
by the hostfile H, 40 iterations, COLLX_TUNE_ONLINE=1 with short trials,
a fresh COLLX_TUNE_CACHE file, COLLX_VERBOSE=1, twice:

  1. "OK"; sites settle from trials ("-> ALG" lines) and at MPI_Finalize
     rank 0 says "online tuning: N settled choices (N new) written to
     FILE": the file holds one rule per site settled (collective,
     communicator size, message class), each on an algorithm a
     communicator of that site chose;
  2. again, with COLLX_STATS=JSON: "N settled choices from FILE", none of
     those sites tried again, nothing written anew, and the report's
     "online" member lists each of them as from the cache, on the
     cached algorithm.

  run_online_smpi.py --sim-run sim/run --platform ib-6x8 --hostfile H --app proxy_app
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ENV = {"COLLX_TUNE_ONLINE": "1", "COLLX_VERBOSE": "1", "COLLX_TUNE_WARMUP": "2",
       "COLLX_TUNE_CALLS": "2"}
ARGS = ["--iters", "40"]
# collx: online MPI_Allreduce (p=12, 16..31 B): trying ... | ... -> hier (the ...
SITE = re.compile(r"^collx: online MPI_(\w+) \(p=(\d+), (\d+)\.\.\d+ B\): (.*)$", re.M)
CHOSE = re.compile(r" -> (\w+) \(")


def run(a, tmp, env):
    cmd = [a.sim_run, a.platform, "12", "--", a.app] + ARGS
    print("+", " ".join(f"{k}={v}" for k, v in env.items()), " ".join(cmd), flush=True)
    base = {k: v for k, v in os.environ.items() if not k.startswith("COLLX_")}
    base.update(env, SIM_HOSTFILE=a.hostfile)
    # cwd: smpirun leaves its hostfile in the working directory when a rank fails
    r = subprocess.run(cmd, env=base, cwd=tmp, capture_output=True, text=True, timeout=120)
    print(r.stdout + r.stderr, flush=True)
    return r


def sites(text):
    """({site: {algorithms chosen}}, {sites tried}) of COLLX_VERBOSE's lines,
    a site (collective, communicator size, class's smallest size)."""
    chosen, tried = {}, set()
    for coll, p, lo, rest in SITE.findall(text):
        key = (coll.lower(), int(p), int(lo))
        if rest.startswith("trying "):
            tried.add(key)
        m = CHOSE.search(rest)
        if m:
            chosen.setdefault(key, set()).add(m[1])
    return chosen, tried


def cached(path, bad):
    """{site: algorithm} of the cache file's rules."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        bad.append(f"the cache file {path}: {e}")
        return {}
    return {(r["collective"], r["comm_size"]["min"], r["msg_size"]["min"]): r["algorithm"]
            for r in doc.get("rules", [])}


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--sim-run", "--platform", "--hostfile", "--app"):
        ap.add_argument(opt, required=True)
    a = ap.parse_args()
    for k in ("sim_run", "hostfile", "app"):   # the runs' cwd is a temporary one
        setattr(a, k, os.path.abspath(getattr(a, k)))
    bad = []
    with tempfile.TemporaryDirectory(prefix="collx_online_smpi_") as tmp:
        cache, stats = os.path.join(tmp, "cache.json"), os.path.join(tmp, "stats.json")
        env = dict(ENV, COLLX_TUNE_CACHE=cache)
        r = run(a, tmp, env)
        if r.returncode != 0 or ", OK" not in r.stdout:
            bad.append(f"run 1: proxy_app failed (exit {r.returncode}) or printed no OK")
        chosen, _ = sites(r.stderr)
        if not chosen:
            bad.append("run 1: no site settled (no '-> ALG' line)")
        said = re.search(r"online tuning: (\d+) settled choices \((\d+) new\) written to (\S+)",
                         r.stderr)
        if not said or said[3] != cache or int(said[1]) != len(chosen) or \
                int(said[2]) != len(chosen):
            bad.append(f"run 1: want 'online tuning: {len(chosen)} settled choices "
                       f"({len(chosen)} new) written to {cache}' at MPI_Finalize")
        got = cached(cache, bad) if os.path.exists(cache) else {}
        if not os.path.exists(cache):
            bad.append(f"run 1: no cache file {cache} (online tuning's end did not run)")
        elif set(got) != set(chosen) or any(alg not in chosen[s] for s, alg in got.items()):
            bad.append(f"run 1: the cache's sites {got}, want one per site settled, on an "
                       f"algorithm chosen there: {chosen}")
        if not bad:
            r = run(a, tmp, dict(env, COLLX_STATS=stats))
            if r.returncode != 0 or ", OK" not in r.stdout:
                bad.append(f"run 2: proxy_app failed (exit {r.returncode}) or printed no OK")
            if f"online tuning: {len(got)} settled choices from {cache}" not in r.stderr:
                bad.append(f"run 2: want 'online tuning: {len(got)} settled choices from "
                           f"{cache}' at MPI_Init")
            _, tried = sites(r.stderr)
            if tried & set(got):
                bad.append(f"run 2: cached sites tried again: {sorted(tried & set(got))}")
            if "written to" in r.stderr:
                bad.append("run 2: the cache written anew (nothing new settled)")
            try:
                with open(stats) as f:
                    online = json.load(f).get("online", [])
            except (OSError, ValueError) as e:
                online = []
                bad.append(f"run 2: the COLLX_STATS report {stats}: {e}")
            listed = {(s["collective"], s["comm_size"], s["msg_min"]): (s["chosen"], s["from"])
                      for s in online if s["from"] == "cache"}
            want = {s: (alg, "cache") for s, alg in got.items()}
            if listed != want:
                bad.append(f"run 2: the report's sites from the cache {listed}, want {want}")
    if bad:
        print("run_online_smpi: FAILED\n  " + "\n  ".join(bad))
        return 1
    print(f"run_online_smpi: OK ({len(got)} sites written at MPI_Finalize, read back)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
