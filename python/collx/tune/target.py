"""Where the tuner measures: an SMPI platform (sim/run, one simulation per
batch with q ranks: block placement makes them ranks 0..q-1) or a real
launch (the launcher given, or bench/mpi_env.sh's for COLLX_MPI, with
collbench --comm-size q). Both run collbench and read its CSV."""
import os
import platform as host_platform
import shlex
import tempfile

from collx import tools
from collx.csvio import read_rows, time_rows
from collx.sweep import launch
from collx.tune import limits

# The checkout this runs from (sim/run, sim/platforms, bench/mpi_env.sh);
# None where collx is installed: then SMPI targets are not available and a
# real one needs --launch.
ROOT = tools.checkout()


# Algorithms that leave work behind in the process: an RMA bcast keeps its
# runtime's progress job, which steps inside every later collx call
# (src/rma/README.md, the inline engine SMPI runs): measured after one, a
# collx binomial bcast took 11.4 us where native's same tree took 8.6
# (fattree-256x16, p=24, 2 KiB). Each is measured in a run of its own, so
# that it slows nothing else (native is not slowed: PMPI_).
APART_PREFIX = ("rma_",)


# An algorithm with per-call knobs set ("variant", the tuner's search of a
# knob table entry's `tune` values, src/core/knob_table.c) is the label
# NAME@KNOB=VALUE[@KNOB=VALUE]: measured with the knobs in its run's
# environment, written as a rule with "params".
PARAM_SEP = "@"


def split_label(label):
    """(algorithm name, {knob: value}) of a label."""
    name, *kv = label.split(PARAM_SEP)
    return name, dict(x.split("=", 1) for x in kv)


def label_of(name, params=None):
    return PARAM_SEP.join([name] + [f"{k}={v}" for k, v in sorted((params or {}).items())])


def base_of(label, labels):
    """The algorithm a variant sets knobs of, if it is among labels (None
    for an algorithm run as it is)."""
    name = split_label(label)[0]
    return name if name != label and name in labels else None


def params_key(label):
    """What labels measured in one run share: their params, as text."""
    return label_of("", split_label(label)[1])


def same_alg(a, b):
    """Two labels of one algorithm (collbench's column ran under a rule
    names the algorithm, not the params collx applied)."""
    return split_label(a)[0] == split_label(b)[0]


def runs(labels):
    """labels split into runs that do not disturb each other: those without
    params together, those with the same params together (the knobs go to
    the run's environment, where they would change the others), each label
    that leaves work behind alone."""
    apart = [x for x in labels if x.startswith(APART_PREFIX)]
    groups = {}
    for x in labels:
        if x not in apart:
            groups.setdefault(params_key(x), []).append(x)
    return list(groups.values()) + [[x] for x in apart]


def interleaved(labels, reps, turn=0):
    """labels listed reps times, every other time reversed (starting
    reversed when turn is odd): times drift within a launch (emulated
    cluster, bcast of 12 B at 5 ranks: 105 us for the first 7 cases, 64
    after), so a label always listed first would be timed slower than the
    one after it, and an ABBA order cancels a steady drift."""
    return [x for r in range(reps)
            for x in (labels if (r + turn) % 2 == 0 else labels[::-1])]


def with_params(args, env, run):
    """Runs collbench args whose --algs may carry params (one set per run,
    as runs() groups them): collbench gets the algorithm names and the
    knobs in its environment; the rows come back under the labels (column
    ran too, where the algorithm itself served)."""
    i = args.index("--algs")
    labels = args[i + 1].split(",")
    if not any(PARAM_SEP in x for x in labels):
        return run(args, env)
    if len({params_key(x) for x in labels}) > 1:
        raise ValueError(f"one set of params per collbench run: {args[i + 1]}")
    knobs = split_label(labels[0])[1]
    names = [split_label(x)[0] for x in labels]
    rows, out = run(args[:i + 1] + [",".join(names)] + args[i + 2:], {**(env or {}), **knobs})
    back = {n: x for n, x in zip(names, labels)}
    for r in rows:
        lab = back.get(r["alg"], r["alg"])
        if r["ran"] == r["alg"]:
            r["ran"] = lab
        r["alg"] = lab
    return rows, out


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

    def __init__(self, p, node, collbench, info):
        self.p, self.node = p, node      # ranks, ranks per node (None: one node)
        self.collbench, self.info = collbench, info

    def command(self, q, args):
        raise NotImplementedError

    def cost(self, outcome):
        """What a run spent of the budget."""
        return outcome.cpu

    def run_collbench(self, q, args, env=None, timeout=300.0, mem_limit=None):
        """(rows of metric r, Outcome): all rows if the run succeeded, else
        those of the cases it finished (collbench's CSV grows case by case).
        Labels with params: with_params."""
        return with_params(list(args), env, lambda a, e: self.collbench_run(
            q, a, e, timeout, mem_limit))

    def collbench_run(self, q, args, env, timeout, mem_limit):
        with tempfile.TemporaryDirectory(prefix="collx-tune.") as d:
            csv_ = os.path.join(d, "out.csv")
            argv, env0 = self.command(q, list(args) + ["-q", "--csv", csv_])
            out = limits.run(argv, {**env0, **(env or {})}, timeout=timeout,
                             mem_limit=mem_limit, cwd=ROOT, clock=self.limit_clock)
            return finished_rows(csv_), out

    def info_text(self, args):
        """collx_info's output, run the way this target runs programs."""
        with tempfile.TemporaryDirectory(prefix="collx-tune.") as d:
            path = os.path.join(d, "info.txt")
            argv, env = self.command(1, list(args), program=self.info)
            out = limits.run(argv, env, timeout=120, cwd=ROOT, stdout_path=path)
            if not out.ok:
                raise RuntimeError(f"collx_info failed ({' '.join(argv)}): {out.why()}")
            with open(path) as f:
                return f.read()

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
        import json
        vars_ = json.loads(self.info_text(["--vars", "--json"]))["vars"]
        return [(v["name"], tune_values(v["tune"]), v["tune_algs"].split(","))
                for v in vars_ if v.get("tune")]


