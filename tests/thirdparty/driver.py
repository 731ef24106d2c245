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
    "alltoallw": [(VEC, ["*.testAlltoallw*"])],
}

# The nonblocking (MPI_I<name>) and persistent (MPI_<Name>_init) forms go
# through collx too: the same tests in their own files.
NB_BUF, PR_BUF, NB_VEC, PR_VEC = ("test_cco_nb_buf.py", "test_cco_pr_buf.py",
                                  "test_cco_nb_vec.py", "test_cco_pr_vec.py")
for _fp in MPI4PY_MAP.values():
    for _f, _pats in list(_fp):
        if _f in (BUF, VEC):
            _fp += [(NB_BUF if _f == BUF else NB_VEC, _pats),
                    (PR_BUF if _f == BUF else PR_VEC, _pats)]


def mpi4py_map(mpi):
    """MPI4PY_MAP for this MPI: on Open MPI, mpi4py skips test_msgzero's
    testReductions itself (@skipMPI("openmpi")), so no run is spent on it."""
    if mpi != "openmpi":
        return MPI4PY_MAP
    return {c: [(f, p) for f, p in fp if p != [ZERO_RED]] for c, fp in MPI4PY_MAP.items()}


FILE_ALIASES = {"buf": BUF, "obj": OBJ, "vec": VEC, "msgzero": ZERO, "zero": ZERO,
                "nb_buf": NB_BUF, "pr_buf": PR_BUF, "nb_vec": NB_VEC, "pr_vec": PR_VEC,
                "pkl5": "test_util_pkl5.py", "buf_inter": "test_cco_buf_inter.py",
                "vec_inter": "test_cco_vec_inter.py", "obj_inter": "test_cco_obj_inter.py"}
FAMILY_FILES = [BUF, OBJ, VEC, ZERO, NB_BUF, PR_BUF, NB_VEC, PR_VEC]   # whole files in --family mode

MPI_NAMES = {"barrier": "Barrier", "bcast": "Bcast", "gather": "Gather",
             "gatherv": "Gatherv", "scatter": "Scatter", "scatterv": "Scatterv",
             "allgather": "Allgather", "allgatherv": "Allgatherv",
             "alltoall": "Alltoall", "alltoallv": "Alltoallv",
             "alltoallw": "Alltoallw", "reduce": "Reduce",
             "allreduce": "Allreduce", "reduce_scatter": "Reduce_scatter",
             "reduce_scatter_block": "Reduce_scatter_block", "scan": "Scan",
             "exscan": "Exscan"}

# the collectives Debian's /usr/bin/hpcc calls (nm -D: MPI_Allreduce,
# MPI_Alltoall, MPI_Barrier, MPI_Bcast, MPI_Gather, MPI_Reduce)
HPCC_COLLS = ["barrier", "bcast", "gather", "reduce", "allreduce", "alltoall"]

DEFAULT_LAYOUTS = "p2,p3-rpn2,p4-cyclic2,p5-rpn3"
# MPICH's programs run at their testlist's process counts (p*)
MPICH_LAYOUTS = "p*,p*-rpn2,p*-cyclic2"


def log(msg):
    print(msg, flush=True)


def die(msg):
    print(f"thirdparty: {msg}", file=sys.stderr, flush=True)
    sys.exit(2)


# ------------------------------------------------------------------ layouts
def parse_layout(tok):
    """p<NP>[-rpn<K>|-cyclic<K>|-fake<n.n.n...>] -> (name, np, env);
    NP '*' (np None): the test's own process count (MPICH's testlist)."""
    m = re.fullmatch(r"p(\d+|\*)(?:-(rpn|cyclic|fake)([0-9.]+))?", tok)
    if not m:
        die(f"layout '{tok}': want p<NP>, p<NP>-rpn<K>, p<NP>-cyclic<K> "
            "or p<NP>-fake<n.n.n> (e.g. p4-fake0.1.0.2); NP may be * (the test's own)")
    np_ = None if m.group(1) == "*" else int(m.group(1))
    kind, arg = m.group(2), m.group(3)
    env = {}
    if kind == "rpn":
        env["COLLX_RANKS_PER_NODE"] = arg
    elif kind == "cyclic":
        env["COLLX_FAKE_NODES"] = f"cyclic:{arg}"
    elif kind == "fake":
        env["COLLX_FAKE_NODES"] = arg.replace(".", ",")
    return tok, np_, env


