#!/usr/bin/python3
"""collx tune --mpi-file on the build's real MPI (issue 64), end to end in
seconds: p = 2, allreduce at a few sizes, the MPI's own algorithms read
from it (collx_info --mpi-cvars) and measured, its tuning file written
(Open MPI's dynamic rules or MPICH's selection JSON), collx's rules
beside it naming it, both files passing `collx rules check`; then the
MPI run with only its file (no LD_PRELOAD, no COLLX_*: collbench's native
is the MPI's own call) runs what the file says:

* Open MPI: its Debian build prints nothing per call (coll/tuned's
  messages are compiled only with --enable-debug), so the test asks
  Open MPI's own exported functions: rank 0 under gdb, a breakpoint on
  every ompi_coll_base_allreduce_intra_* in the libmpi collbench loads;
  at each size, the function that runs with only the file is the one
  that runs with the file's algorithm id forced (or, where the file
  leaves the MPI's own decision, with nothing set). Checked for the
  tuned file and for a file of known choices (ids from the MPI's own
  enumeration, no name table).
* MPICH 4.0 has no selection log; its own output that tells is the
  schedule dump of its nonblocking algorithms (MPIR_CVAR_COLL_SCHED_DUMP):
  a file written by the same code that picks "nb" from 1 KiB on dumps
  schedules at 4 KiB and none at 64 B; the tuned file loads (MPICH
  aborts on a name or tree it cannot read, as a bad file shows).
* Intel MPI: its library keeps its symbol table, so as with Open MPI:
  rank 0 under gdb, a breakpoint on every allreduce function of its
  shared-memory and MPIR levels; with only a file of known choices (node
  preset 5, which runs MPIR_Allreduce_intra_nb_ring at 2 ranks, from
  256 B to 1 KiB) that function runs at 512 B and not at 64 B nor 4 KiB;
  the tuned file runs.

    test_tune_mpi.py REPO_ROOT COLLBENCH COLLX_INFO MPIEXEC [MPIEXEC_FLAGS...]"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

ROOT, COLLBENCH, INFO, MPIEXEC, FLAGS = (sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4],
                                         sys.argv[5:])
sys.path.insert(0, os.path.join(ROOT, "python"))
from collx import mpifile  # noqa: E402
from collx.tune import mpialgs, mpitune  # noqa: E402

failures = []
SIZES = [64, 512, 4096]
# the tests' environment (bench/mpi_env.sh) without what --launch leaves out
CLEAN = {k: v for k, v in os.environ.items()
         if not k.startswith(("COLLX_", "OMPI_MCA_coll", "MPIR_CVAR_"))}


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def launch_words():
    words = [MPIEXEC, "-n", "2"] + FLAGS
    version = subprocess.run([MPIEXEC, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    if ("Open MPI" in version or "OpenRTE" in version) and os.geteuid() == 0:
        words.append("--allow-run-as-root")
    return words


def collbench_native(m, env, rank0=None):
    """collbench's native allreduce at m bytes on 2 ranks with env added
    (nothing of collx's); rank0: words that run rank 0's collbench (gdb)."""
    args = [COLLBENCH, "--coll", "allreduce", "--algs", "native", "-m", str(m),
            "-i", "2", "-x", "1"]
    if rank0:
        inner = shlex.join(args)
        script = (f'if [ "${{OMPI_COMM_WORLD_RANK:-${{PMI_RANK:-0}}}}" = 0 ]; then exec '
                  f'{shlex.join(rank0)} {inner}; else exec {inner}; fi')
        args = ["sh", "-c", script]
    words = launch_words()
    if env and "Open MPI" in MPI_NAME:
        for k in env:
            words += ["-x", k]
    return subprocess.run(words + args, capture_output=True, text=True, timeout=120,
                          env={**CLEAN, **env})


def ompi_functions():
    """The allreduce algorithms' functions libmpi exports."""
    lib = mpitune.library_of(COLLBENCH)
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                         timeout=60).stdout
    return sorted(set(re.findall(r"\b(ompi_coll_base_allreduce_intra_\w+)", out)))


def ran_function(d, m, env, fns):
    """The set of those functions rank 0 entered at m bytes (gdb)."""
    gdbx = os.path.join(d, "hits.gdb")
    with open(gdbx, "w") as f:
        f.write("set breakpoint pending on\nset pagination off\n")
        for fn in fns:
            f.write(f"break {fn}\ncommands\nsilent\nprintf \"HIT {fn}\\n\"\ncontinue\nend\n")
        f.write("run\nquit\n")
    p = collbench_native(m, env, ["gdb", "-q", "-batch", "-x", gdbx, "--args"])
    return set(re.findall(r"^HIT (\S+)", p.stdout, re.M)), p


