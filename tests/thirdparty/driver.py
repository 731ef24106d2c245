#!/usr/bin/python3
"""Runs third-party MPI test suites through collx's PMPI interposer with
collx algorithms forced, on fake node layouts, one MPI job at a time.

Called by tests/thirdparty/run.sh (which installs the suites first); see
tests/thirdparty/README.md. Every run is one launcher invocation:

    <mpirun> -np P  LD_PRELOAD=libcollx_pmpi.so  COLLX_<COLL>_ALGORITHM=<alg>
             [COLLX_RANKS_PER_NODE=k | COLLX_FAKE_NODES=...]  COLLX_VERBOSE=2
             python test_cco_vec.py -v -k <the collective's tests>

under a timeout (the whole process group is killed on expiry, then any
leftover process carrying this run's marker variable). Each rank's output
goes to its own file; the summary (unittest counts, the first failure, how
many calls the forced algorithm really served on rank 0) goes to a CSV row
and a progress line. Exit status 1 when any run did not pass."""
import argparse
import csv
import datetime
import hashlib
import os
import re
import shlex
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

# ---------------------------------------------------------------- mpi4py map
# Which mpi4py test files exercise a collective, and which test methods
# (unittest -k patterns) call it. The pickle-based lowercase methods of
# test_cco_obj.py call MPI_Gather+MPI_Gatherv, MPI_Scatter+MPI_Scatterv,
# MPI_Allgather+MPI_Allgatherv, MPI_Alltoall+MPI_Alltoallv (mpi4py's
# msgpickle.pxi), so they exercise the v collectives with uneven counts.
BUF, OBJ, VEC, ZERO = ("test_cco_buf.py", "test_cco_obj.py",
                       "test_cco_vec.py", "test_msgzero.py")
ZERO_BLOCK = "*.testCollectivesBlock"
ZERO_VEC = "*.testCollectivesVector"
ZERO_RED = "*.testReductions"
MPI4PY_MAP = {
    "barrier": [(BUF, ["*.testBarrier"]), (OBJ, ["*.testBarrier"])],
    "bcast": [(BUF, ["*.testBcast*"]), (OBJ, ["*.testBcast"]), (ZERO, [ZERO_BLOCK])],
    "gather": [(BUF, ["*.testGather"]), (OBJ, ["*.testGather"]), (ZERO, [ZERO_BLOCK])],
    "scatter": [(BUF, ["*.testScatter"]), (OBJ, ["*.testScatter"]), (ZERO, [ZERO_BLOCK])],
    "allgather": [(BUF, ["*.testAllgather"]), (OBJ, ["*.testAllgather"]), (ZERO, [ZERO_BLOCK])],
    "alltoall": [(BUF, ["*.testAlltoall"]), (OBJ, ["*.testAlltoall"]), (ZERO, [ZERO_BLOCK])],
    "reduce": [(BUF, ["*.testReduce"]), (ZERO, [ZERO_RED])],
    "allreduce": [(BUF, ["*.testAllreduce"]), (ZERO, [ZERO_RED])],
    "reduce_scatter": [(BUF, ["*.testReduceScatter"]), (ZERO, [ZERO_RED])],
    "reduce_scatter_block": [(BUF, ["*.testReduceScatterBlock"]), (ZERO, [ZERO_RED])],
    "scan": [(BUF, ["*.testScan"]), (ZERO, [ZERO_RED])],
    "exscan": [(BUF, ["*.testExscan"]), (ZERO, [ZERO_RED])],
    "gatherv": [(VEC, ["*.testGatherv*"]), (OBJ, ["*.testGather"]), (ZERO, [ZERO_VEC])],
    "scatterv": [(VEC, ["*.testScatterv*"]), (OBJ, ["*.testScatter"]), (ZERO, [ZERO_VEC])],
    "allgatherv": [(VEC, ["*.testAllgatherv*"]), (OBJ, ["*.testAllgather"]), (ZERO, [ZERO_VEC])],
    "alltoallv": [(VEC, ["*.testAlltoallv*"]), (OBJ, ["*.testAlltoall"]), (ZERO, [ZERO_VEC])],
    "alltoallw": [(VEC, ["*.testAlltoallw*"]), (ZERO, [ZERO_VEC])],
}
FILE_ALIASES = {"buf": BUF, "obj": OBJ, "vec": VEC, "msgzero": ZERO, "zero": ZERO,
                "pkl5": "test_util_pkl5.py", "buf_inter": "test_cco_buf_inter.py",
                "vec_inter": "test_cco_vec_inter.py", "obj_inter": "test_cco_obj_inter.py"}
