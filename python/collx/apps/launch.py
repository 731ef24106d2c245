"""One launch of an application: on this machine with fake nodes (the
MPI's own launcher, COLLX_RANKS_PER_NODE), or on the emulated cluster
(`./run cluster run`, real nodes: network namespaces and shaped links).

A launch is native (no collx at all: no interposer, no COLLX_ variable)
or through collx (collxrun: the interposer and every COLLX_ setting on
every rank). The program runs in its own folder (`sh -c 'cd DIR && exec
...'`: the cluster's nodes start in another directory); its output, the
exact command (repro.sh) and COLLX_STATS's JSON stay there. A launch that
outlives its timeout is killed with its whole process group."""
import json
import os
import shlex
import signal
import subprocess
import time

from collx import tools


class Where:
    """Where launches run. kind "fake": mpirun of `mpi` on this machine,
    ranks_per_node fake nodes; kind "cluster": ./run cluster run with
    placement (block, cyclic, alternate) on cluster $COLLX_CLUSTER."""

    def __init__(self, kind, np_, ranks_per_node=2, placement="block", mpi="openmpi"):
        if kind not in ("fake", "cluster"):
            raise ValueError(f"where: fake or cluster (got '{kind}')")
        self.kind, self.np, self.rpn = kind, np_, ranks_per_node
        self.placement, self.mpi = placement, mpi

    def label(self):
        if self.kind == "fake":
            return f"fake-p{self.np}-rpn{self.rpn}"
        return f"cluster-p{self.np}-{self.placement}"

    def launcher(self):
        """The launcher words (the program follows)."""
        if self.kind == "cluster":
            root = tools.checkout()
            if not root:
                raise tools.ToolNotFound("the emulated cluster runs from a checkout "
                                         "(./run cluster)")
            return [os.path.join(root, "run"), "cluster", "run", "--placement",
                    self.placement, "-n", str(self.np), "--"]
        if self.mpi == "mpich":
            return ["mpiexec.mpich", "-n", str(self.np)]
        return ["mpirun.openmpi", "--oversubscribe", "-np", str(self.np)]


# the tools' own variables, not settings of the library
TOOL_VARS = ("COLLX_CLUSTER", "COLLX_MPI")


def clean_env(collx):
    """The environment of a launch: the caller's, without COLLX_ settings
    and LD_PRELOAD (a native run has no collx; a collx run gets its
    settings from `collx` only)."""
    env = {k: v for k, v in os.environ.items()
           if (k in TOOL_VARS or not k.startswith("COLLX_")) and k != "LD_PRELOAD"}
    env.update(collx or {})
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def command(where, program, workdir, collx):
    """The launch's words. collx: None for native, else {COLLX_ name: value}
    (empty: collx loaded, nothing chosen)."""
    inner = ["sh", "-c", f"cd {shlex.quote(workdir)} && exec {shlex.join(program)}"]
    if collx is None:
        return where.launcher() + inner
    if where.kind == "fake":
        collxrun = tools.find("collxrun", where.mpi)
        return [collxrun, "--mpi", where.mpi] + where.launcher() + inner
    words = where.launcher()
    return words[:3] + ["--collxrun", f"--mpi {where.mpi}"] + words[3:] + inner


def read_output(workdir):
    """A finished launch's output (workdir/output.txt), "" without one."""
    try:
        with open(os.path.join(workdir, "output.txt"), errors="replace") as f:
            return f.read()
    except OSError:
        return ""


class Result:
    def __init__(self, rc, seconds, timed_out, output, stats):
        self.rc, self.seconds, self.timed_out = rc, seconds, timed_out
        self.output, self.stats = output, stats

    def ok(self):
        return self.rc == 0 and not self.timed_out


def run(where, program, workdir, collx=None, stats=False, timeout=600):
    """Launch program (words) in workdir; collx as in command(). stats:
    COLLX_STATS=workdir/stats.json (collx runs only). Returns a Result
    with the wall time of the launcher (start to exit)."""
    os.makedirs(workdir, exist_ok=True)
    settings = dict(collx) if collx is not None else None
    if where.kind == "fake" and settings is not None:
        settings.setdefault("COLLX_RANKS_PER_NODE", str(where.rpn))
    stats_path = os.path.join(workdir, "stats.json")
    if stats and settings is not None:
        settings["COLLX_STATS"] = stats_path
    if os.path.exists(stats_path):
        os.remove(stats_path)
    words = command(where, program, workdir, settings)
    env = clean_env(settings)
    with open(os.path.join(workdir, "repro.sh"), "w") as f:
        sets = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted((settings or {}).items()))
        f.write(f"#!/bin/sh\n# {where.label()}\n{('env ' + sets + ' ') if sets else ''}"
                f"{shlex.join(words)}\n")
    logpath = os.path.join(workdir, "output.txt")
    t0 = time.monotonic()
    timed_out = False
    with open(logpath, "w") as log:
        p = subprocess.Popen(words, stdout=log, stderr=subprocess.STDOUT, env=env,
                             start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(p.pid, signal.SIGKILL)
            rc = p.wait()
    seconds = time.monotonic() - t0
    output = read_output(workdir)
    data = None
    if stats and os.path.exists(stats_path):
        try:
            with open(stats_path) as f:
                data = json.load(f)
        except (OSError, ValueError):
            data = None
    return Result(rc, seconds, timed_out, output, data)