def check_openmpi(d, mpi_file, plan):
    """At each size the function run with only the file is the one forced."""
    fns = ompi_functions()
    expect(len(fns) >= 2, f"libmpi exports the allreduce algorithms ({len(fns)})")
    only = mpifile.env_for(mpifile.OPENMPI, mpi_file)
    for m in SIZES:
        alg = 0
        for lo, a in plan:
            if lo <= m:
                alg = a
        forced = {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
                  "OMPI_MCA_coll_tuned_allreduce_algorithm": str(alg)} if alg else {}
        got, p = ran_function(d, m, only, fns)
        want, _ = ran_function(d, m, forced, fns)
        expect(got and got == want,
               f"{os.path.basename(mpi_file)} at {m} B: Open MPI ran {sorted(got)}, as with "
               f"algorithm {alg or 'its own decision'} forced: {sorted(want)}" +
               ("" if got else f"\n{p.stdout[-1500:]}{p.stderr[-1500:]}"))


def impi_functions():
    """The allreduce functions of Intel MPI's library (its symbol table)."""
    lib = mpitune.library_of(COLLBENCH)
    out = subprocess.run(["nm", lib], capture_output=True, text=True, timeout=60).stdout
    return sorted(f for f in set(re.findall(
        r"\b((?:MPIDI_POSIX_Allreduce_intra|MPIR_Allreduce_intra|MPIDI_SHMGR)_\w+)", out))
        if not f.endswith(("_cnt", "_check")))


def impi_preset_at(value, m):
    """The preset an I_MPI_ADJUST_ value gives m bytes (the first condition
    that holds; none: the last preset, as Intel MPI does)."""
    items = value.split(";")
    for item in items:
        preset, _, cond = item.partition(":")
        lo, _, hi = cond.partition("-")
        if not cond or int(lo) <= m <= int(hi or lo):
            return preset
    return items[-1].partition(":")[0]


def check_impi(d, mpi_file):
    """Intel MPI runs with only the tuned file; and with only a file of
    known choices (written by the same code: node preset 5 from 256 B to
    1 KiB, the MPI's own decision elsewhere) the preset's function runs at
    512 B and not at 64 B nor 4 KiB. (A forced run is no reference here,
    as it is for Open MPI: collbench's own small allreduces would take the
    forced preset too, and the file's ranges keep them at the default.)"""
    fns = impi_functions()
    expect(len(fns) >= 5, f"Intel MPI's library names its allreduce functions ({len(fns)})")
    p = collbench_native(4096, mpifile.env_for(mpifile.IMPI, mpi_file))
    expect(p.returncode == 0, f"Intel MPI runs with only the tuned file {os.path.basename(mpi_file)}"
           + ("" if p.returncode == 0 else f": {p.stderr[-1500:]}"))
    known = os.path.join(d, "known.env")
    with open(known, "w") as f:
        f.write(mpifile.impi.text({"allreduce": [(0, None), (256, "node5"), (1025, None)]},
                                  ["known choices"]))
    env = mpifile.env_for(mpifile.IMPI, known)
    for m in (64, 512, 4096):
        ran, p = ran_function(d, m, env, fns)
        want = impi_preset_at(env["I_MPI_ADJUST_ALLREDUCE_NODE"], m) == "5"
        expect(ran and ("MPIR_Allreduce_intra_nb_ring" in ran) == want,
               f"known.env at {m} B: Intel MPI ran MPIR_Allreduce_intra_nb_ring (node "
               f"preset 5) {'' if want else 'not '}as the file says: {sorted(ran)}" +
               ("" if ran else f"\n{p.stdout[-1500:]}{p.stderr[-1500:]}"))


