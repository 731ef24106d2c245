#!/usr/bin/python3
"""Online tuning test: online_app (online_app.c) under mpirun with
COLLX_TUNE_ONLINE=1 and a fresh cache directory, five runs in a row:

  1. p=4, nothing cached: every site (allreduce and bcast at three sizes on
     MPI_COMM_WORLD, on a communicator of 3 ranks and one of 1) settles
     from trials, within the cap; every result checked against the MPI's
     own; every rank on the same algorithm; COLLX_VERBOSE says what was
     tried and chosen; one cache file, named by the fingerprint's hash,
     holds every site; the COLLX_STATS JSON lists them;
  2. p=4 again: every site starts settled from the cache (no trial call),
     on the same algorithms, and the file is not rewritten;
  3. p=3 (another fingerprint): nothing from the cache, trials again, a
     second file; the p=4 file untouched;
  4. p=3 with COLLX_TUNE_CACHE naming a copy of the p=4 file: ignored
     ("the number of ranks differs"), trials, the file written anew;
  5. p=4 without online tuning, COLLX_RULES = the p=4 cache file: every
     site runs what the cache says (the cache is a rules file);
  6. p=4, a rule with "candidates" and COLLX_TUNE_CANDIDATES: the lists
     tried are native, the rule's algorithm, its candidates, then the
     variable's; COLLX_TUNE_CACHE=off writes nothing.

  run_online.py --mpiexec M --npflag -n --flags "..." --launcher openmpi|mpich
                --app online_app --preload libcollx_pmpi.so
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

CALLS, WARMUP, PER, CAP = 25, 4, 5, 15   # the site settles at call 4 + 15 < 25
SITE = re.compile(r"^site (\d+) (\w+) (\d+) (\w+) trials=(\d+) cache=([01])$", re.M)


def launch(a, np, mode, env):
    preload = a.preload
    if os.environ.get("LD_PRELOAD"):   # what the test run preloads (MPICH's yield helper)
        preload = ":".join(x for x in (preload, os.environ["LD_PRELOAD"]) if x)
    env = dict(env, LD_PRELOAD=preload)
    cmd = [a.mpiexec, a.npflag, str(np)] + a.flags.split()
    for k, v in env.items():
        cmd += ["-x", f"{k}={v}"] if a.launcher == "openmpi" else ["-genv", k, v]
    cmd += [a.app, mode, str(CALLS), str(CAP)]
    print("+", " ".join(cmd), flush=True)
    base = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and
            not k.startswith("COLLX_")}
    r = subprocess.run(cmd, env=base, capture_output=True, text=True, timeout=150)
    print(r.stdout + r.stderr, flush=True)
    return r


def sites(r, bad, what):
    """{(comm size, coll, class): (algorithm, trials, cache)} from the site lines."""
    if r.returncode != 0 or "online app: OK" not in r.stdout:
        bad.append(f"{what}: the program failed (exit {r.returncode}) or printed no OK")
    out = {}
    for p, coll, nbytes, alg, trials, cache in SITE.findall(r.stdout):
        out[(int(p), coll, int(nbytes).bit_length())] = (alg, int(trials), int(cache))
    return out


def cache_rules(path):
    """{(comm size, coll, class): algorithm} and the fingerprint of a cache
    file; ({}, {}) when it cannot be read."""
    try:
        d = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"run_online: {path}: {e}")
        return {}, {}
    rules = {}
    for r in d["rules"]:
        lo, hi = r["msg_size"]["min"], r["msg_size"]["max"]
        if hi != max(2 * lo - 1, 0) or r["comm_size"]["min"] != r["comm_size"]["max"]:
            raise ValueError(f"not a site: {r}")
        rules[(r["comm_size"]["min"], r["collective"], lo.bit_length())] = r["algorithm"]
    return rules, d["fingerprint"]


def expect(cond, bad, text):
    if not cond:
        bad.append(text)


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--mpiexec", "--npflag", "--launcher", "--app", "--preload"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--flags", default="")
    a = ap.parse_args()
    bad = []
    with tempfile.TemporaryDirectory(prefix="collx_online_") as tmp:
        cache = os.path.join(tmp, "cache")
        env = {"COLLX_TUNE_ONLINE": "1", "COLLX_TUNE_CACHE": cache, "COLLX_VERBOSE": "1",
               "COLLX_TUNE_WARMUP": str(WARMUP), "COLLX_TUNE_CALLS": str(PER),
               "COLLX_TUNE_MAX_TRIALS": str(CAP)}
        want_keys = {(p, c, n.bit_length()) for p in (4, 3, 1) for c, sizes in
                     (("allreduce", (8, 800, 40000)), ("bcast", (8, 4000, 100000)))
                     for n in sizes}

        # 1. p=4, from trials
        stats = os.path.join(tmp, "stats1.json")
        r = launch(a, 4, "tune", dict(env, COLLX_STATS=stats))
        first = sites(r, bad, "run 1")
        expect(set(first) == want_keys, bad, f"run 1: sites {sorted(first)}")
        for k, (alg, trials, c) in first.items():
            expect(1 <= trials <= CAP and not c, bad, f"run 1: {k}: {trials} trials, cache {c}")
        tried = re.findall(r"collx: online MPI_\w+ \(p=\d+, [\d.]+ B\): trying ", r.stderr)
        settled = re.findall(r"collx: online MPI_\w+ \(p=\d+, [\d.]+ B\): .* -> (\w+) ", r.stderr)
        expect(len(tried) == len(want_keys) and len(settled) == len(want_keys), bad,
               f"run 1: COLLX_VERBOSE said {len(tried)} trying, {len(settled)} settled")
        files = glob.glob(os.path.join(cache, "*.json"))
        expect(len(files) == 1 and re.fullmatch(r"[0-9a-f]{16}\.json",
                                                os.path.basename(files[0] if files else "")),
               bad, f"run 1: cache files {files}")
        p4file = files[0] if files else ""
        if p4file:
            rules, fp = cache_rules(p4file)
            expect(rules == {k: v[0] for k, v in first.items()}, bad,
                   f"run 1: the cache {rules} is not what ran {first}")
            expect(fp.get("ranks") == 4 and fp.get("nodes") == 1 and
                   fp.get("ranks_per_node") == 4 and fp.get("hash") in p4file, bad,
                   f"run 1: fingerprint {fp}")
        if os.path.exists(stats):
            online = json.load(open(stats)).get("online", [])
            got = {(s["comm_size"], s["collective"], s["msg_min"].bit_length()):
                   (s["chosen"], s["trial_calls"], s["from"]) for s in online}
            expect(got == {k: (v[0], v[1], "trials") for k, v in first.items()}, bad,
                   f"run 1: COLLX_STATS online section {got}")
        else:
            bad.append("run 1: no COLLX_STATS file")
        before = open(p4file).read() if p4file else ""

        # 2. p=4 again: from the cache
        r = launch(a, 4, "cached", env)
        second = sites(r, bad, "run 2")
        expect({k: v[0] for k, v in second.items()} == {k: v[0] for k, v in first.items()},
               bad, f"run 2: {second} is not run 1's {first}")
        expect(all(t == 0 and c == 1 for _, t, c in second.values()), bad,
               "run 2: trial calls or a site not from the cache")
        expect(f"{len(want_keys)} settled choices from {p4file}" in r.stderr and
               "trying" not in r.stderr, bad, "run 2: COLLX_VERBOSE did not say it read the cache")
        expect(p4file and open(p4file).read() == before, bad, "run 2: the cache was rewritten")

        # 3. p=3: another fingerprint
        r = launch(a, 3, "tune", env)
        third = sites(r, bad, "run 3")
        want3 = {(p, c, k) for p, c, k in want_keys if p != 4} | \
                {(2, c, k) for _, c, k in want_keys}
        expect(set(third) == want3, bad, f"run 3: sites {sorted(third)}")
        expect(all(t >= 1 and c == 0 for _, t, c in third.values()), bad,
               "run 3: a site came from the cache of p=4")
        expect(len(glob.glob(os.path.join(cache, "*.json"))) == 2, bad,
               "run 3: no second cache file")
        expect(p4file and open(p4file).read() == before, bad, "run 3: the p=4 file changed")

        # 4. p=3 told to use (a copy of) the p=4 file: ignored, then written anew
        named = os.path.join(tmp, "named.json")
        with open(named, "w") as f:
            f.write(before)
        r = launch(a, 3, "tune", dict(env, COLLX_TUNE_CACHE=named))
        fourth = sites(r, bad, "run 4")
        expect(all(t >= 1 and c == 0 for _, t, c in fourth.values()) and fourth, bad,
               "run 4: a site came from the p=4 file")
        expect("another fingerprint (the number of ranks differs)" in r.stderr, bad,
               "run 4: COLLX_VERBOSE did not say why the file was ignored")
        expect(cache_rules(named)[1].get("ranks") == 3, bad,
               "run 4: the named file was not written anew for p=3")

        # 5. the p=4 cache as a rules file, no online tuning
        if p4file:
            rules, _ = cache_rules(p4file)
            r = launch(a, 4, "rules", {"COLLX_RULES": p4file})
            fifth = sites(r, bad, "run 5")
            expect({k: v[0] for k, v in fifth.items()} == rules, bad,
                   f"run 5: under COLLX_RULES={p4file} ran {fifth}, the file says {rules}")
            expect(all(t == 0 for _, t, _ in fifth.values()), bad, "run 5: trials")

        # 6. a rule's candidates, and COLLX_TUNE_CANDIDATES, make the list
        rules6 = os.path.join(tmp, "rules6.json")
        with open(rules6, "w") as f:
            json.dump({"rules": [{"collective": "allreduce", "algorithm": "recursive_doubling",
                                  "candidates": ["reduce_bcast"]}]}, f)
        r = launch(a, 4, "tune", dict(env, COLLX_RULES=rules6, COLLX_TUNE_CACHE="off",
                                      COLLX_TUNE_CANDIDATES="bcast:binomial"))
        sixth = sites(r, bad, "run 6")
        lists = set(re.findall(r"collx: online (MPI_\w+) \(p=4, [\d.]+ B\): trying ([\w, ]+?), "
                               r"\d+ calls each", r.stderr))
        expect(lists == {("MPI_Allreduce", "native, recursive_doubling, reduce_bcast"),
                         ("MPI_Bcast", "native, binomial")}, bad, f"run 6: tried {lists}")
        expect(len(sixth) == len(want_keys), bad, f"run 6: sites {sorted(sixth)}")
        expect(len(glob.glob(os.path.join(cache, "*.json"))) == 2, bad,
               "run 6: COLLX_TUNE_CACHE=off, yet a file was written")
    if bad:
        print("run_online: FAILED\n  " + "\n  ".join(bad))
        return 1
    print("run_online: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