# ------------------------------------------------------------ MPICH's tests
class MpichTest:
    """One line of MPICH's coll/testlist: program, process count, its
    arguments, and the collectives its source calls (blocking, MPI_I<name>,
    MPI_<Name>_init or MTest_<Name>: the blocking calls of the nb* programs,
    built with -DUSE_MTEST_NBC, are made nonblocking by MPICH's mtest)."""
    def __init__(self, name, np_, args, colls):
        self.name, self.np, self.args, self.colls = name, np_, args, colls
        self.label = f"{name}.p{np_}" + "".join(
            "." + re.sub(r"[^\w=]", "", x) for x in args)


def mpich_tests(coll_dir, src_dir):
    """MpichTest list of coll_dir/testlist (the configured copy), sources
    read from src_dir; programs that did not build are left out."""
    try:
        makefile = open(os.path.join(src_dir, "Makefile.am")).read()
        lines = open(os.path.join(coll_dir, "testlist")).read().splitlines()
    except OSError as e:
        die(f"MPICH's tests are not set up ({e}): tests/thirdparty/run.sh setup-mpich-tests")
    tests = []
    for line in lines:
        tok = line.split("#")[0].split()
        if len(tok) < 2 or not os.access(os.path.join(coll_dir, tok[0]), os.X_OK):
            continue
        args = [t[len("arg="):] for t in tok[2:] if t.startswith("arg=")]
        m = re.search(rf"^{re.escape(tok[0])}_SOURCES\s*=\s*(\S+)", makefile, re.M)
        with open(os.path.join(src_dir, m.group(1) if m else tok[0] + ".c")) as f:
            text = f.read()
        colls = [c for c, n in MPI_NAMES.items()
                 if re.search(rf"\b(MPI_I?{n}(_init)?|MTest_{n})\s*\(", text)]
        tests.append(MpichTest(tok[0], int(tok[1]), args, colls))
    return tests


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


