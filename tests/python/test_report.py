#!/usr/bin/python3
"""The demo report (python/collx/report/): one section per paper, in order,
each with the paper's claim and either this run's headline beside the
paper's figure ('ours:') and where we miss it, or one line per missing part
naming the sweep (of sweeps.json) that makes it; never a crash.

Three results directories, all from committed outputs: the committed demo
run (docs/results/demo, a DEMO_QUICK run: Träff only); a full one (that
demo plus the committed rma-demo points, PAP cells, the topology sweep's
8-node cases cut as topo-demo writes them, the hierarchical sweep's p=256
rows as demo-smpi would add them, the emulated cluster's tables, a real FFT
run, the committed tuner run and its validation, docs/results/tune/, laid
out as the demo's tune step writes them); an empty one; and the demo's tune
step itself (bench/demo_tune.sh) skipped and failing, whose section must
say so (tune.demo, in the SMPI build, runs it for real).

    test_report.py REPO_ROOT"""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile

import tuner_section

ROOT = sys.argv[1]
RESULTS = os.path.join(ROOT, "docs", "results")
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
sys.path.insert(0, os.path.join(ROOT, "python"))
ENV = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")}
PAPERS = ["## 1. Träff", "## 2. Proficz", "## 3. Paznikov", "## 4. Parsons & Pai",
          "## 5. Bhowmik & Bodele"]
failures = []


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def report(d):
    """Runs the report on d; its exit status, output and report.md."""
    p = subprocess.run([sys.executable, "-m", "collx", "report", d], capture_output=True,
                       text=True, env=ENV, timeout=240)
    md = os.path.join(d, "report.md")
    return p.returncode, p.stdout + p.stderr, open(md).read() if os.path.exists(md) else ""