FAMILY_FILES = [BUF, OBJ, VEC, ZERO]   # whole files in --family mode

MPI_NAMES = {"barrier": "Barrier", "bcast": "Bcast", "gather": "Gather",
             "gatherv": "Gatherv", "scatter": "Scatter", "scatterv": "Scatterv",
             "allgather": "Allgather", "allgatherv": "Allgatherv",
             "alltoall": "Alltoall", "alltoallv": "Alltoallv",
             "alltoallw": "Alltoallw", "reduce": "Reduce",
             "allreduce": "Allreduce", "reduce_scatter": "Reduce_scatter",
             "reduce_scatter_block": "Reduce_scatter_block", "scan": "Scan",
             "exscan": "Exscan"}

DEFAULT_LAYOUTS = "p2,p3-rpn2,p4-cyclic2,p5-rpn3"


def log(msg):
    print(msg, flush=True)


def die(msg):
    print(f"thirdparty: {msg}", file=sys.stderr, flush=True)
    sys.exit(2)


# ------------------------------------------------------------------ layouts
def parse_layout(tok):
    """p<NP>[-rpn<K>|-cyclic<K>|-fake<n.n.n...>] -> (name, np, env)."""
    m = re.fullmatch(r"p(\d+)(?:-(rpn|cyclic|fake)([0-9.]+))?", tok)
    if not m:
        die(f"layout '{tok}': want p<NP>, p<NP>-rpn<K>, p<NP>-cyclic<K> "
            "or p<NP>-fake<n.n.n> (e.g. p4-fake0.1.0.2)")
    np_, kind, arg = int(m.group(1)), m.group(2), m.group(3)
    env = {}
    if kind == "rpn":
        env["COLLX_RANKS_PER_NODE"] = arg
    elif kind == "cyclic":
        env["COLLX_FAKE_NODES"] = f"cyclic:{arg}"
    elif kind == "fake":
        env["COLLX_FAKE_NODES"] = arg.replace(".", ",")
    return tok, np_, env


