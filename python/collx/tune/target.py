"""Where the tuner measures: an SMPI platform (sim/run, one simulation per
batch with q ranks: block placement makes them ranks 0..q-1) or a real
launch (the launcher given, or bench/mpi_env.sh's for COLLX_MPI, with
collbench --comm-size q). Both run collbench and read its CSV. A shaped
communicator (grid.shaped: k ranks on each of n nodes) is collbench's
--comm-shape nxk, in the caller's words (grid.comm_args): on a real
launch all P ranks start, in SMPI the first n whole nodes."""
import json
import os
import platform as host_platform
import re
import shlex
import tempfile

from collx import tools
from collx._version import __version__
from collx.csvio import read_rows, time_rows
from collx.info import parse_info
from collx.sweep import launch
from collx.tune import grid as gridmod, launcher, limits, rules as rulesmod
from collx.tune.labels import with_params
from collx.tune.store import Store

# The checkout this runs from (sim/run, sim/platforms, bench/mpi_env.sh);
# None where collx is installed: then SMPI targets are not available and a
# real one needs --launch.
ROOT = tools.checkout()


def hostfile_slots(path):
    """Slots per line of a hostfile ('node-3:16' or 'node-3')."""
    out = []
    with open(path) as f:
        for line in f:
            if line.strip():
                _, _, n = line.strip().partition(":")
                out.append(int(n) if n else 1)
    return out


class Target:
    kind = "?"
    clock = "host CPU seconds"
    limit_clock = "cpu"   # what --timeout counts (limits.run)
    launches_vary = False   # whether two launches of one case may time apart

    unset = ()   # names left out of the runs' environment
    extra_env = {}   # in every run's environment (the MPI's own tuning file: mpitune.py)

    def __init__(self, p, node, collbench, info):
        self.p, self.node = p, node      # ranks, ranks per node (None: one node)
        self.collbench, self.info = collbench, info

    def command(self, q, args, program=None, env=None):
        """(argv, environment additions) of a run of program (collbench by
        default) on q ranks; env: the run's own variables, which the
        launch must pass to every rank."""
        raise NotImplementedError

    def cost(self, outcome):
        """What a run spent of the budget."""
        return outcome.cpu

    def run_collbench(self, q, args, env=None, timeout=300.0, mem_limit=None):
        """(rows of metric r, Outcome): all rows if the run succeeded, else
        those of the cases it finished (collbench's CSV grows case by case).
        Labels with params: with_params."""
        env = {**self.extra_env, **(env or {})} if self.extra_env else env
        return with_params(list(args), env, lambda a, e: self.collbench_run(
            q, a, e, timeout, mem_limit))

    def collbench_run(self, q, args, env, timeout, mem_limit):
        with tempfile.TemporaryDirectory(prefix="collx-tune.") as d:
            csv_ = os.path.join(d, "out.csv")
            argv, env0 = self.command(q, list(args) + ["-q", "--csv", csv_], env=env)
            out = limits.run(argv, {**env0, **(env or {})}, timeout=timeout,
                             mem_limit=mem_limit, cwd=ROOT, clock=self.limit_clock,
                             unset=self.unset)
            return finished_rows(csv_), out

    def info_text(self, args):
        """collx_info's output, run the way this target runs programs."""
        with tempfile.TemporaryDirectory(prefix="collx-tune.") as d:
            path = os.path.join(d, "info.txt")
            argv, env = self.info_command(list(args))
            try:
                out = limits.run(argv, env, timeout=120, cwd=ROOT, stdout_path=path,
                                 unset=self.unset)
            except OSError as e:   # the launcher itself is not there
                raise RuntimeError(f"cannot run {shlex.join(argv)}: {e.strerror}: "
                                   f"{e.filename or argv[0]}") from None
            if not out.ok:   # the whole message: the launcher's says what to change
                raise RuntimeError("collx_info failed, so nothing was measured.\n" +
                                   out.report())
            with open(path) as f:
                return f.read()

    def info_command(self, args):
        """(argv, environment additions) that run collx_info."""
        return self.command(1, args, program=self.info)

    def registry(self):
        """[(collective, [algorithms in registry order, native first])]
        from collx_info."""
        return parse_info(self.info_text([]))

    def mpi_version(self):
        """collx_info --version ("collx 0.1.0 for Open MPI 4.1.4"), run
        the way this target runs programs; None where it cannot tell (a
        collx_info without --version lists the algorithms instead)."""
        try:
            first = self.info_text(["--version"]).splitlines()[:1]
        except (RuntimeError, OSError):
            return None
        return first[0].strip() if first and first[0].startswith("collx ") else None

    def machine(self):
        """What the measurements describe, for the rules' provenance."""
        return {"host": host_platform.node(), "cpu": cpu_model()}

    def tune_space(self):
        """[(knob, {collective or "*": [values]}, [algorithms])]: the per-call
        knobs the knob table gives values to try (collx_info --vars --json,
        "tune")."""
        vars_ = json.loads(self.info_text(["--vars", "--json"]))["vars"]
        return [(v["name"], tune_values(v["tune"]), v["tune_algs"].split(","))
                for v in vars_ if v.get("tune")]


