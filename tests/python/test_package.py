#!/usr/bin/python3
"""python/collx: every module imports; `collx sweep --check all` passes
(every sweep and group expands, every collective and algorithm it names is
registered, platforms and hostfiles exist) and `--dry-run all` shows every
sweep; the check fails on a sweep naming an unknown algorithm; a sweep's
derived values come out as the shell scripts computed them.

    test_package.py REPO_ROOT COLLX_INFO"""
import importlib
import json
import os
import pkgutil
import re
import subprocess
import sys
import tempfile

ROOT, INFO = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(ROOT, "python"))
ENV = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")}
failures = []


def run_collx(*args):
    p = subprocess.run([sys.executable, "-m", "collx", *args], capture_output=True,
                       text=True, env=ENV, cwd=ROOT, timeout=60)
    return p.returncode, p.stdout + p.stderr


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


import collx  # noqa: E402

modules = [m.name for m in pkgutil.walk_packages(collx.__path__, "collx.")
           if m.name != "collx.__main__"]   # that one runs the command line
for name in modules:
    try:
        importlib.import_module(name)
        expect(True, f"import {name}")
    except Exception as e:   # any error is the finding
        expect(False, f"import {name}: {e!r}")

rc, out = run_collx("--help")
expect(rc == 0 and "sweep" in out, "python3 -m collx --help")

from collx.sweep import spec  # noqa: E402

cat = spec.load()
rc, out = run_collx("sweep", "--check", "--info", INFO, "all")
expect(rc == 0 and out.rstrip().endswith("problems: OK"),
       "sweep --check all" + ("" if rc == 0 else ":\n" + out[-3000:]))
rc, out = run_collx("sweep", "--dry-run", "-o", "/nonexistent", "all")
shown = {m.group(1) for m in re.finditer(r"^# (\S+): \d+ runs", out, re.M)}
expect(rc == 0 and shown == set(cat["sweeps"]),
       f"sweep --dry-run all shows every sweep (missing: {set(cat['sweeps']) - shown})")

# a sweep naming an algorithm collbench does not have must not pass
with tempfile.TemporaryDirectory() as d:
    bad = os.path.join(d, "bad.json")
    with open(bad, "w") as f:
        json.dump({"extends": "demo-real", "axes": {"coll": ["bcast"]},
                   "args": ["--coll", "{coll}", "--algs", "native,no_such_alg", "--csv", "{part}"]}, f)
    rc, out = run_collx("sweep", "--check", "--info", INFO, bad)
    expect(rc == 1 and "no_such_alg" in out, "sweep --check fails on an unknown algorithm")

# PAP's sizes and delays as the former bench/pap_sweep.sh computed them
base = {"root": ROOT, "mpi": "openmpi"}
runs = spec.expand(cat, "pap-demo", base, {}).runs
got = [(r.vars.get("coll"), r.vars.get("bytes"), r.vars.get("max_delay")) for r in runs]
expect(got == [("scatter", 174760, "1us"), ("gather", 174760, "1us"),
               ("scatter", 174760, "50ms"), ("gather", 174760, "50ms")],
       f"pap-demo's runs: {got}")
runs = spec.expand(cat, "hier", base, {"np": [1024], "coll": ["alltoallv"]}).runs
expect({r.vars.get("variant") for r in runs} == {"smpi:pair", "hier", "hier_ms"},
       "hier: flat alltoallv at p=1024 is SMPI's pairwise")

print(f"{len(failures)} failures" if failures else "all ok")
sys.exit(1 if failures else 0)