def coll_of_call(name):
    """'Allreduce', 'Iallreduce' (MPI_I<name>), 'Allreduce_init' -> 'allreduce'."""
    name = name.lower()
    if name.endswith("_init"):
        name = name[:-len("_init")]
    if name not in MPI_NAMES and name.startswith("i") and name[1:] in MPI_NAMES:
        name = name[1:]
    return name


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
                key = (coll_of_call(m.group(1)), m.group(2))
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

    def rank_file(self, outdir, rank, stream, np_):
        if self.mpi == "openmpi":   # rank.0 .. rank.8 (np 9), rank.00 .. rank.09 (np 10), ...
            return os.path.join(outdir, "1", f"rank.{rank:0{len(str(np_))}d}", stream)
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
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # quiet under `| head`
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mpi", default=os.environ.get("COLLX_MPI", "openmpi"),
                    choices=["openmpi", "mpich"])
    ap.add_argument("--suite", default="mpi4py", choices=["mpi4py", "hpcc", "mpich"])
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
    ap.add_argument("--layouts", default="",
                    help=f"comma list (default {DEFAULT_LAYOUTS}; mpich: {MPICH_LAYOUTS}, "
                         "p* = the test's own process count)")
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
    ap.add_argument("--thread-level", default="multiple",
                    choices=["multiple", "serialized", "funneled", "single"],
                    help="mpi4py's MPI_Init_thread level (MPI4PY_RC_THREAD_LEVEL; "
                         "default multiple, mpi4py's own)")
    ap.add_argument("--no-thread-retry", action="store_true",
                    help="do not re-run at 'funneled' a case whose algorithm "
                         "collx refused under MPI_THREAD_MULTIPLE")
    ap.add_argument("--dry-run", action="store_true", help="print the runs only")
    ap.add_argument("--mpi4py-test-dir", default="")
    ap.add_argument("--python", default="")
    ap.add_argument("--yield-lib", default="",
                    help="extra preload (MPICH: the yield-when-idle helper)")
    ap.add_argument("--hpcc-dir", default="", help="dir holding hpccinf.txt (hpcc suite)")
    ap.add_argument("--mpich-dir", default="", help="MPICH's built coll/ (mpich suite)")
    ap.add_argument("--mpich-src", default="", help="MPICH's test/mpi/coll sources (mpich suite)")
    ap.add_argument("--tests", default="",
                    help="mpich suite: comma list of program names to keep")
    a = ap.parse_args()

    mpi = a.mpi
    # as bench/mpi_env.sh (run.sh sources it; here for direct calls too)
    for k, v in (("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
                 ("OMPI_MCA_btl_vader_single_copy_mechanism", "none"),
                 ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
                 ("OMPI_MCA_mpi_yield_when_idle", "1")):
        os.environ.setdefault(k, v)
    build = os.path.join(ROOT, "build", mpi)
    lib = os.path.abspath(a.lib or os.path.join(build, "libcollx_pmpi.so"))
    info = os.path.join(build, "bench", "collx_info")
    if not os.path.exists(lib) or not os.path.exists(info):
        die(f"{lib} or {info} missing: build collx first "
            f"(COLLX_MPI={mpi} ./run build)")
    reg = registry(info)

    if a.colls == "all":
        colls = HPCC_COLLS if a.suite == "hpcc" else list(reg)
    else:
        colls = a.colls.split(",")
    for c in colls:
        if c not in reg:
            die(f"unknown collective '{c}'; known: {','.join(reg)}")
    layouts = [parse_layout(t) for t in
               (a.layouts or (MPICH_LAYOUTS if a.suite == "mpich" else DEFAULT_LAYOUTS)).split(",")
               if t]
    if a.suite != "mpich" and any(np_ is None for _, np_, _ in layouts):
        die("p* layouts are for the mpich suite (its tests say their process counts)")
    files_keep = [FILE_ALIASES.get(f, f) for f in a.files.split(",") if f]

    tp = os.path.join(ROOT, "build", "thirdparty")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    outroot = os.path.abspath(a.out or os.path.join(tp, "results", f"{a.suite}-{mpi}-{stamp}"))
    if not a.dry_run:
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
    elif a.suite == "mpich":
        testdir, python = os.path.abspath(a.mpich_dir), None
        keep = set(a.tests.split(",")) - {""}
        mtests = [t for t in mpich_tests(a.mpich_dir, a.mpich_src)
                  if not keep or t.name in keep]
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
        fams = a.family.split(",")
        if fams == ["all"]:   # every algorithm name, forced wherever it exists
            fams = []
            for c in colls:
                fams += [x for x in reg[c] if x != "native" and x not in fams]
        for fam in fams:
            have = [c for c in colls if fam in reg[c]]
            if not have:
                die(f"no selected collective has an algorithm '{fam}'")
            algenv = {f"COLLX_{c.upper()}_ALGORITHM": fam for c in have}
            label = "+".join(have) if len(have) <= 4 else f"{len(have)}colls"
            if a.suite == "hpcc":
                runs.append((label, fam, algenv, "hpcc", [], have))
                continue
            if a.suite == "mpich":
                runs += [(label, fam, algenv, t, [], have) for t in mtests
                         if set(t.colls) & set(have)]
                continue
            # the covered collectives' files, each with the union of their
            # tests (whole files with --no-filter)
            fmap = {}
            for c in have:
                for f, pats in mpi4py_map(mpi).get(c, []):
                    fmap.setdefault(f, [])
                    fmap[f] += [x for x in pats if x not in fmap[f]]
            for f in (files_keep or [f for f in FAMILY_FILES if f in fmap]):
                pats = [] if a.no_filter or f not in fmap else fmap[f]
                runs.append((label, fam, algenv, f, pats, have))
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
                if a.suite == "mpich":
                    runs += [(c, alg, algenv, t, [], [c]) for t in mtests if c in t.colls]
                    continue
                cmap = dict(mpi4py_map(mpi).get(c, []))
                files = files_keep or list(cmap)
                for f in files:
                    pats = [] if a.no_filter or f not in cmap else cmap[f]
                    runs.append((c, alg, algenv, f, pats, [c]))

    launcher = Launcher(mpi, lib, a.yield_lib)
    # MPICH's programs check MPICH's behaviour too (MPI_LXOR on floats,
    # char sums that wrap): a program that fails under the MPI alone is
    # not run through collx, and listed.
    fails_alone = {}
    if a.suite == "mpich" and not a.dry_run:
        fails_alone = mpich_baseline(a, outroot, testdir,
                                     [t for t in mtests if any(r[3] is t for r in runs)])
        runs = [r for r in runs if r[3].label not in fails_alone]
    total = len(runs) * len(layouts)
    lib_id = hashlib.sha1(open(os.path.realpath(lib), "rb").read()).hexdigest()[:10]
    lib_time = datetime.datetime.fromtimestamp(os.path.getmtime(os.path.realpath(lib)))
    log(f"# {a.suite} on {mpi}: {total} runs ({len(runs)} x {len(layouts)} layouts), "
        f"timeout {a.timeout:g}s; interposer {lib} (sha1 {lib_id}, built {lib_time:%Y-%m-%d %H:%M})")
    log(f"# logs: {outroot}   csv: {csv_path}")
    if a.dry_run:
        total = 0

    fields = ["mpi", "suite", "layout", "np", "thread_level", "coll", "alg", "file", "tests_filter",
              "status", "rc", "seconds", "tests_run", "tests_failed", "tests_skipped", "failed_ranks",
              "alg_calls", "other_calls", "exercised", "first_failure", "collx_notes", "log_dir",
              "lib_sha1"]
    rows, bad, k, unexercised = [], 0, 0, []
    t_all = time.monotonic()
    with open(os.devnull if a.dry_run else csv_path, "w", newline="") as fcsv:
        w = csv.DictWriter(fcsv, fieldnames=fields)
        w.writeheader()
        for (lname, np_, lenv) in layouts:
            for (clabel, alg, algenv, f, pats, forced_colls) in runs:
                k += 1
                levels = [a.thread_level]
                while levels:
                    level = levels.pop(0)
                    row = run_case(a, launcher, outroot, testdir, python, k, total,
                                   lname, np_, lenv, clabel, alg, algenv, f, pats,
                                   forced_colls, level, extra_env)
                    if row is None:       # dry run
                        continue
                    row.update(mpi=mpi, lib_sha1=lib_id)
                    w.writerow(row)
                    fcsv.flush()
                    rows.append(row)
                    if row["status"] != "pass":
                        bad += 1
                    if row["exercised"] == "no":
                        unexercised.append(row)
                    # collx refuses some algorithms under MPI_THREAD_MULTIPLE
                    # (mpi4py's default): run the case again below it
                    if (a.suite == "mpi4py" and level == "multiple" and not a.no_thread_retry
                            and row["exercised"] == "no"
                            and "MPI_THREAD_MULTIPLE" in row["collx_notes"]):
                        levels.append("funneled")
    if a.dry_run:
        return 0
    secs = time.monotonic() - t_all
    done_keys = {(r["layout"], r["coll"], r["alg"], r["file"]) for r in rows
                 if r["exercised"] == "yes"}
    unexercised = [r for r in unexercised
                   if (r["layout"], r["coll"], r["alg"], r["file"]) not in done_keys]
    if unexercised:
        log(f"# {len(unexercised)} runs in which the forced algorithm served no call "
            "(the tests did not exercise it; see collx_notes):")
        for r in unexercised:
            log(f"#   {r['layout']} {r['coll']}={r['alg']} {r['file']} "
                f"thread_level={r['thread_level']}: {r['collx_notes'][:160] or '-'}")
    if fails_alone:
        log(f"# {len(fails_alone)} programs fail under {mpi} alone and were not run through "
            f"collx: {', '.join(sorted(fails_alone))}")
    log(f"# done: {len(rows)} runs, {len(rows) - bad} passed, {bad} not passed, "
        f"{secs:.0f}s wall; csv {csv_path}")
    return 1 if bad else 0


def mpich_baseline(a, outroot, testdir, tests):
    """Runs each of MPICH's programs once under the MPI alone (no collx):
    -> {label: its failure} of those that fail there."""
    alone = Launcher(a.mpi, "", a.yield_lib)
    failed = {}
    log(f"# baseline: {len(tests)} programs under {a.mpi} alone (no collx)")
    for i, t in enumerate(tests):
        outdir = os.path.join(outroot, "baseline", t.label)
        os.makedirs(outdir, exist_ok=True)
        env = {"LD_PRELOAD": alone.preload} if alone.preload else {}
        cmd = alone.command(t.np, env, outdir, [os.path.join(testdir, t.name)] + t.args)
        rc, timed_out, _ = run_job(cmd, testdir, a.timeout, f"{os.getpid()}-base-{i}",
                                   os.path.join(outdir, "launcher.log"))
        row = summarize("mpich", alone, outdir, t.np, rc, timed_out, [], "")
        if row["status"] != "pass":
            failed[t.label] = row["first_failure"]
            log(f"#   {t.label} fails under {a.mpi} alone, left out: {row['first_failure'][:160]}")
    return failed


def run_case(a, launcher, outroot, testdir, python, k, total, lname, np_, lenv,
             clabel, alg, algenv, f, pats, forced_colls, level, extra_env):
    """One launcher invocation -> CSV row (None on --dry-run)."""
    name = "family" if a.family else clabel
    if a.suite == "mpich":      # f: an MpichTest, at its own process count
        test, f = f, f.label
        np_ = np_ or test.np
    tag = f"{lname}.{name}.{alg}.{f.replace('.py', '')}"
    if level != "multiple" and a.suite == "mpi4py":
        tag += f".{level}"
    outdir = os.path.join(outroot, re.sub(r"[^\w.+-]", "_", tag))
    env = {"LD_PRELOAD": launcher.preload, "COLLX_VERBOSE": a.verbose_level}
    if a.suite == "mpi4py":
        env.update(PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1",
                   MPI4PY_RC_THREAD_LEVEL=level)
    env.update(lenv)
    env.update(algenv)
    env.update(extra_env)
    if a.suite == "mpi4py":
        argv = [python, f, "-v"]
        for p in pats:
            argv += ["-k", p]
    elif a.suite == "mpich":
        argv = [os.path.join(testdir, test.name)] + test.args
    else:
        argv = ["/usr/bin/hpcc"]
    cmd = launcher.command(np_, env, outdir, argv)
    cwd = outdir if a.suite == "hpcc" else testdir   # hpcc reads/writes its cwd
    if a.dry_run:
        log(f"[{k}] (cd {cwd} && {shlex.join(cmd)})")
        return None
    os.makedirs(outdir, exist_ok=True)
    if a.suite == "hpcc":
        with open(os.path.join(testdir, "hpccinf.txt")) as ft, \
                open(os.path.join(cwd, "hpccinf.txt"), "w") as fo:
            fo.write(hpcc_input(ft.read(), np_))
    repro = os.path.join(outdir, "repro.sh")
    with open(repro, "w") as fr:
        fr.write("#!/bin/sh\n# re-runs this case; each rank's output goes to the "
                 "folder of this file\n")
        fr.write(". " + shlex.quote(os.path.join(ROOT, "bench", "mpi_env.sh")) + "\n")
        fr.write(f"cd {shlex.quote(cwd)} && timeout {a.timeout:g} {shlex.join(cmd)}\n")
    marker = f"{os.getpid()}-{k}-{level}"
    rc, timed_out, secs = run_job(cmd, cwd, a.timeout, marker,
                                  os.path.join(outdir, "launcher.log"))
    row = summarize(a.suite, launcher, outdir, np_, rc, timed_out, forced_colls, alg)
    row.update(suite=a.suite, layout=lname, np=np_, coll=clabel, alg=alg, file=f,
               thread_level=level if a.suite == "mpi4py" else "-",
               tests_filter=" ".join(pats) or "-", seconds=f"{secs:.1f}",
               log_dir=os.path.relpath(outdir, ROOT),
               exercised="yes" if row["alg_calls"] > 0 else "no")
    calls = f"{alg} served {row['alg_calls']} calls on rank 0"
    if row["other_calls"]:
        calls += f", {row['other_calls']} ran another algorithm"
    lv = f" [{level}]" if level != "multiple" and a.suite == "mpi4py" else ""
    line = (f"[{k}/{total}] {launcher.mpi} {lname} {clabel}={alg} {f}{lv}: "
            f"{row['status'].upper()} {row['tests_run']} tests, "
            f"{row['tests_failed']} failed"
            + (f", {row['tests_skipped']} skipped" if row["tests_skipped"] else "")
            + f"; {calls}; {secs:.1f}s")
    if row["status"] != "pass":
        line += f"\n      {row['first_failure']}\n      repro: sh {repro}"
    log(line)
    return row


def summarize(suite, launcher, outdir, np_, rc, timed_out, forced_colls, alg):
    ranks = []
    for r in range(np_):
        try:
            with open(launcher.rank_file(outdir, r, "stderr", np_), errors="replace") as f:
                err = f.read()
        except OSError:
            err = ""
        try:
            with open(launcher.rank_file(outdir, r, "stdout", np_), errors="replace") as f:
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
    if suite == "mpich":
        return summarize_mpich(ranks, launch, rc, timed_out, forced_colls, alg)
    parsed = [parse_rank(e) for e, _ in ranks]
    r0 = parsed[0] if parsed else parse_rank("")
    alg_calls, other = served(r0["calls"], forced_colls, alg)
    ran = max([p["ran"] or 0 for p in parsed] or [0])
    nfail = max([counts_of(p["final"]) or 0 for p in parsed] or [0])
    nskip = max([int((re.search(r"skipped=(\d+)", p["final"][1]) or [0, 0])[1])
                 if p["final"] else 0 for p in parsed] or [0])
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
    notes = notes_of(r0["why"], errs)
    return {"status": status, "rc": rc, "tests_run": ran, "tests_failed": nfail,
            "tests_skipped": nskip,
            "failed_ranks": " ".join(map(str, failed_ranks)) or "-",
            "alg_calls": alg_calls, "other_calls": other,
            "first_failure": first[:400], "collx_notes": notes[:400]}


def served(calls, forced_colls, alg):
    """-> (calls the forced algorithm served, calls of the forced
    collectives that ran another algorithm)."""
    mine = [(x == alg, v) for (c, x), v in calls.items() if c in forced_colls]
    return sum(v for y, v in mine if y), sum(v for y, v in mine if not y)


def notes_of(why, errs):
    return "; ".join((why + [f"error: {e}" for e in errs])[:3])


def collx_lines(ranks):
    """collx's verbose lines of the ranks' stderr -> (calls served on rank 0
    by (collective, algorithm), collx's reasons on rank 0, errors on any)."""
    calls, why, errs = {}, [], []
    for e, _ in ranks[:1]:
        for m in COLLX_CALL.finditer(e):
            if int(m.group(3)) > 1:
                key = (coll_of_call(m.group(1)), m.group(2))
                calls[key] = calls.get(key, 0) + 1
        for m in COLLX_WHY.finditer(e):
            if m.group(1) not in why:
                why.append(m.group(1))
    for e, _ in ranks:
        for m in COLLX_ERR.finditer(e):
            if m.group(1) not in errs:
                errs.append(m.group(1))
    return calls, why, errs


def summarize_mpich(ranks, launch, rc, timed_out, forced_colls, alg):
    """MPICH's runtests verdict: rank 0 prints " No Errors" and the job
    exits 0; anything a rank prints that is not collx's is the failure."""
    calls, why, errs = collx_lines(ranks)
    alg_calls, other = served(calls, forced_colls, alg)
    said = [l.strip() for e, o in ranks for l in (o + e).splitlines()
            if l.strip() and not l.startswith("collx") and l.strip() != "No Errors"]
    ok = bool(ranks) and "No Errors" in ranks[0][1]
    if timed_out:
        status, first = "timeout", "timed out"
    elif rc == 0 and ok:
        status, first = "pass", ""
    else:
        status = "fail"
        tail = [l for l in launch.splitlines() if l.strip()]
        first = f"rc={rc}; " + " | ".join(said[:3] or tail[-2:])
    notes = notes_of(why, errs)
    return {"status": status, "rc": rc, "tests_run": 1, "tests_failed": int(status != "pass"),
            "tests_skipped": 0, "failed_ranks": "-", "alg_calls": alg_calls,
            "other_calls": other, "first_failure": first[:400], "collx_notes": notes[:400]}


def hpcc_checks(text):
    """hpccoutf.txt -> [(check, ok, detail)]: HPCC's own verdicts (HPL and
    PTRANS residual checks, RandomAccess error counts, STREAM validation,
    per-node error counts) plus FFT's maximal error (1e-6: our bound, the
    correct result is ~1e-15)."""
    checks = []
    def add(name, ok, detail=""):
        checks.append((name, bool(ok), detail))
    add("finished", "End of HPC Challenge tests" in text)
    m = re.search(r"^Success=(\d+)", text, re.M)
    add("Success=1", m and m.group(1) == "1", m.group(0) if m else "no Success line")
    for sec in ("HPL", "PTRANS"):
        body = re.search(rf"Begin of {sec} section\.(.*?)End of {sec} section\.", text, re.S)
        if not body:
            add(sec, False, "section missing")
            continue
        b = body.group(1)
        npass = sum(int(x) for x in re.findall(r"(\d+) tests completed and passed", b))
        nfail = sum(int(x) for x in re.findall(r"(\d+) tests completed and failed", b))
        bad = re.findall(r"^.*\bFAILED\b.*$", b, re.M)
        add(sec, npass > 0 and nfail == 0 and not bad,
            bad[0].strip() if bad else f"{npass} passed, {nfail} failed residual checks")
    for line in re.findall(r"^Found \d+ errors in \d+ locations \((\w+)\)\.", text, re.M):
        pass
    ra = re.findall(r"^(Found (\d+) errors in \d+ locations \((\w+)\)\.)", text, re.M)
    add("RandomAccess verification", ra and all(x[2] == "passed" for x in ra),
        next((x[0] for x in ra if x[2] != "passed"), f"{len(ra)} checks"))
    for m in re.finditer(r"^(\w*RandomAccess\w*)_ErrorsFraction=(\S+)", text, re.M):
        add(m.group(1), float(m.group(2)) <= 0.01, m.group(0))
    st = re.findall(r"^Solution Validates.*$|^Failed Validation.*$", text, re.M)
    add("STREAM validation", st and all(x.startswith("Solution Validates") for x in st),
        next((x for x in st if not x.startswith("Solution")), ""))
    nodes = re.findall(r"^Node\(s\) with error (\d+)", text, re.M)
    add("nodes with error", all(n == "0" for n in nodes),
        f"Node(s) with error {next((n for n in nodes if n != '0'), '0')}")
    for m in re.finditer(r"^(\w*FFT)_maxErr=(\S+)", text, re.M):
        try:
            ok = float(m.group(2)) < 1e-6
        except ValueError:
            ok = False
        add(f"{m.group(1)}_maxErr", ok, m.group(0))
    for line in re.findall(r"^.*\bFAILED\b.*$", text, re.M):
        add("FAILED line", False, line.strip())
    return checks


def hpcc_grid(np_):
    """P x Q = np_ with P <= Q, as square as possible."""
    p = max(d for d in range(1, int(np_ ** 0.5) + 1) if np_ % d == 0)
    return p, np_ // p


def hpcc_input(template, np_):
    P, Q = hpcc_grid(np_)
    out = []
    for line in template.splitlines():
        if re.match(r"^\d+\s+Ps\b", line):
            line = f"{P:<13d}Ps"
        elif re.match(r"^\d+\s+Qs\b", line):
            line = f"{Q:<13d}Qs"
        out.append(line)
    return "\n".join(out) + "\n"


def summarize_hpcc(outdir, ranks, launch, rc, timed_out, forced_colls, alg):
    try:
        text = open(os.path.join(outdir, "hpccoutf.txt"), errors="replace").read()
    except OSError:
        text = ""
    checks = hpcc_checks(text)
    failed = [c for c in checks if not c[1]]
    with open(os.path.join(outdir, "checks.txt"), "w") as f:
        for name, ok, detail in checks:
            f.write(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}\n")
    calls, why, errs = collx_lines(ranks)
    alg_calls, other = served(calls, forced_colls, alg)
    if timed_out:
        status = "timeout"
        secs = re.findall(r"^Begin of (\w+) section", text, re.M)
        first = "timed out" + (f" in the {secs[-1]} section" if secs else "")
    elif rc == 0 and not failed:
        status, first = "pass", ""
    else:
        status = "fail"
        tail = [l for l in launch.splitlines() if l.strip()]
        first = "; ".join(f"{n}: {d}" for n, _, d in failed[:3]) or f"rc={rc}"
        if rc != 0:
            first = f"rc={rc}; {first}" + (" | " + " | ".join(tail[-2:]) if tail else "")
    notes = notes_of(why, errs)
    return {"status": status, "rc": rc, "tests_run": len(checks),
            "tests_failed": len(failed), "tests_skipped": 0, "failed_ranks": "-",
            "alg_calls": alg_calls, "other_calls": other,
            "first_failure": first[:400], "collx_notes": notes[:400]}


if __name__ == "__main__":
    sys.exit(main())