def cpu_model():
    """This host's CPU as online tuning's fingerprint names it (the first
    "model name" line of /proc/cpuinfo, src/core/online/online_fingerprint.c)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "cpu model", "Hardware"):
                    return " ".join(value.split())
    except OSError:
        pass
    return host_platform.processor() or host_platform.machine() or "unknown"


def tune_values(spec):
    """A knob table's "tune": "2,32" (any collective: "*") or per collective,
    "bcast:a,b;allgather,allgatherv:c" -> {"bcast": ["a", "b"], ...}."""
    out = {}
    for part in spec.split(";"):
        colls, _, values = part.rpartition(":")
        for c in (colls.split(",") if colls else ["*"]):
            out[c] = values.split(",")
    return out


def finished_rows(path):
    """The complete rows of metric r in a CSV that may end mid-line."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        text = f.read()
    if not text.endswith("\n"):
        text = text[:text.rfind("\n") + 1]
    tmp = path + ".whole"
    with open(tmp, "w") as f:
        f.write(text)
    return time_rows(read_rows(tmp), "r") if text else []


class Smpi(Target):
    kind = "smpi"

    def __init__(self, platform, p, hostfile=None, collbench=None, info=None):
        self.platform = platform
        if not ROOT:
            raise ValueError("SMPI targets (--platform) run from a collx checkout (sim/run, "
                             "build/smpi); this collx is installed: measure a real MPI "
                             "with --launch")
        if platform.endswith(".xml") or "/" in platform:
            xml = os.path.abspath(platform)
            base = xml[:-4] if xml.endswith(".xml") else xml
            self.name = os.path.basename(base)
        else:
            base = os.path.join(ROOT, "sim", "platforms", platform)
            self.name = platform
            if not os.path.exists(base + ".xml"):
                known = sorted(f[:-4] for f in os.listdir(os.path.dirname(base))
                               if f.endswith(".xml"))
                raise ValueError(f"no SMPI platform '{platform}' in sim/platforms (known: "
                                 f"{', '.join(known)}; or give a path to a platform XML)")
        self.hostfile = hostfile
        hf = hostfile if hostfile and os.path.exists(hostfile) else \
            f"{base}.{hostfile}.hostfile" if hostfile else base + ".hostfile"
        slots = hostfile_slots(hf)
        if p > sum(slots):
            raise ValueError(f"{self.name} has {sum(slots)} slots, asked for {p} ranks")
        node = slots[0] if slots[0] < p else None
        super().__init__(p, node, tools.find("collbench", "smpi", collbench),
                         tools.find("collx_info", "smpi", info))

    def command(self, q, args, program=None, env=None):
        env = {"SIM_HOSTFILE": self.hostfile} if self.hostfile else {}
        return ([os.path.join(ROOT, "sim", "run"), self.platform, str(self.ranks(q, args)),
                 "--", program or self.collbench] + args, env)

    def ranks(self, q, args):
        """Ranks to simulate: q, or with --comm-shape nxk the first n whole
        nodes (block hostfile), of which collbench takes k each."""
        if "--comm-shape" not in args:
            return q
        n = int(args[args.index("--comm-shape") + 1].partition("x")[0])
        return min(n * (self.node or self.p), self.p)

    def describe(self):
        return f"SMPI {self.name}, p={self.p}" + (f", {self.node} ranks per node"
                                                   if self.node else "")

    def mpi_version(self):
        """SimGrid takes --version for itself: "collx 0.1.0 for SimGrid 3.32
        SMPI" from its answer (None where it says nothing)."""
        try:
            text = self.info_text(["--version"])
        except (RuntimeError, OSError):
            return None
        m = re.search(r"SimGrid version (\S+)", text)
        return f"collx {__version__} for SimGrid {m.group(1)} SMPI" if m else None

    def machine(self):
        return {"simulated": f"SMPI platform {self.name}"
                + (f" ({self.hostfile} hostfile)" if self.hostfile else "")}