def check_mpich(d, mpi_file):
    p = collbench_native(4096, mpifile.env_for(mpifile.MPICH, mpi_file))
    expect(p.returncode == 0 and "unrecognized" not in p.stderr,
           f"MPICH runs with only the tuned file {os.path.basename(mpi_file)}" +
           ("" if p.returncode == 0 else f": {p.stderr[-1500:]}"))
    # a file of known choices, written by the same code: nb from 1 KiB on
    known = os.path.join(d, "known.json")
    tree = mpifile.mpich_tree({"allreduce": {2: [(0, None), (1024, "nb")]}},
                              mpitune.mpich_default(INFO), mpifile.mpich_name)
    with open(known, "w") as f:
        json.dump(tree, f)
    dump = {**mpifile.env_for(mpifile.MPICH, known), "MPIR_CVAR_COLL_SCHED_DUMP": "1"}
    small, big = collbench_native(64, dump), collbench_native(4096, dump)
    expect(big.returncode == 0 and "s->num_entries" in big.stdout + big.stderr and
           small.returncode == 0 and "s->num_entries" not in small.stdout + small.stderr,
           "MPICH with only a file saying nb from 1 KiB: its schedule dump at 4 KiB, "
           "none at 64 B")
    bad = os.path.join(d, "bad.json")
    tree = mpifile.mpich_tree({"allreduce": {2: [(0, "no_such_algorithm")]}},
                              mpitune.mpich_default(INFO), mpifile.mpich_name)
    with open(bad, "w") as f:
        json.dump(tree, f)
    p = collbench_native(64, mpifile.env_for(mpifile.MPICH, bad))
    expect(p.returncode != 0 or "unrecognized" in p.stderr,
           "MPICH refuses a file naming an algorithm it lacks (it reads the file)")


t0 = time.time()
MPI_NAME = subprocess.run([INFO, "--version"], capture_output=True, text=True).stdout
with tempfile.TemporaryDirectory(prefix="collx-tune-mpi.") as d:
    kind = "openmpi" if "Open MPI" in MPI_NAME else \
        "impi" if "Intel" in MPI_NAME else "mpich"
    mpi_file = os.path.join(d, {"openmpi": "ompi.rules", "mpich": "mpich.json",
                                "impi": "impi.env"}[kind])
    rules = os.path.join(d, "rules.json")
    argv = [sys.executable, "-m", "collx", "tune", "--launch", shlex.join(launch_words()),
            "--collbench", COLLBENCH, "--collx-info", INFO, "--colls", "allreduce",
            "--algs", "recursive_doubling", "--no-params", "--sizes", "64:4096",
            "--reps", "2", "--iters", "10", "--warmup", "2", "--budget", "30",
            "--mpi-file", mpi_file, "--out", rules, "--no-check"]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=d,
                       env={**CLEAN, "PYTHONPATH": os.path.join(ROOT, "python")})
    out = p.stdout + p.stderr
    expect(p.returncode == 0 and os.path.exists(mpi_file) and os.path.exists(rules),
           f"collx tune --mpi-file wrote both files (exit {p.returncode})" +
           ("" if p.returncode == 0 else "\n" + out[-3000:]))
    expect(re.search(r"mpi: .*allreduce: \w+ \(\d+\), ", out) is not None,
           "the MPI's allreduce algorithms, read from it, are said")
    if os.path.exists(mpi_file):
        k, probs, _ = mpifile.check(mpi_file)
        expect(k == kind and not probs, f"collx rules check passes {kind}'s file: {probs}")
        prov = json.load(open(rules))["provenance"].get("mpi_tuning", {})
        expect(prov.get("file") == mpi_file and prov.get("mpi") == kind,
               "collx's rules name the MPI's file they were decided against")
        c = subprocess.run([sys.executable, "-m", "collx", "rules", "check", "--collx-info",
                            INFO, mpi_file, rules], capture_output=True, text=True,
                           env={**CLEAN, "PYTHONPATH": os.path.join(ROOT, "python")})
        expect(c.returncode == 0 and ("Open MPI coll/tuned" in c.stdout or
                                      "MPICH selection JSON" in c.stdout or
                                      "Intel MPI" in c.stdout),
               "collx rules check reads both files" + ("" if c.returncode == 0 else
                                                       "\n" + c.stdout + c.stderr))
        if kind == "openmpi":
            rules_num, _ = mpifile.parse_openmpi(open(mpi_file).read())
            tuned = [(m, a) for m, a, _, _ in rules_num[2][2]]
            check_openmpi(d, mpi_file, tuned)
            mpi = mpialgs.read(INFO, ["allreduce"])
            ids = dict(mpi.algs["allreduce"])
            known = [(0, ids["recursive_doubling"]), (1024, ids["ring"])]
            kfile = os.path.join(d, "known.rules")
            with open(kfile, "w") as f:
                f.write(mpifile.openmpi_text({"allreduce": {2: known}}, ["known choices"]))
            check_openmpi(d, kfile, known)
        elif kind == "impi":
            check_impi(d, mpi_file)
        else:
            check_mpich(d, mpi_file)
print(f"{len(failures)} failed" if failures else f"all ok in {time.time() - t0:.0f} s")
sys.exit(1 if failures else 0)
