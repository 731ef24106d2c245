#!/usr/bin/python3
"""The demo's tune step for real, small: bench/demo_tune.sh on ib-6x8 with
16 ranks, bcast, 8 B..4 KiB, a budget of 3 host seconds, then the demo
report on its output. Both steps must say ok in status.tsv and in
timings.txt, print progress as they go, and the report's 'Measured
selection (tuner)' section must give the validation's ratios, every rule
and the cost as the tuner's files have them (tests/python/tuner_section.py).

    test_tune_demo.py REPO_ROOT"""
import os
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
import tuner_section  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python"), "DEMO_TUNE_NP": "16",
       "DEMO_TUNE_COLLS": "bcast", "DEMO_TUNE_SIZES": "8:4K", "DEMO_TUNE_BUDGET": "3"}
failures = []


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


with tempfile.TemporaryDirectory(prefix="tune-demo.") as d:
    p = subprocess.run([os.path.join(ROOT, "bench", "demo_tune.sh"), d], capture_output=True,
                       text=True, timeout=150, env=ENV)
    print(p.stderr[-2000:])
    expect(p.returncode == 0, f"demo_tune.sh exits 0 (got {p.returncode})")
    with open(os.path.join(d, "tune", "status.tsv")) as f:
        status = [ln.split("\t")[:2] for ln in f.read().splitlines()[1:]]
    expect(status == [["tune", "ok"], ["validate", "ok"]], f"status.tsv: both ok ({status})")
    with open(os.path.join(d, "timings.txt")) as f:
        timings = f.read()
    expect("tune (ib-6x8, p=16)" in timings and "validate (ib-6x8, p=16)" in timings and
           "FAILED" not in timings, "timings.txt: a line per step")
    err = p.stderr.splitlines()
    expect(sum(ln.startswith("[demo tune] ") for ln in err) == 2 and
           any(ln.startswith("[tune ") for ln in err) and
           any(ln.startswith("[validate] bcast p=") for ln in err),
           "progress: each step and its runs print lines as they go")
    r = subprocess.run([sys.executable, "-m", "collx", "report", d], capture_output=True,
                       text=True, timeout=120, env=ENV)
    expect(r.returncode == 0, "the report runs" + ("" if r.returncode == 0 else ": " +
                                                   r.stderr[-2000:]))
    with open(os.path.join(d, "report.md")) as f:
        text = f.read()
    tuner_section.check_full("tune step", text, d, expect)
    expect("no status.tsv" not in text and "skipped" not in tuner_section.summary_line(text),
           "the section says nothing is missing")

print(f"{len(failures)} failures" if failures else "all ok")
sys.exit(1 if failures else 0)