def cpu_model():
    """This host's CPU as online tuning's fingerprint names it (the first
    "model name" line of /proc/cpuinfo, src/core/online_fingerprint.c)."""
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


def parse_info(text):
    reg, coll = [], None
    for line in text.splitlines():
        if line.strip() and not line.startswith(" "):
            coll = (line.split()[0], [])
            reg.append(coll)
        elif coll and line.strip() and not line.strip().startswith("needs:"):
            coll[1].append(line.split()[0])
    return reg


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

    def command(self, q, args, program=None):
        env = {"SIM_HOSTFILE": self.hostfile} if self.hostfile else {}
        return ([os.path.join(ROOT, "sim", "run"), self.platform, str(q), "--",
                 program or self.collbench] + args, env)

    def describe(self):
        return f"SMPI {self.name}, p={self.p}" + (f", {self.node} ranks per node"
                                                   if self.node else "")

    def mpi_version(self):
        """SimGrid takes --version for itself: "collx 0.1.0 for SimGrid 3.32
        SMPI" from its answer (None where it says nothing)."""
        import re
        from collx._version import __version__
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
    """A real MPI: launch words (they must start p ranks), then collbench."""
    kind = "real"
    clock = "wall seconds"
    limit_clock = "wall"
    launches_vary = True

    def __init__(self, p, launch_cmd=None, mpi=None, node=None, collbench=None, info=None):
        mpi = mpi or tools.default_mpi()
        if ROOT:
            words, env = launch.mpi_setup(ROOT, mpi)
        elif launch_cmd:
            words, env = (), {}
        else:
            raise ValueError("--real launches with the checkout's bench/mpi_env.sh; this "
                             "collx is installed: give the launcher, --launch \"mpirun -np P\"")
        self.env = dict(env)
        if launch_cmd:
            self.launch = shlex.split(launch_cmd)
            if p is None:
                p = launched_ranks(self.launch)
        else:
            if p is None:
                raise ValueError("a real target needs -n P or --launch with -n/-np")
            self.launch = list(words) + ["-n", str(p)]
        self.name = "real"
        super().__init__(p, node if node and node < p else None,
                         tools.find("collbench", mpi, collbench),
                         tools.find("collx_info", mpi, info))

    def command(self, q, args, program=None):
        extra = ["--comm-size", str(q)] if program is None and q < self.p else []
        return self.launch + [program or self.collbench] + args + extra, self.env

    def cost(self, outcome):
        return outcome.wall

    def describe(self):
        return f"real MPI ({' '.join(self.launch)}), p={self.p}"


def launched_ranks(words):
    for flag in ("-n", "-np", "--np", "-c"):
        if flag in words[:-1]:
            return int(words[words.index(flag) + 1])
    raise ValueError("cannot tell the number of ranks from --launch; give -n P")


class Replay(Target):
    """Answers from the measurements of an earlier run (the tune.json of a
    --grid report) instead of measuring: to study the sampling strategy
    against a known grid in seconds. A case costs what it cost there
    (its host_s, or its run's cost over its cases); launch overheads are
    not counted."""
    kind = "replay"

    def __init__(self, path):
        import json
        from collx.tune.store import Store
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
        sizes = [int(x) for x in opt["-m"].split(",")]
        rows, cost = [], 0.0
        per = self.per_case.get((coll, q), [0.0])
        rules = None
        if "selected" in algs:   # what the rules pick, as collx would
            from collx.tune import rules as rulesmod
            rules = rulesmod.load(env["COLLX_RULES"])
        for m in sizes:
            for label in algs:
                a = label
                if a == "selected":
                    ppn = self.src.ppn.get((coll, q), q)
                    a = rulesmod.match(rules, coll, q, m, ppn) or "native"
                key = (coll, a, q, m)
                xs = self.src.samples.get(key)
                if xs is None:
                    continue
                host = self.src.host.get(key) or [sum(per) / len(per)]
                rows.append({"alg": label, "size_bytes": str(m), "median_us": str(xs[0]),
                             "ran": "+".join(sorted(self.src.ran[key])),
                             "ppn": str(self.src.ppn.get((coll, q), q)),
                             "host_s": str(host[0])})
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