class Real(Target):
    """A real MPI: launch words (they must start p ranks), then collbench.
    --real: bench/mpi_env.sh's launcher for COLLX_MPI, with this
    repository's test settings (the tests' configuration of this
    machine). --launch: the user's words as written (launcher.py), the
    test settings left out of the runs' environment where ./run exported
    them, the runs' own variables passed to every rank."""
    kind = "real"
    clock = "wall seconds"
    limit_clock = "wall"
    launches_vary = True

    def __init__(self, p, launch_cmd=None, mpi=None, node=None, collbench=None, info=None):
        mpi = mpi or tools.default_mpi()
        if launch_cmd:
            self.launch = shlex.split(launch_cmd)
            if not self.launch:
                raise ValueError("--launch is empty: give the launcher, e.g. \"mpirun -np 4\"")
            self.launcher = launcher.kind_of(self.launch)
            self.env = {}
            self.unset = tuple(launcher.test_settings(
                os.environ, launcher.mpi_env_settings(ROOT)))
            if p is None:
                p = launcher.ranks(self.launch, self.launcher)
            if p is None:
                raise ValueError("cannot tell the number of ranks from --launch "
                                 f"\"{launch_cmd}\"; give -n P")
            if node is None:
                node = launcher.ranks_per_node(self.launch, self.launcher)
        elif ROOT:
            words, env = launch.mpi_setup(ROOT, mpi)
            if p is None:
                raise ValueError("a real target needs -n P or --launch with -n/-np")
            self.launch, self.launcher, self.env = list(words) + ["-n", str(p)], None, dict(env)
        else:
            raise ValueError("--real launches with the checkout's bench/mpi_env.sh; this "
                             "collx is installed: give the launcher, --launch \"mpirun -np P\"")
        self.name = "real"
        super().__init__(p, node if node and node < p else None,
                         tools.find("collbench", mpi, collbench),
                         tools.find("collx_info", mpi, info))

    def command(self, q, args, program=None, env=None):
        extra = ["--comm-size", str(q)] if program is None and q < self.p and \
            "--comm-shape" not in args else []   # a shape says its size
        if self.launcher is None:   # --real: the launcher passes the environment itself
            return self.launch + [program or self.collbench] + args + extra, self.env
        return launcher.command(self.launch, self.launcher, program or self.collbench,
                                list(args) + extra, env_names=list(env or {})), self.env

    def info_command(self, args):
        if self.launcher is None:
            return self.command(1, args, program=self.info)
        return launcher.info_command(self.launch, self.launcher, self.info, args), self.env

    def cost(self, outcome):
        return outcome.wall

    def describe(self):
        how = f"{self.launcher} launcher" if self.launcher else "bench/mpi_env.sh's launcher"
        return f"real MPI ({' '.join(self.launch)}; {how}), p={self.p}" + (
            f", {self.node} ranks per node" if self.node else "")


