#!/usr/bin/python3
"""./run tune end to end in SMPI, small: ib-6x8 with 16 ranks (2 nodes),
allreduce and gatherv, sizes 8 B..64 KiB, a budget of BUDGET host seconds
(less than the sampling wants: it stops for the budget).
The rules file must come out, cover every communicator size up to 16 and
every size up to 64 KiB (gatherv without msg_size), pick a collx algorithm
somewhere, and load in collx: collbench --algs selected with COLLX_RULES
reports in column ran what the rules say, at a point inside every rule
(communicator sizes off the tuner's grid included). The budget holds
(within one batch) and every batch printed a progress line. Then a run
under a memory limit of 0.5 GiB: the points above it are killed, said and
listed, the others measured.

    test_tune_smpi.py REPO_ROOT BUILD_SMPI_DIR"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT, BUILD = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(ROOT, "python"))
from collx.tune import rules as rulesmod  # noqa: E402

BUDGET, P, NODE, MAX = 3, 16, 8, 65536
failures = []


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def inside(r, key, default_lo, default_hi):
    b = r.get(key, {})
    return b.get("min", default_lo), b.get("max", default_hi)


with tempfile.TemporaryDirectory(prefix="tune-test.") as d:
    out = os.path.join(d, "rules.json")
    cmd = ["/usr/bin/python3", "-m", "collx", "tune", "--platform", "ib-6x8", "-n", str(P),
           "--colls", "allreduce,gatherv", "--sizes", f"8:{MAX}", "--budget", str(BUDGET),
           "--no-params", "--out", out, "--report", d]   # variants: the last part
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=100, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    print(p.stderr[-3000:])
    expect(p.returncode == 0, f"tune exits 0 (got {p.returncode})")
    if p.returncode or not os.path.exists(out):
        sys.exit(1)
    rules = rulesmod.load(out)
    expect({r["collective"] for r in rules} == {"allreduce", "gatherv"},
           "rules for both collectives")
    expect(all("msg_size" not in r for r in rules if r["collective"] == "gatherv"),
           "gatherv rules without msg_size")
    holes = [(c, q, m) for c in ("allreduce", "gatherv") for q in range(2, P + 1)
             for m in (8, 100, 3000, MAX)
             if rulesmod.match(rules, c, q, m, min(q, NODE), beyond="native") is None]
    expect(not holes, f"every communicator size 2..{P} and size 8..{MAX} B served "
           f"(holes: {holes[:5]})")
    picked = [r for r in rules if r["algorithm"] != "native"]
    expect(picked, f"the rules pick a collx algorithm somewhere ({len(picked)} rules)")
    # runners-up for online tuning, only where it tunes; the collbench runs
    # below load the file in collx (rules.c validates candidates loudly)
    cands = [r for r in rules if r.get("candidates")]
    expect(cands and all(r["collective"] == "allreduce" for r in cands) and
           all("native" in r["candidates"] for r in cands if r["algorithm"] != "native"),
           f"allreduce rules carry candidates ({len(cands)}; native among those of a "
           f"non-native choice), gatherv's none")

    meta = json.load(open(os.path.join(d, "tune.json")))
    batches = meta["measurements"]["batches"]
    spent = sum(b["cost"] for b in batches)
    expect(spent <= BUDGET + max(b["cost"] for b in batches),
           f"budget: batches cost {spent:.1f} s of {BUDGET} (within one batch)")
    expect(meta["stopped"] and "budget spent" in p.stderr,
           f"sampling stopped for the budget ({meta['stopped']!r})")
    lines = [x for x in p.stderr.splitlines() if re.search(r" p=\d+: .* = \d+ cases \(", x)]
    expect(len(lines) == len(batches) and all("spent" in x and "left" in x for x in lines),
           f"a progress line per batch with the budget ({len(lines)} lines, "
           f"{len(batches)} batches)")
    expect(os.path.exists(os.path.join(d, "report.md")) and
           os.path.exists(os.path.join(d, "measurements.csv")), "report and CSV written")

    # a point inside every rule, measured with --algs selected
    points = {}
    for r in rules:
        qlo, qhi = inside(r, "comm_size", 2, P)
        q = max(2, (qlo + qhi + 1) // 2)
        mlo, mhi = inside(r, "msg_size", 8, MAX)
        m = max(8, (mlo + 3) // 4 * 4)
        points.setdefault((r["collective"], q), set()).add(m)
    checked = chosen = 0
    for (c, q), ms in sorted(points.items()):
        csv_ = os.path.join(d, f"sel-{c}-{q}.csv")
        run = subprocess.run(
            [os.path.join(ROOT, "sim", "run"), "ib-6x8", str(q), "--",
             os.path.join(BUILD, "bench", "collbench"), "--coll", c, "--algs", "selected",
             "-m", ",".join(map(str, sorted(ms))), "-i", "1", "-x", "0", "-q", "--csv", csv_],
            capture_output=True, text=True, timeout=60, env={**os.environ, "COLLX_RULES": out})
        if run.returncode:
            expect(False, f"collbench {c} p={q} with the rules: {run.stderr[-500:]}")
            continue
        for row in csv.DictReader(open(csv_)):
            if row["metric"] != "r":
                continue
            m, rpn = int(row["size_bytes"]), int(row["ppn"])
            want = rulesmod.match(rules, c, q, m, rpn)
            checked += 1
            chosen += want != "native"
            if row["ran"] != want:
                expect(False, f"{c} p={q} {m} B: rules say {want}, collx ran {row['ran']}")
    expect(checked >= len(rules) and chosen > 0,
           f"column ran = the rules' choice at {checked} points ({chosen} not native)")

# a point that needs more memory than the limit: killed, said, skipped;
# the rest measured and the rules written
with tempfile.TemporaryDirectory(prefix="tune-test.") as d:
    out = os.path.join(d, "rules.json")
    p = subprocess.run(["/usr/bin/python3", "-m", "collx", "tune", "--platform", "ib-6x8",
                        "-n", "16", "--colls", "allgather", "--sizes", "1M:4M",
                        "--comm-sizes", "16", "--grid", "--mem-limit", "0.5", "--out", out,
                        "--report", d], capture_output=True, text=True, timeout=100,
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    killed = re.findall(r"([\w@=]+) at (\d+) B cannot be measured \(memory", p.stderr)
    if p.returncode != 0:
        print("the tune's last lines:\n" + "\n".join(p.stderr.splitlines()[-15:]))
    report = open(os.path.join(d, "report.md")).read() if p.returncode == 0 else ""
    expect(p.returncode == 0 and killed and os.path.exists(out) and
           all(f"| allgather | {a} | 16 | {m} | memory" in report for a, m in killed),
           f"memory limit: {len(killed)} points killed, said, listed in the report; "
           f"rules written (exit {p.returncode})")
    meta = json.load(open(os.path.join(d, "tune.json"))) if report else {}
    got = {(x["alg"], x["size_bytes"]) for x in meta.get("measurements", {}).get("samples", [])}
    expect(len(got) >= 6, f"the points within the limit measured ({len(got)})")

# variants: the knob table gives COLLX_BCAST_SEGMENTS values to try with
# pipeline_chain; at 16 ranks and 4 MiB, 32 segments beat the default 8
# (1818 us against 2838; native 3832): the rule carries the params, and
# collx, loading it, runs the call with them (its time is the variant's)
with tempfile.TemporaryDirectory(prefix="tune-test.") as d:
    out = os.path.join(d, "rules.json")
    p = subprocess.run(["/usr/bin/python3", "-m", "collx", "tune", "--platform", "ib-6x8",
                        "-n", "16", "--colls", "bcast", "--sizes", "4M:4M", "--comm-sizes", "16",
                        "--algs", "scatter_allgather,pipeline_chain,hier",
                        "--grid", "--timeout", "60", "--out", out, "--report", d],
                       capture_output=True, text=True, timeout=200, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    meta = json.load(open(os.path.join(d, "tune.json"))) if p.returncode == 0 else {"algs": {}}
    lab = "pipeline_chain@COLLX_BCAST_SEGMENTS=32"
    rules = rulesmod.load(out) if p.returncode == 0 else []
    want = [r for r in rules if r["algorithm"] == "pipeline_chain" and
            r.get("params") == {"COLLX_BCAST_SEGMENTS": 32}]
    expect(p.returncode == 0 and meta["algs"].get("bcast") == [
        "native", "scatter_allgather", "pipeline_chain", "pipeline_chain@COLLX_BCAST_SEGMENTS=2",
        lab, "hier", "hier@COLLX_HIER_INTER=native", "hier@COLLX_HIER_INTER=binomial",
        "hier@COLLX_HIER_INTER=scatter_allgather"] and want and
           "check: the rules load in collx" in p.stderr,
           f"params: the variants measured ({meta['algs'].get('bcast')}), the winner's rule "
           f"carries them ({want}), the rules load in collx:\n{p.stderr[-1500:]}")
    variant = [x["us"][0] for x in meta.get("measurements", {}).get("samples", [])
               if x["alg"] == lab]
    csv_ = os.path.join(d, "sel.csv")
    run = subprocess.run([os.path.join(ROOT, "sim", "run"), "ib-6x8", "16", "--",
                          os.path.join(BUILD, "bench", "collbench"), "--coll", "bcast", "--algs",
                          "selected", "-m", "4M", "-i", "3", "-x", "1", "-q", "--csv", csv_],
                         capture_output=True, text=True, timeout=60,
                         env={**os.environ, "COLLX_RULES": out})
    sel = [float(r["median_us"]) for r in csv.DictReader(open(csv_)) if r["metric"] == "r"] \
        if run.returncode == 0 else []
    expect(variant and sel and abs(sel[0] / variant[0] - 1) < 0.01,
           f"params applied per call: selected under the rules {sel} us, the variant measured "
           f"{variant} us")

print(f"{len(failures)} failures" if failures else "all ok")
sys.exit(1 if failures else 0)