def sections(text):
    """'## ' heading -> its text up to the next one."""
    parts = re.split(r"^(## .*)$", text, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def paper_section(secs, head):
    return next((body for h, body in secs.items() if h.startswith(head)), "")


def check_shape(name, text):
    """Summary first, the papers in order, each with its claim."""
    heads = re.findall(r"^## .*$", text, flags=re.M)
    expect(heads[:1] == ["## Summary"], f"{name}: Summary first")
    order = [next((i for i, h in enumerate(heads) if h.startswith(p)), -1) for p in PAPERS]
    expect(-1 not in order and order == sorted(order), f"{name}: one section per paper, in order {order}")
    after = [h for h in heads if not h.startswith(("## Summary", "## 1", "## 2", "## 3", "## 4", "## 5"))]
    expect(after[:3] == ["## Real MPI on this machine", "## On the emulated cluster",
                         tuner_section.HEAD],
           f"{name}: then real MPI, the emulated cluster and the tuner ({after})")
    secs = sections(text)
    for p in PAPERS:
        expect(paper_section(secs, p).lstrip().startswith("*The paper:*"), f"{name}: {p} states the claim")
    summary = [ln for ln in secs.get("## Summary", "").splitlines() if ln.startswith("- **")]
    expect(len(summary) >= len(PAPERS) + 2, f"{name}: a Summary line per paper ({len(summary)} lines)")
    return secs


def check_missing_lines(name, text):
    """Every 'not in this run' line names a sweep that exists."""
    from collx.sweep import spec
    named = re.findall(r"not in this run; `./run collx sweep (\S+) -o DIR/\S+` makes it", text)
    known = spec.load()["sweeps"]
    expect(all(s in known for s in named), f"{name}: the missing parts name existing sweeps {sorted(set(named))}")
    return set(named)


def full_fixture(d):
    """The committed demo plus the other families' committed outputs, laid
    out as the demo's sweeps write them."""
    shutil.copytree(os.path.join(RESULTS, "demo"), d)
    for sub, src in (("rma", "rma/rma_demo.csv"), ("pap", "pap/pap.csv")):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
        shutil.copy(os.path.join(RESULTS, src), os.path.join(d, sub))
    os.makedirs(os.path.join(d, "fft"))
    shutil.copy(os.path.join(FIXTURES, "fft-real-1.txt"), os.path.join(d, "fft", "real-1.txt"))
    shutil.copytree(os.path.join(RESULTS, "cluster"), os.path.join(d, "cluster"),
                    ignore=shutil.ignore_patterns("csv", "recheck"))
    # topo-demo: DIR/topo/<placement>-<bytes>.csv of 8 nodes, and cost.csv
    os.makedirs(os.path.join(d, "topo"))
    with open(os.path.join(RESULTS, "topo", "topo.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    for place, name in (("block", "block"), ("scattered", "scattered"), ("rr", "rr8")):
        for size in ("4096", "262144"):
            sel = [r for r in rows if (r["placement"], r["nodes"], r["map"], r["size_bytes"]) ==
                   (place, "8", "paper", size)]
            with open(os.path.join(d, "topo", f"{name}-{size}.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(sel[0])[3:], extrasaction="ignore")
                w.writeheader()
                w.writerows(sel)
    shutil.copy(os.path.join(RESULTS, "topo", "csv", "cost-scattered-8.csv"),
                os.path.join(d, "topo", "cost.csv"))
    # demo-smpi with hier: the hierarchical sweep's p = 256 rows
    for coll in ("allgather", "alltoallv", "reduce_scatter_block", "allreduce"):
        with open(os.path.join(d, "smpi", f"sweep_{coll}_fattree_hier.csv"), "w") as out:
            for i, v in enumerate(("native", "hier", "hier_ms")):
                with open(os.path.join(RESULTS, "hier", "csv", f"{coll}-256-{v}.csv")) as f:
                    lines = f.readlines()
                out.writelines(lines if i == 0 else lines[1:])
    # the tune step: the committed tuner run and its held-out validation
    for sub in ("tuned", "validate"):
        shutil.copytree(os.path.join(RESULTS, "tune", sub), os.path.join(d, "tune", sub))


def tune_step(d, **env):
    """bench/demo_tune.sh d with env (a skipped or failing step: seconds)."""
    os.makedirs(d)
    subprocess.run([os.path.join(ROOT, "bench", "demo_tune.sh"), d], capture_output=True,
                   timeout=120, env={**ENV, **env})


from collx.tables import rma as rma_tables  # noqa: E402

# the paper's crossovers read back: its own points, and points it does not reach
for args, want in ((("ib-6x8", 48, 8 << 20), "binomial"), (("ib-6x8", 24, 2 << 20), "linear"),
                   (("gige-18x8", 96, 16384), "binomial"), (("gige-18x8", 16, 2048), "linear"),
                   (("ib-6x8", 8, 64 << 20), None)):
    got = rma_tables.paper_verdict(*args)[0]
    expect(got == want, f"Paznikov's verdict at {args}: {got} (want {want})")

with tempfile.TemporaryDirectory() as tmp:
    # 1. the committed demo: Träff has its headline; the rest say what is missing
    demo = os.path.join(tmp, "demo")
    shutil.copytree(os.path.join(RESULTS, "demo"), demo)
    rc, out, text = report(demo)
    expect(rc == 0, "report on the committed demo" + ("" if rc == 0 else ":\n" + out[-3000:]))
    secs = check_shape("demo", text)
    traff = paper_section(secs, PAPERS[0])
    expect(re.search(r"\*\*ours:\*\* tuw breaks Guideline \(2\) in \d+/30 cells, native MPI_Gatherv in "
                     r"\d+/30; .* paper \(Table 1's minima, same 5 % rule\): TUW_Gatherv 0/30, "
                     r"NEC MPI_Gatherv 19/30", traff) is not None,
           "demo: Träff's headline beside the paper's Table 1 counts")
    expect("**Where we miss the paper:**" in traff, "demo: Träff says where we miss")
    named = check_missing_lines("demo", text)
    expect({"pap-demo", "fft-demo", "rma-demo", "topo-demo", "cluster-demo"} <= named,
           f"demo: the parts a DEMO_QUICK run lacks name their sweeps ({sorted(named)})")

    # 2. every family present: every paper has its headline beside the paper's figure
    full = os.path.join(tmp, "full")
    full_fixture(full)
    rc, out, text = report(full)
    expect(rc == 0, "report on the full fixture" + ("" if rc == 0 else ":\n" + out[-3000:]))
    secs = check_shape("full", text)
    for p in PAPERS:
        body = paper_section(secs, p)
        ours = re.search(r"^\*\*ours:\*\* (.*)$", body, flags=re.M)
        expect(ours is not None and "paper" in ours.group(1), f"full: {p} has 'ours:' beside the paper")
        expect("**Where we miss the paper:**" in body, f"full: {p} says where we miss")
    heads = {
        PAPERS[1]: r"BSLS / LS \d+\.\d\dx at \d+K floats, \d+ ms .* paper \d+\.\d\dx; FFT: ",
        PAPERS[2]: r"ib-6x8 p = 16, 2 MiB: \d\.\d\d of rma_linear \(paper: linear ahead\)",
        PAPERS[3]: r"allgather \d+\.\d\dx at p = 256 \(paper 26x\).* hier_ms over hier \d+\.\d\dx \(paper 2\.5x\)",
        PAPERS[4]: r"ring_topo [+-]\d+ to [+-]\d+ %, rd_topo .* paper 12-40 %",
    }
    for p, pattern in heads.items():
        expect(re.search(pattern, paper_section(secs, p)) is not None, f"full: {p} headline /{pattern}/")
    cluster = secs.get("## On the emulated cluster", "")
    expect("](cluster/topo.png)" in cluster and "ring / ring_topo" in cluster,
           "full: the emulated cluster's tables, images pointing into cluster/")
    tuner_section.check_full("full", text, full, expect)
    expect("no status.tsv" in tuner_section.summary_line(text),
           "full: files not written by the demo's tune step (no status.tsv) are said to be")
    named = check_missing_lines("full", text)
    expect(named == {"demo-traff"}, f"full: only the Scatterv table (DEMO_QUICK) reported missing ({named})")

    # 3. an empty directory: no crash, every part names its sweep
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    rc, out, text = report(empty)
    expect(rc == 0, "report on an empty directory" + ("" if rc == 0 else ":\n" + out[-3000:]))
    secs = check_shape("empty", text)
    named = check_missing_lines("empty", text)
    expect({"demo-traff", "pap-demo", "fft-demo", "rma-demo", "demo-smpi", "topo-demo", "demo-real",
            "cluster-demo"} <= named, f"empty: every part names its sweep ({sorted(named)})")
    expect(not re.search(r"^\*\*ours:", text, flags=re.M), "empty: no headline")
    tuner_section.check_not_shown("empty", text, ["not in this run", "bench/demo_tune.sh"],
                                  expect)

    # 4. the tune step skipped (DEMO_TUNE=0), and failing (a platform that does not exist)
    skipped = os.path.join(tmp, "skipped")
    tune_step(skipped, DEMO_TUNE="0")
    rc, out, text = report(skipped)
    expect(rc == 0, "report with the tune step skipped")
    tuner_section.check_not_shown("skipped", text, ["the tune step was skipped (DEMO_TUNE=0)",
                                                    "The validate step was skipped"], expect)
    failed = os.path.join(tmp, "failed")
    tune_step(failed, DEMO_TUNE_PLATFORM="no-such-platform")
    rc, out, text = report(failed)
    expect(rc == 0, "report with the tune step failing")
    tuner_section.check_not_shown("failed", text, [
        "the tune step failed (exit 1)", "./run tune --platform no-such-platform",
        "no SMPI platform 'no-such-platform'",
        "The validate step was skipped (no rules: the tune step failed)"], expect)

print(f"{len(failures)} failures" if failures else "all ok")
sys.exit(1 if failures else 0)