def launched_ranks(words):
    """The rank count of launch words (-n/-np/--np), or ValueError."""
    n = launcher.ranks(words, "other")
    if n is None:
        raise ValueError("cannot tell the number of ranks from --launch; give -n P")
    return n


class Replay(Target):
    """Answers from the measurements of an earlier run (the tune.json of a
    --grid report) instead of measuring: to study the sampling strategy
    against a known grid in seconds. A case costs what it cost there
    (its host_s, or its run's cost over its cases); launch overheads are
    not counted."""
    kind = "replay"

    def __init__(self, path):
        with open(path) as f:
            d = json.load(f)
        self.src = Store.from_json(d["measurements"])
        self.per_case = {}
        for b in self.src.batches:
            if b.get("cases"):
                self.per_case.setdefault((b["coll"], b["q"]), []).append(b["cost"] / b["cases"])
        self.name, self.path = "replay", path
        super().__init__(d["p"], d["node"], None, None)
        self.reg = [(c, a) for c, a in d["algs"].items()]

    def registry(self):
        return self.reg   # variants included, as the grid had them

    def tune_space(self):
        return []

    def run_collbench(self, q, args, env=None, timeout=300.0, mem_limit=None):
        opt = {args[i]: args[i + 1] for i in range(0, len(args) - 1) if args[i].startswith("-")}
        coll, algs = opt["--coll"], opt["--algs"].split(",")
        if "--comm-shape" in opt:   # a shaped key's runs (grid.comm_args)
            coll = gridmod.shaped(coll, int(opt["--comm-shape"].partition("x")[2]))
        sizes = [int(x) for x in opt["-m"].split(",")]
        rows, cost = [], 0.0
        per = self.per_case.get((coll, q), [0.0])
        rules, firsts = None, set()   # firsts: labels whose first call was given
        if "selected" in algs:   # what the rules pick, as collx would
            rules = rulesmod.load(env["COLLX_RULES"])
        for m in sizes:
            for label in algs:
                a = label
                if a == "selected":
                    ppn = self.src.ppn.get((coll, q), q)
                    a = rulesmod.match(rules, gridmod.coll_of(coll), q, m, ppn) or "native"
                key = (coll, a, q, m)
                xs = self.src.samples.get(key)
                if xs is None:
                    continue
                host = self.src.host.get(key) or [sum(per) / len(per)]
                setup = self.src.setup(coll, a, q) if m == sizes[0] else None
                rows.append({"alg": label, "size_bytes": str(m), "median_us": str(xs[0]),
                             "ran": "+".join(sorted(self.src.ran[key])),
                             "ppn": str(self.src.ppn.get((coll, q), q)),
                             "host_s": str(host[0]),   # collbench's first call there:
                             "first_us": "" if setup is None or label in firsts
                             else str(xs[0] + setup)})
                firsts.add(label)
                cost += host[0]
        fail = next((w for (c, a, qq, mm), w in self.src.failed.items()
                     if c == coll and qq == q and a in algs and mm in sizes), None)
        if fail:   # the cases before the first that failed there, as collbench
            order = [(m, a) for m in sizes for a in algs]
            stop = min(i for i, (m, a) in enumerate(order)
                       if (coll, a, q, m) in self.src.failed)
            rows = rows[:stop]
        out = limits.Outcome(None if fail else 0, fail or "", cost, cost, 0, "")
        return rows, out

    def describe(self):
        return f"replay of {self.path}, p={self.p}"

    def mpi_version(self):
        return None

    def machine(self):
        return None
