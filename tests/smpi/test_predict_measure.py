#!/usr/bin/python3
"""collx predict --measure (issue 74, item 2d), small: cost_app on the
platform calibrated on this kind of machine (docs/results/calibrate/
openmpi-p2), 2 ranks, 5 iterations of an alltoallv and an allreduce
with 300 us of computation each; simulated (built with collx-smpicc),
then run for real (the same source built here with Open MPI's mpicc,
unmodified: collxrun preloads collx) twice each, native and tuned, and
the two compared (the best launch of each). It must write the section "Predicted vs measured"
(predict.md), measure.json and measure.csv, each error the predicted
over the measured best less one, the measured times those of the real
runs (every COLLX_STATS file there; native at least the 1.5 ms of
computation the program does). Bad input: --measure-only where no
predict was made, a launch that fails, a program that is not there: one
message each, exit 1, and no measure.json left. About 30 s.

    test_predict_measure.py REPO_ROOT BUILD_SMPI_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT, BUILD = sys.argv[1], sys.argv[2]
APP = os.path.join(BUILD, "tests", "smpi", "cost_app")
ARGS = ["5", "16", "300"]
PLATFORM = os.path.join(ROOT, "docs", "results", "calibrate", "openmpi-p2", "calibrated.xml")
MPICC, MPIRUN = "/usr/bin/mpicc.openmpi", "/usr/bin/mpirun.openmpi"
LAUNCH = f"{MPIRUN} --allow-run-as-root --oversubscribe -n 2"
failures = []


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def predict(out, *extra, measure=LAUNCH, program=None):
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")}
    cmd = ["/usr/bin/python3", "-m", "collx", "predict", "--platform", PLATFORM, "-n", "2",
           "--budget", "5", "--single", "0", "--check", "cost_app: 2 ranks",
           "--measure", measure, "--measure-launches", "2", "--out", out, *extra]
    if program:
        cmd += ["--measure-program", program]
    return subprocess.run(cmd + ["--", APP, *ARGS], capture_output=True, text=True,
                          timeout=600, env=env)


def main():
    collxrun = os.path.join(ROOT, "build", "openmpi", "bin", "collxrun")
    if not os.access(collxrun, os.X_OK) or not os.access(MPICC, os.X_OK):
        print(f"SKIP: the real side needs Debian's Open MPI and {collxrun} (./run build)")
        sys.exit(77)
    out = tempfile.mkdtemp(prefix="collx-measure-")
    real = os.path.join(out, "cost_app.real")
    subprocess.run([MPICC, "-O2", "-o", real, os.path.join(ROOT, "tests", "smpi", "cost_app.c")],
                   check=True)
    p = predict(out, program=real)
    print(p.stderr[-3000:])
    expect(p.returncode == 0, f"collx predict --measure exits 0 (got {p.returncode})")
    expect("## Predicted vs measured" in p.stdout and "| native |" in p.stdout,
           "the report has the section Predicted vs measured")
    try:
        with open(os.path.join(out, "measure.json")) as f:
            sec = json.load(f)
        with open(os.path.join(out, "predict.json")) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        expect(False, f"measure.json and predict.json readable ({e})")
        return out
    rows = {r["label"]: r for r in sec["rows"]}
    expect(set(rows) == {"native", "tuned"}, f"measured: native and tuned (got {sorted(rows)})")
    expect(doc.get("measured", {}).get("rows") == sec["rows"], "predict.json carries them too")
    sims = {r["label"]: r for r in doc["runs"]}
    for label, r in rows.items():
        launches = sec["per_launch"][label]
        best = min(s for s, _ in launches)
        expect(len(launches) == 2 and r["measured_s"] == best,
               f"{label}: the best of 2 launches ({launches})")
        expect(abs(r["error"] - (sims[label]["seconds"] / best - 1)) < 1e-9,
               f"{label}: error = predicted / measured - 1 ({r['error']:+.3f})")
        for k in range(2):
            stats = os.path.join(out, "measured", f"{label}.{k}.json")
            with open(stats) as f:
                job = json.load(f)["job"]
            expect(abs(job["seconds"] - launches[k][0]) < 1e-9 and job["ranks"] == 2,
                   f"{label} launch {k}: its real COLLX_STATS ({job})")
    expect(rows["native"]["measured_s"] >= 1.5e-3,
           f"native measured with the program's 1.5 ms of work ({rows['native']['measured_s']} s)")
    expect("measured_speedup" in rows["tuned"], "tuned's speed-up over native, measured")
    with open(os.path.join(out, "measure.csv")) as f:
        head = f.readline()
    expect(head.startswith("label,launches,predicted_s,measured_s"), f"measure.csv ({head!r})")

    # bad input: each one message, exit 1, nothing that looks like a measurement
    empty = tempfile.mkdtemp(prefix="collx-measure-empty-")
    for what, where, run in (
            ("--measure-only with no predict before", empty,
             lambda: predict(empty, "--measure-only")),
            ("a launch that fails", out,
             lambda: predict(out, "--measure-only", program=real, measure="/bin/false")),
            ("no such program", out,
             lambda: predict(out, "--measure-only", program=os.path.join(out, "nothing")))):
        q = run()
        lines = [ln for ln in q.stderr.splitlines() if ln.startswith("predict: ")]
        expect(q.returncode == 1 and lines, f"{what}: exit 1 and one message "
               f"(got {q.returncode}: {lines[:1] or q.stderr[-300:]})")
        expect(not os.path.exists(os.path.join(where, "measure.json")),
               f"{what}: no measure.json left")
    shutil.rmtree(empty, ignore_errors=True)
    return out


OUT = main()
if failures:
    print(f"predict --measure: {len(failures)} failure(s); its files: {OUT}")
    sys.exit(1)
shutil.rmtree(OUT, ignore_errors=True)
print("predict --measure: OK")
