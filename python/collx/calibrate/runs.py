"""The programs calibrate runs, on the user's launch and in SMPI: calibench
(messages, copies), node_sync (the node's flags, collx's own work) and
collbench (the check). The launch is the tuner's (tune/target.Real: the
words as the user wrote them, the runs' variables passed to every rank);
SMPI is sim/run on a platform file (tune/target.Smpi)."""
import os
import shlex
import tempfile
import time

from collx import tools
from collx.csvio import read_rows, time_rows
from collx.tune import launcher, limits
from collx.tune.target import Real, Smpi


T0 = time.time()


def say(msg):
    """A progress line, with the time since calibrate started."""
    t = int(time.time() - T0)
    print(f"[calibrate {t // 60}:{t % 60:02d}] {msg}", flush=True)


class RunFailed(RuntimeError):
    """A run did not give its results; the text says which and why."""


def mpi_of(words):
    """openmpi or mpich: the MPI whose programs the launch words run (the
    launcher's kind; $COLLX_MPI where it cannot tell)."""
    kind = launcher.kind_of(words)
    if kind == "hydra":
        return "mpich"
    if kind == "openmpi":
        return "openmpi"
    return tools.default_mpi()


class Where:
    """One place to run: a real launch, or an SMPI platform (its XML)."""

    def __init__(self, launch=None, platform=None, p=None, hostfile=None, mpi=None):
        self.launch, self.platform = launch, platform
        if launch:
            self.mpi = mpi or mpi_of(shlex.split(launch))
            self.target = Real(p, launch_cmd=launch, mpi=self.mpi,
                               collbench=tools.find("collbench", self.mpi),
                               info=tools.find("collx_info", self.mpi))
        else:
            self.mpi = "smpi"
            self.target = Smpi(platform, p, hostfile=hostfile)
        self.p = self.target.p

    def describe(self):
        return self.target.describe()

    def program(self, name):
        return tools.find(name, self.mpi)

    def run(self, name, args, timeout=600.0, env=None):
        """Runs program name with args on all p ranks; returns its stdout.
        RunFailed with the launcher's message where it fails."""
        argv, env0 = self.target.command(self.p, list(args), program=self.program(name),
                                         env=env)

        with tempfile.NamedTemporaryFile("r", prefix="collx-calibrate.", suffix=".out") as f:
            try:
                out = limits.run(argv, {**env0, **(env or {})}, timeout=timeout,
                                 cwd=os.getcwd(), stdout_path=f.name,
                                 clock=self.target.limit_clock, unset=self.target.unset)
            except OSError as e:
                raise RunFailed(f"cannot run {shlex.join(argv)}: {e.strerror}") from None
            text = f.read()
        if not out.ok:
            raise RunFailed(f"{name} failed on {self.describe()}:\n{out.report()}")
        return text

    def calibench(self, csv, sizes="1:4M", reps=7, env=None):
        return self.run("calibench", ["-m", sizes, "--reps", str(reps), "--csv", csv, "-q"],
                        env=env)

    def node_sync(self, csv, iters=20000):
        return self.run("node_sync", ["--iters", str(iters), "--csv", csv])

    def collbench(self, coll, algs, sizes, iters, warmups, env=None):
        """collbench's rows of metric r for coll x algs x sizes."""
        with tempfile.TemporaryDirectory(prefix="collx-calibrate.") as d:
            csv = os.path.join(d, "cb.csv")
            self.run("collbench", ["--coll", coll, "--algs", ",".join(algs), "-m",
                                   ",".join(str(s) for s in sizes), "-i", str(iters),
                                   "-x", str(warmups), "-q", "--csv", csv], env=env)
            return time_rows(read_rows(csv), "r")