# ---------------------------------------------------------------- registry
def registry(info):
    """collx_info output -> ordered {coll: [alg, ...]} (native first)."""
    try:
        out = subprocess.run([info], capture_output=True, text=True,
                             timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        die(f"cannot run {info}: {e}")
    reg, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^(\w+) \(selected now", line)
        if m:
            cur = m.group(1)
            reg[cur] = []
            continue
        m = re.match(r"^  (\w+)\s", line)
        if m and cur:
            reg[cur].append(m.group(1))
    if not reg:
        die(f"{info} printed no algorithms")
    return reg


# ----------------------------------------------------------------- parsing
RAN = re.compile(r"^Ran (\d+) tests? in ")
FINAL = re.compile(r"^(OK|FAILED)\b(.*)$")
FAILHDR = re.compile(r"^(FAIL|ERROR): (\S+) \((\S+)\)")
STARTED = re.compile(r"^(test\w+) \((\S+)\)(?: \.\.\. )?")
COLLX_CALL = re.compile(r"collx: MPI_(\w+) -> (\w+) \(p=(\d+)\)")
COLLX_WHY = re.compile(r"collx: (MPI_\w+: \w+ .*; running \w+)")
COLLX_ERR = re.compile(r"collx: error: (.*)")
SEP = re.compile(r"^(=+|-+)$")


def parse_rank(text):
    """unittest -v stderr of one rank -> dict."""
    r = {"ran": None, "final": None, "failures": [], "last_started": None,
         "last_done": True, "calls": {}, "why": [], "errors": []}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        for m in COLLX_CALL.finditer(line):
            if int(m.group(3)) > 1:
                key = (m.group(1).lower(), m.group(2))
                r["calls"][key] = r["calls"].get(key, 0) + 1
        m = COLLX_WHY.search(line)
        if m and m.group(1) not in r["why"]:
            r["why"].append(m.group(1))
        m = COLLX_ERR.search(line)
        if m and len(r["errors"]) < 5:
            r["errors"].append(m.group(1))
        clean = COLLX_CALL.sub("", line)
        m = STARTED.match(clean)
        if m:
            r["last_started"] = f"{m.group(2)}"
            r["last_done"] = bool(re.search(r"\.\.\. .*\b(ok|FAIL|ERROR|skipped)", clean))
        elif re.search(r"\b(ok|FAIL|ERROR|skipped.*)$", clean.strip()):
            r["last_done"] = True
        m = RAN.match(line)
        if m:
            r["ran"] = int(m.group(1))
        m = FINAL.match(line)
        if m and r["ran"] is not None:
            r["final"] = (m.group(1), m.group(2).strip())
        m = FAILHDR.match(line)
        if m:
            # the block: header, separator, traceback ..., blank/separator
            j, block = i + 1, []
            while j < len(lines) and not (lines[j].startswith("=" * 20) or
                                          RAN.match(lines[j])):
                if not SEP.match(lines[j]):
                    block.append(lines[j])
                j += 1
            block = [b for b in block if b.strip()]
            msg = next((b for b in reversed(block)
                        if re.match(r"^\w[\w.]*(Error|Exception|Exit|Interrupt)\b", b)),
                       block[-1] if block else "")
            r["failures"].append(f"{m.group(1)}: {m.group(3)}: {msg.strip()}")
        i += 1
    return r


def counts_of(final):
    """'FAILED (failures=1, errors=2)' -> 3."""
    if not final:
        return None
    n = 0
    for k, v in re.findall(r"(failures|errors|unexpected successes)=(\d+)", final[1]):
        n += int(v)
    return n


# --------------------------------------------------------------- launching
class Launcher:
    def __init__(self, mpi, lib, extra_preload):
        self.mpi = mpi
        self.preload = ":".join([p for p in (extra_preload, lib) if p])

    def command(self, np_, env, outdir, argv):
        if self.mpi == "openmpi":
            cmd = ["/usr/bin/mpirun.openmpi", "--oversubscribe",
                   "--output-filename", outdir, "-np", str(np_)]
            for k, v in env.items():
                cmd += ["-x", f"{k}={v}"]
        else:
            cmd = ["/usr/bin/mpiexec.mpich", "-n", str(np_),
                   "-outfile-pattern", os.path.join(outdir, "rank.%r.stdout"),
                   "-errfile-pattern", os.path.join(outdir, "rank.%r.stderr")]
            for k, v in env.items():
                cmd += ["-genv", k, v]
        return cmd + argv

    def rank_file(self, outdir, rank, stream):
        if self.mpi == "openmpi":
            return os.path.join(outdir, "1", f"rank.{rank}", stream)
        return os.path.join(outdir, f"rank.{rank}.{stream}")


def procs_with_marker(marker):
    """pids of processes whose environment holds this run's marker."""
    needle = f"COLLX_THIRDPARTY_RUN={marker}".encode()
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    pids.append(int(d))
        except OSError:
            pass
    return pids


def run_job(cmd, cwd, timeout, marker, logfile):
    """Runs cmd in its own session; kills the group on timeout.
    -> (rc, timed_out, seconds)."""
    env = dict(os.environ, COLLX_THIRDPARTY_RUN=marker)
    t0 = time.monotonic()
    with open(logfile, "wb") as out:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out,
                             stderr=subprocess.STDOUT, start_new_session=True)
        timed_out = False
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    pass
                try:
                    p.wait(timeout=5)
                    break
                except subprocess.TimeoutExpired:
                    continue
            rc = p.wait()
    # ranks that left the group (or outlived the launcher): by marker
    for _ in range(3):
        left = procs_with_marker(marker)
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.5)
    return rc, timed_out, time.monotonic() - t0


