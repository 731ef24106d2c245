#!/usr/bin/python3
"""collx tune --mpi-file in SMPI (issue 64), small: ib-6x8, 16 ranks on
2 nodes, bcast at 256 KiB and 1 MiB, where sim/run's default
(binomial_tree) is slow. SMPI's algorithms are read from SimGrid itself
(its answer to an unknown name) and measured as native:<name>; the SMPI
options file must come out, pass `collx rules check` and name one of
SimGrid's bcast algorithms other than the default; collx's rules beside
it record it (provenance.mpi_tuning). Then a run with only the file
(SMPI_OPTIONS_FILE, no collx choice: collbench's native is SMPI's own
call) uses the chosen algorithm: SimGrid logs that it set it
(smpi_coll at info: "Switch to algorithm X for collective bcast", the
last such line), and its simulated times are those of a run forcing X
(--cfg=smpi/bcast:X) and not those of the default. Then
`collx validate --mpi-file` on held-out sizes. About 25 s (8 s of CPU).

    test_tune_smpi_mpi.py REPO_ROOT BUILD_SMPI_DIR"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT, BUILD = sys.argv[1], sys.argv[2]
PLAT, P = "ib-6x8", "16"
SIZES = [262144, 1048576]
failures = []


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def collx(*args, cwd):
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")}
    return subprocess.run(["/usr/bin/python3", "-m", "collx", *args], capture_output=True,
                          text=True, timeout=300, env=env, cwd=cwd)


# this build's programs, not the checkout's build/smpi
PROGRAMS = ["--collbench", os.path.join(BUILD, "bench", "collbench"),
            "--collx-info", os.path.join(BUILD, "bench", "collx_info")]


def bcast(d, name, env):
    """{size: median us} and SimGrid's log of a native bcast run."""
    csv_ = os.path.join(d, f"{name}.csv")
    flags = " ".join(x for x in (env.pop("SMPI_FLAGS", ""), "--log=smpi_coll.thres:info") if x)
    p = subprocess.run([os.path.join(ROOT, "sim", "run"), PLAT, P, "--",
                        os.path.join(BUILD, "bench", "collbench"), "--coll", "bcast",
                        "--algs", "native", "-m", ",".join(map(str, SIZES)), "-i", "2",
                        "-x", "1", "-q", "--csv", csv_],
                       capture_output=True, text=True, timeout=120,
                       env={**os.environ, **env, "SMPI_FLAGS": flags})
    if p.returncode != 0:
        return {}, p.stdout + p.stderr
    with open(csv_) as f:
        rows = [r for r in csv.DictReader(f) if r.get("metric", "r") == "r"]
    return {int(r["size_bytes"]): float(r["median_us"]) for r in rows}, p.stdout + p.stderr


def last_switch(log):
    got = re.findall(r"Switch to algorithm (\S+) for collective bcast", log)
    return got[-1] if got else None


with tempfile.TemporaryDirectory(prefix="tune-smpi-mpi.") as d:
    opts, rules = os.path.join(d, "smpi.opts"), os.path.join(d, "rules.json")
    p = collx("tune", *PROGRAMS, "--platform", PLAT, "-n", P, "--comm-sizes", P,
              "--colls", "bcast",
              "--sizes", "256K:1M", "--algs", "binomial,scatter_allgather", "--no-params",
              "--budget", "5", "--mpi-file", opts, "--out", rules, "--report",
              os.path.join(d, "rep"), cwd=d)
    expect(p.returncode == 0 and os.path.exists(opts),
           f"tune --mpi-file in SMPI writes the SMPI options file:\n{p.stderr[-2000:]}")
    listed = re.search(r"mpi: .*SimGrid.*: bcast: (.*)", p.stderr)
    names = [x.split(" (")[0] for x in listed.group(1).split(", ")] if listed else []
    expect("scatter_LR_allgather" in names and "binomial_tree" not in names and
           "automatic" not in names,
           f"SMPI's bcast algorithms read from SimGrid, the default and automatic left "
           f"out: {names}")
    if not os.path.exists(opts):
        sys.exit(1)
    text = open(opts).read()
    print(text)
    m = re.search(r"^--cfg=smpi/bcast:(\S+)", text, re.M)
    chosen = m.group(1) if m else None
    expect(chosen in names, f"the file names one of SimGrid's bcast algorithms: {chosen}")
    c = collx("rules", "check", opts, rules, cwd=d)
    expect(c.returncode == 0 and "SMPI options" in c.stdout,
           f"collx rules check reads both files:\n{c.stdout}{c.stderr}")
    with open(rules) as f:
        mt = json.load(f)["provenance"].get("mpi_tuning", {})
    expect(mt.get("env") == {"SMPI_OPTIONS_FILE": opts} and mt.get("mpi") == "smpi",
           f"collx's rules were decided against the tuned SMPI: {mt}")
    expect(os.path.exists(os.path.join(d, "rep", "mpi_candidates.md")),
           "the report lists every candidate's geometric mean and worst")

    # the run with only the file uses the chosen algorithm
    dflt, log_d = bcast(d, "default", {})
    tuned, log_t = bcast(d, "tuned", {"SMPI_OPTIONS_FILE": opts})
    forced, _ = bcast(d, "forced", {"SMPI_FLAGS": f"--cfg=smpi/bcast:{chosen}"})
    expect(last_switch(log_d) == "binomial_tree" and last_switch(log_t) == chosen,
           f"SimGrid sets the file's bcast algorithm ({last_switch(log_t)}; default "
           f"{last_switch(log_d)})")
    expect(tuned and tuned == forced,
           f"with only the file the simulated times are the forced {chosen}'s: "
           f"{tuned} vs {forced}")
    expect(all(tuned.get(s, 1e30) < dflt.get(s, 0) for s in SIZES),
           f"... and faster than the default: {tuned} vs {dflt}\n{log_t[-500:]}")

    v = collx("validate", *PROGRAMS, "--platform", PLAT, "-n", P, "--comm-sizes", P,
              "--colls", "bcast",
              "--sizes", "256K:1M", "--mpi-file", opts, "--rules", rules, "--out",
              os.path.join(d, "val"), cwd=d)
    row = re.search(r"^\| bcast \| \d+ \| ([0-9.]+) \(([0-9.]+)\) \| (\d+) \|", v.stdout, re.M)
    expect(v.returncode == 0 and row and float(row.group(1)) < 1 and row.group(3) == "0",
           f"validate: SMPI tuned below its default at the held-out sizes, nowhere "
           f"slower:\n{v.stdout[-1500:]}{v.stderr[-800:]}")

print(f"{len(failures)} failures" if failures else "all ok")
sys.exit(1 if failures else 0)