# ------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mpi", default=os.environ.get("COLLX_MPI", "openmpi"),
                    choices=["openmpi", "mpich"])
    ap.add_argument("--suite", default="mpi4py", choices=["mpi4py", "hpcc"])
    ap.add_argument("--colls", default="all",
                    help="comma list of collectives (default all)")
    ap.add_argument("--algs", default="all",
                    help="comma list of algorithm names; each collective runs "
                         "those it has (default: all registered but native; "
                         "'native' is allowed as a baseline)")
    ap.add_argument("--family", default="",
                    help="comma list: instead of one collective at a time, "
                         "force NAME on every selected collective that has it "
                         "(all at once) and run whole test files")
    ap.add_argument("--layouts", default=DEFAULT_LAYOUTS,
                    help=f"comma list (default {DEFAULT_LAYOUTS})")
    ap.add_argument("--files", default="",
                    help="comma list of test files to keep (test_cco_vec.py, "
                         "or short: buf,obj,vec,msgzero,pkl5); a file outside "
                         "a collective's map runs whole")
    ap.add_argument("--no-filter", action="store_true",
                    help="run whole test files, not only the collective's tests")
    ap.add_argument("--timeout", type=float, default=180,
                    help="seconds per run (default 180)")
    ap.add_argument("--csv", default="", help="CSV path (default in the out dir)")
    ap.add_argument("--out", default="", help="log dir (default build/thirdparty/results/<mpi>-<time>)")
    ap.add_argument("--lib", default="", help="interposer (default build/<mpi>/libcollx_pmpi.so)")
    ap.add_argument("--verbose-level", default="2",
                    help="COLLX_VERBOSE for the ranks (2 = every call, counted)")
    ap.add_argument("--env", action="append", default=[],
                    help="extra VAR=value for every rank (repeatable)")
    ap.add_argument("--dry-run", action="store_true", help="print the runs only")
    ap.add_argument("--mpi4py-test-dir", default="")
    ap.add_argument("--python", default="")
    ap.add_argument("--yield-lib", default="",
                    help="extra preload (MPICH: the yield-when-idle helper)")
    ap.add_argument("--hpcc-dir", default="", help="dir holding hpccinf.txt (hpcc suite)")
    a = ap.parse_args()

    mpi = a.mpi
    build = os.path.join(ROOT, "build", mpi)
    lib = a.lib or os.path.join(build, "libcollx_pmpi.so")
    info = os.path.join(build, "bench", "collx_info")
    if not os.path.exists(lib) or not os.path.exists(info):
        die(f"{lib} or {info} missing: build collx first "
            f"(COLLX_MPI={mpi} ./run build)")
    reg = registry(info)

    colls = list(reg) if a.colls == "all" else a.colls.split(",")
    for c in colls:
        if c not in reg:
            die(f"unknown collective '{c}'; known: {','.join(reg)}")
    layouts = [parse_layout(t) for t in a.layouts.split(",") if t]
    files_keep = [FILE_ALIASES.get(f, f) for f in a.files.split(",") if f]

    tp = os.path.join(ROOT, "build", "thirdparty")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    outroot = a.out or os.path.join(tp, "results", f"{a.suite}-{mpi}-{stamp}")
    os.makedirs(outroot, exist_ok=True)
    csv_path = a.csv or os.path.join(outroot, "results.csv")

    if a.suite == "mpi4py":
        testdir = a.mpi4py_test_dir or next(
            (os.path.join(tp, "src", d, "test") for d in sorted(os.listdir(os.path.join(tp, "src")))
             if d.startswith("mpi4py-")), "") if os.path.isdir(os.path.join(tp, "src")) else ""
        python = a.python or os.path.join(tp, mpi, "venv", "bin", "python")
        if not os.path.isdir(testdir) or not os.path.exists(python):
            die("mpi4py is not installed: tests/thirdparty/run.sh setup "
                f"--mpi {mpi}")
    else:
        if mpi != "openmpi":
            die("Debian's hpcc is built against Open MPI only")
        testdir = a.hpcc_dir
        python = None
        if not os.path.exists("/usr/bin/hpcc") or not os.path.isfile(
                os.path.join(testdir, "hpccinf.txt")):
            die("hpcc is not set up: tests/thirdparty/run.sh setup-hpcc")

    # ---- the list of runs: (coll label, alg label, alg env, file, patterns)
    runs = []
    extra_env = dict(kv.split("=", 1) for kv in a.env)
    if a.family:
        for fam in a.family.split(","):
            have = [c for c in colls if fam in reg[c]]
            if not have:
                die(f"no selected collective has an algorithm '{fam}'")
            algenv = {f"COLLX_{c.upper()}_ALGORITHM": fam for c in have}
            label = "+".join(have) if len(have) < len(reg) // 2 else f"all:{len(have)}"
            if a.suite == "mpi4py":
                files = files_keep or FAMILY_FILES
                for f in files:
                    runs.append((label, fam, algenv, f, [], have))
            else:
                runs.append((label, fam, algenv, "hpcc", [], have))
    else:
        wanted = None if a.algs == "all" else a.algs.split(",")
        if wanted:
            known = {x for c in colls for x in reg[c]}
            bad = [w for w in wanted if w not in known]
            if bad:
                die(f"no selected collective has algorithm(s) {','.join(bad)}")
        for c in colls:
            algs = [x for x in reg[c] if x != "native"] if wanted is None \
                else [x for x in reg[c] if x in wanted]
            for alg in algs:
                algenv = {f"COLLX_{c.upper()}_ALGORITHM": alg}
                if a.suite == "hpcc":
                    runs.append((c, alg, algenv, "hpcc", [], [c]))
                    continue
                cmap = dict(MPI4PY_MAP.get(c, []))
                files = files_keep or list(cmap)
                for f in files:
                    pats = [] if a.no_filter or f not in cmap else cmap[f]
                    runs.append((c, alg, algenv, f, pats, [c]))

    launcher = Launcher(mpi, lib, a.yield_lib)
    total = len(runs) * len(layouts)
    lib_id = hashlib.sha1(open(os.path.realpath(lib), "rb").read()).hexdigest()[:10]
    lib_time = datetime.datetime.fromtimestamp(os.path.getmtime(os.path.realpath(lib)))
    log(f"# {a.suite} on {mpi}: {total} runs ({len(runs)} x {len(layouts)} layouts), "
        f"timeout {a.timeout:g}s; interposer {lib} (sha1 {lib_id}, built {lib_time:%Y-%m-%d %H:%M})")
    log(f"# logs: {outroot}   csv: {csv_path}")
    if a.dry_run:
        total = 0

    fields = ["mpi", "suite", "layout", "np", "coll", "alg", "file", "tests_filter",
              "status", "rc", "seconds", "tests_run", "tests_failed", "failed_ranks",
              "alg_calls", "other_calls", "first_failure", "collx_notes", "log_dir",
              "lib_sha1"]
    rows, bad, k = [], 0, 0
    t_all = time.monotonic()
    with open(csv_path, "w", newline="") as fcsv:
        w = csv.DictWriter(fcsv, fieldnames=fields)
        w.writeheader()
        for (lname, np_, lenv) in layouts:
            for (clabel, alg, algenv, f, pats, forced_colls) in runs:
                k += 1
                tag = f"{lname}.{clabel if len(clabel) < 40 else 'family'}.{alg}.{f.replace('.py', '')}"
                outdir = os.path.join(outroot, re.sub(r"[^\w.+-]", "_", tag))
                env = {"LD_PRELOAD": launcher.preload, "COLLX_VERBOSE": a.verbose_level,
                       "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}
                env.update(lenv)
                env.update(algenv)
                env.update(extra_env)
                if a.suite == "mpi4py":
                    argv = [python, f, "-v"]
                    for p in pats:
                        argv += ["-k", p]
                else:
                    argv = ["/usr/bin/hpcc"]
                cmd = launcher.command(np_, env, outdir, argv)
                if a.dry_run:
                    log(f"[{k}] (cd {testdir} && {shlex.join(cmd)})")
                    continue
                os.makedirs(outdir, exist_ok=True)
                if a.suite == "hpcc":   # hpcc reads/writes its cwd
                    cwd = outdir
                    import shutil
                    shutil.copy(os.path.join(testdir, "hpccinf.txt"), cwd)
                else:
                    cwd = testdir
                with open(os.path.join(outdir, "repro.sh"), "w") as fr:
                    fr.write("#!/bin/sh\n# re-run this case (outputs go to the dir below)\n")
                    fr.write(". " + shlex.quote(os.path.join(ROOT, "bench", "mpi_env.sh")) + "\n")
                    fr.write(f"cd {shlex.quote(cwd)} && timeout {a.timeout:g} {shlex.join(cmd)}\n")
                marker = f"{os.getpid()}-{k}"
                rc, timed_out, secs = run_job(cmd, cwd, a.timeout, marker,
                                              os.path.join(outdir, "launcher.log"))
                row = summarize(a.suite, launcher, outdir, np_, rc, timed_out,
                                forced_colls, alg)
                row.update(mpi=mpi, suite=a.suite, layout=lname, np=np_, coll=clabel,
                           alg=alg, file=f, tests_filter=" ".join(pats) or "-",
                           seconds=f"{secs:.1f}", log_dir=os.path.relpath(outdir, ROOT),
                           lib_sha1=lib_id)
                w.writerow(row)
                fcsv.flush()
                rows.append(row)
                if row["status"] != "pass":
                    bad += 1
                calls = f"{alg} served {row['alg_calls']} calls on rank 0"
                if row["other_calls"]:
                    calls += f", {row['other_calls']} ran another algorithm"
                line = (f"[{k}/{total}] {mpi} {lname} {clabel}={alg} {f}: "
                        f"{row['status'].upper()} {row['tests_run']} tests, "
                        f"{row['tests_failed']} failed; {calls}; {secs:.1f}s")
                if row["status"] != "pass":
                    line += f"\n      {row['first_failure']}\n      repro: sh {os.path.join(outdir, 'repro.sh')}"
                log(line)
    if a.dry_run:
        return 0
    secs = time.monotonic() - t_all
    log(f"# done: {len(rows)} runs, {len(rows) - bad} passed, {bad} not passed, "
        f"{secs:.0f}s wall; csv {csv_path}")
    return 1 if bad else 0


def summarize(suite, launcher, outdir, np_, rc, timed_out, forced_colls, alg):
    ranks = []
    for r in range(np_):
        try:
            with open(launcher.rank_file(outdir, r, "stderr"), errors="replace") as f:
                err = f.read()
        except OSError:
            err = ""
        try:
            with open(launcher.rank_file(outdir, r, "stdout"), errors="replace") as f:
                out = f.read()
        except OSError:
            out = ""
        ranks.append((err, out))
    try:
        with open(os.path.join(outdir, "launcher.log"), errors="replace") as f:
            launch = f.read()
    except OSError:
        launch = ""
    if suite == "hpcc":
        return summarize_hpcc(outdir, ranks, launch, rc, timed_out, forced_colls, alg)
    parsed = [parse_rank(e) for e, _ in ranks]
    r0 = parsed[0] if parsed else parse_rank("")
    alg_calls = sum(v for (c, x), v in r0["calls"].items() if c in forced_colls and x == alg)
    other = sum(v for (c, x), v in r0["calls"].items() if c in forced_colls and x != alg)
    ran = max([p["ran"] or 0 for p in parsed] or [0])
    nfail = max([counts_of(p["final"]) or 0 for p in parsed] or [0])
    failed_ranks = [i for i, p in enumerate(parsed)
                    if not p["final"] or p["final"][0] != "OK"]
    first = ""
    for i, p in enumerate(parsed):
        if p["failures"]:
            first = f"rank {i}: {p['failures'][0]}"
            if len(p["failures"]) > 1:
                first += f" (+{len(p['failures']) - 1} more on this rank)"
            break
    if timed_out:
        status = "timeout"
        hung = sorted({f"{p['last_started']}" for p in parsed
                       if p["last_started"] and not p["last_done"]})
        first = (f"timed out in {', '.join(hung)}" if hung else "timed out") + \
            (f"; {first}" if first else "")
    elif rc == 0 and not failed_ranks and ran > 0:
        status = "pass"
    else:
        status = "fail"
        if not first:
            tail = [l for l in launch.splitlines() if l.strip()]
            errs = [e for p in parsed for e in p["errors"]]
            first = (errs[0] if errs else "") or (
                f"rc={rc}; " + " | ".join(tail[-3:]) if tail else f"rc={rc}, no unittest summary")
    errs = []
    for p in parsed:
        for e in p["errors"]:
            if e not in errs:
                errs.append(e)
    notes = "; ".join((r0["why"] + [f"error: {e}" for e in errs])[:3])
    return {"status": status, "rc": rc, "tests_run": ran, "tests_failed": nfail,
            "failed_ranks": " ".join(map(str, failed_ranks)) or "-",
            "alg_calls": alg_calls, "other_calls": other,
            "first_failure": first[:400], "collx_notes": notes[:400]}


def summarize_hpcc(outdir, ranks, launch, rc, timed_out, forced_colls, alg):
    path = os.path.join(outdir, "hpccoutf.txt")
    try:
        text = open(path, errors="replace").read()
    except OSError:
        text = ""
    passed = re.findall(r"^.*\bPASSED\b.*$", text, re.M)
    failed = re.findall(r"^.*\bFAILED\b.*$", text, re.M)
    checks = {}
    for m in re.finditer(r"^(\w+)_(?:ErrorsFraction|Errors|Pass|Failure|resid|n?[Rr]esid\w*)=(\S+)$", text, re.M):
        checks[m.group(1)] = m.group(2)
    finished = "End of HPC Challenge tests" in text or "End of summary section" in text
    calls, why = {}, []
    for e, _ in ranks[:1]:
        for m in COLLX_CALL.finditer(e):
            if int(m.group(3)) > 1:
                calls[(m.group(1).lower(), m.group(2))] = calls.get((m.group(1).lower(), m.group(2)), 0) + 1
        for m in COLLX_WHY.finditer(e):
            if m.group(1) not in why:
                why.append(m.group(1))
    alg_calls = sum(v for (c, x), v in calls.items() if c in forced_colls and x == alg)
    other = sum(v for (c, x), v in calls.items() if c in forced_colls and x != alg)
    # HPL's residual check and the other kernels' own verification
    fails = failed[:]
    m = re.search(r"^HPL_N?Failure=?\s*(\S+)", text, re.M)
    for key in ("PTRANS_n", ):
        pass
    if timed_out:
        status, first = "timeout", "timed out"
    elif rc == 0 and finished and not fails and passed:
        status, first = "pass", ""
    else:
        status = "fail"
        tail = [l for l in launch.splitlines() if l.strip()]
        first = (fails[0].strip() if fails else
                 f"rc={rc}, finished={finished}, PASSED lines={len(passed)}; " + " | ".join(tail[-2:]))
    return {"status": status, "rc": rc, "tests_run": len(passed) + len(failed),
            "tests_failed": len(failed), "failed_ranks": "-",
            "alg_calls": alg_calls, "other_calls": other,
            "first_failure": first[:400], "collx_notes": "; ".join(why[:3])[:400]}


if __name__ == "__main__":
    sys.exit(main())
