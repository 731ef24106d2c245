"""Tuning the MPI itself (collx tune --mpi-file F): each of the host MPI's
own algorithms for a collective (mpialgs.py, read from the MPI at run
time) is a candidate native:<name>, measured by forcing it for a launch
of its own beside the MPI's default decision; where one beats the default
beyond the noise in every repeat, the MPI's own tuning file (mpifile.py:
Open MPI's dynamic rules, MPICH's selection JSON) says so, elsewhere it
leaves the MPI's own decision. collx's algorithms are then decided against
native as that file tunes it (main.py: the file's environment in every
run), so that both files come from one tune and `collxrun --rules`
applies both.

Launches time apart by more than the algorithms do (README, "Measuring
and noise"), and a forced algorithm cannot share a launch with the
default. So every launch also times a yardstick, a collx algorithm of the
collective that sends point to point only (the MPI's collective settings
do not touch it), and each launch's times are taken relative to it:
ln(T / T_yardstick) per launch, compared across launches with
store.unpaired_faster (every repeat faster, by the margin, Welch's bound
below 0). A size between two sizes of one choice takes that choice unless
it is slower there beyond the noise (smooth).

SMPI (SimGrid) is the other kind: its simulated times are the same in
every launch (no yardstick, one launch each), and its options choose one
algorithm per collective for every size and communicator
(smpi/<coll>:<name>), so the choice is one per collective (single): of
SMPI's algorithms that are nowhere slower than the default beyond the
noise floor at the grid's points, the one with the lowest geometric
mean of T / T_default over them (a profile's points weigh their
seconds), where that mean is below 1 - margin; else SMPI's own."""
import json
import math
import os
import re
import subprocess
import sys

from collx import mpifile, mpifile_impi
from collx.tune import grid as gridmod
from collx.tune.labels import NATIVE, interleaved, mpi_label, mpi_name
from collx.tune.store import unpaired_faster

# collx algorithms that are no yardstick: they call the MPI's own
# collectives (hier, on the leaders), leave work behind (rma) or measure
# the machine first (topo)
NOT_YARDSTICK = re.compile(r"^(native|hier|rma_)|_topo$|@")


def yardstick(algs):
    """The first registered collx algorithm that sends point to point
    only (None: launches are compared by their raw times)."""
    return next((a for a in algs if not NOT_YARDSTICK.search(a)), None)


def boundaries(sizes):
    """The lowest size each grid size serves: 0 for the first, then the
    geometric mean of neighbours (as the collx rules' ranges)."""
    return [0] + [int(math.sqrt(a * b)) + 1 for a, b in zip(sizes, sizes[1:])]


def ranges(sizes, picks):
    """[(lowest bytes per rank, pick)] with neighbours of one pick merged."""
    out = []
    for lo, pick in zip(boundaries(sizes), picks):
        if not out or out[-1][1] != pick:
            out.append((lo, pick))
    return out


def impi_level(label):
    """The Intel MPI variable level ('' or '_NODE') a native:<candidate>
    label names."""
    return mpifile_impi.parse_candidate(mpi_name(label))[0]


class MpiTune:
    """Measures the MPI's algorithms (runs), decides per grid point
    (choices) and writes the MPI's file (write)."""

    def __init__(self, target, opts, mpi, grids, collx_algs, say=None, weights=None):
        self.t, self.a, self.mpi = target, opts, mpi
        self.grids = {c: g for c, g in grids.items() if mpi.names(gridmod.coll_of(c)) and
                      mpifile.supports(mpi.kind, gridmod.coll_of(c))}
        self.skipped = [c for c in grids if c not in self.grids]
        self.smpi = mpi.kind == mpifile.SMPI   # deterministic: no yardstick
        self.ref = {c: None if self.smpi else yardstick(collx_algs.get(c, []))
                    for c in self.grids}
        self.weights = weights or {}   # {(coll, q, m): seconds} of a profile
        self.single_of = {}   # SMPI: {coll: {label: (geomean, worst, points)}}
        self.chosen = {}      # SMPI: {coll: label}
        self.say = say or (lambda m: print(f"[tune] {m}", file=sys.stderr, flush=True))
        self.samples = {}   # (coll, label, q, m) -> [ln(T / T_ref) per launch]
        self.us = {}        # (coll, label, q, m) -> [us per launch]
        self.cost, self.launches = 0.0, 0

    def labels(self, coll):
        return [NATIVE] + [mpi_label(n) for n in self.mpi.names(gridmod.coll_of(coll))]

    def env_of(self, coll, label):
        name = mpi_name(label)
        return self.mpi.force_env(gridmod.coll_of(coll), name) if name else {}

    def run(self):
        """Every label at every grid point, reps launches each, the labels
        of a communicator size taking turns."""
        a = self.a
        for coll, g in self.grids.items():
            ref = self.ref[coll]
            for q in g.comms:
                labs = self.labels(coll)
                for rep in range(a.reps):
                    for lab in interleaved(labs, 1, rep):
                        algs = [NATIVE] + ([ref] if ref else [])
                        args = gridmod.comm_args(coll, q) + [
                            "--algs", ",".join(interleaved(algs, 1 if self.smpi else 2,
                                                           rep)),
                            "-m", ",".join(map(str, g.sizes)),
                            "-i", str(a.iters), "-x", str(a.warmup)]
                        rows, out = self.t.run_collbench(q, args, env=self.env_of(coll, lab),
                                                         timeout=a.timeout,
                                                         mem_limit=a.mem_limit)
                        self.cost += self.t.cost(out)
                        self.launches += 1
                        if not out.ok:
                            self.say(f"mpi: {coll} p={q} {lab}: the run failed: {out.why()}")
                        self.add(coll, lab, q, rows, ref)
                    if rep + 1 < a.reps:   # a launch across nodes takes seconds
                        self.say(f"mpi: {coll} p={q}: round {rep + 1} of {a.reps} over its "
                                 f"{len(labs)} candidates; {self.cost:.0f} s so far")
                self.say(f"mpi: {coll} p={q}: {len(labs)} of the MPI's candidates x "
                         f"{a.reps} launches; {self.cost:.0f} s so far")

    def add(self, coll, lab, q, rows, ref):
        by = {}
        for r in rows:
            by.setdefault(int(r["size_bytes"]), {}).setdefault(r["alg"], []).append(
                float(r["median_us"]))
        for m, d in by.items():
            if NATIVE not in d or (ref and ref not in d):
                continue
            t = sum(d[NATIVE]) / len(d[NATIVE])
            base = sum(d[ref]) / len(d[ref]) if ref else 1.0
            self.samples.setdefault((coll, lab, q, m), []).append(math.log(t / base))
            self.us.setdefault((coll, lab, q, m), []).append(t)

    def mean_us(self, coll, lab, q, m):
        xs = self.us.get((coll, lab, q, m))
        return sum(xs) / len(xs) if xs else None

    def choose(self, coll, q, m):
        """The MPI's algorithm that beat the default beyond the noise in
        every repeat, relative to the yardstick and in its own times both
        (either alone let a launch's yardstick, or a launch's offset, make
        a choice: MPICH's bcast at 32 KiB, smp against its default, 0.94
        relative and 1.07 in time), the fastest of those (native: none
        did)."""
        dflt = self.samples.get((coll, NATIVE, q, m), [])
        raw_d = [math.log(x) for x in self.us.get((coll, NATIVE, q, m), [])]
        best, best_mean = NATIVE, None
        for lab in self.labels(coll)[1:]:
            x = self.samples.get((coll, lab, q, m), [])
            raw_x = [math.log(v) for v in self.us.get((coll, lab, q, m), [])]
            if unpaired_faster(x, dflt, self.a.margin, self.floor()) and \
                    unpaired_faster(raw_x, raw_d, self.a.margin, self.floor()):
                mean = sum(x) / len(x)
                if best_mean is None or mean < best_mean:
                    best, best_mean = lab, mean
        return best

    def floor(self):
        if self.a.noise_floor is not None:
            return self.a.noise_floor
        return 0.005 if self.smpi else 0.01

    def ratios(self, coll):
        """{label: [(weight, T / T_default)] at every grid point where the
        default was measured}, labels measured at all of them only."""
        g, out = self.grids[coll], {}
        pts = [(q, m) for q in g.comms for m in g.sizes
               if self.mean_us(coll, NATIVE, q, m)]
        for lab in self.labels(coll)[1:]:
            rs = []
            for q, m in pts:
                us = self.mean_us(coll, lab, q, m)
                if us is None:
                    break
                rs.append((self.weights.get((coll, q, m), 1.0),
                           us / self.mean_us(coll, NATIVE, q, m)))
            else:
                if rs:
                    out[lab] = rs
        return out

    def single(self, coll):
        """SMPI: the one algorithm for coll at every size (see the module's
        text); fills single_of[coll] with every candidate's (geomean,
        worst, points)."""
        best, best_gm, seen = NATIVE, 1.0 - self.a.margin, {}
        for lab, rs in self.ratios(coll).items():
            wsum = sum(w for w, _ in rs)
            gm = math.exp(sum(w * math.log(r) for w, r in rs) / wsum) if wsum else 1.0
            worst = max(r for _, r in rs)
            seen[lab] = (gm, worst, len(rs))
            if worst <= 1.0 + self.floor() and gm < best_gm:
                best, best_gm = lab, gm
        self.single_of[coll] = seen
        self.chosen[coll] = best
        return best

    def choices(self):
        """{coll: {q: [label per grid size]}}."""
        if self.smpi:
            return {c: {q: [pick] * len(g.sizes) for q in g.comms}
                    for c, g in self.grids.items() for pick in [self.single(c)]}
        out = {c: {q: self.smooth(c, q, g.sizes, [self.choose(c, q, m) for m in g.sizes])
                   for q in g.comms}
               for c, g in self.grids.items()}
        if self.mpi.kind == mpifile.IMPI:
            out = {c: {q: self.impi_complete(c, q, picks) for q, picks in by_q.items()}
                   for c, by_q in out.items()}
        return out

    def impi_complete(self, coll, q, picks):
        """Intel MPI (mpifile_impi.py): a size keeps the MPI's own decision
        only where its collective has no variable, so picks that name a
        preset somewhere name one everywhere: at a size left to the
        default, the candidate measured fastest there that is not slower
        than the default beyond the noise (the test choose uses, the
        other way round). Where a size has none, the collective keeps the
        MPI's own decision at every size (native throughout), said. Across
        nodes the picks keep one level, the whole collective's presets or
        the node's (a size that picked the other level would leave its own
        variable a gap, which Intel MPI reads as preset 0, and both
        variables at once are a pair never measured): the level most
        sizes picked."""
        if all(p == NATIVE for p in picks):
            return picks
        levels = [impi_level(p) for p in picks if p != NATIVE]
        level = max(sorted(set(levels)), key=levels.count)   # the level most sizes took
        out = [p if p != NATIVE and impi_level(p) == level else NATIVE for p in picks]
        for i, m in enumerate(self.grids[coll].sizes):
            if out[i] != NATIVE:
                continue
            dflt = self.samples.get((coll, NATIVE, q, m), [])
            fits = [(sum(x) / len(x), lab) for lab in self.labels(coll)[1:]
                    if impi_level(lab) == level
                    for x in [self.samples.get((coll, lab, q, m), [])]
                    if len(x) >= 2 and not unpaired_faster(dflt, x, 0.0, self.floor())]
            if not fits:
                self.say(f"mpi: {coll} p={q}: at {m} B no preset of Intel MPI's is as fast as "
                         "its default, and a variable cannot leave a size to the default: "
                         f"{coll} keeps the MPI's own decision at every size")
                return [NATIVE] * len(picks)
            out[i] = min(fits)[1]
        return out

    def smooth(self, coll, q, sizes, picks):
        """picks (one per size) where a size between two sizes of one pick
        X takes X, if X was measured there and is not slower than the
        size's own pick beyond the noise (the test choose uses, the other
        way round): MPICH's allreduce alternated recursive_doubling and its
        default from size to size (issue 64), where recursive_doubling was
        as fast at the sizes between and only one launch disagreed. A size
        keeps its own pick where a measurement says X is slower there."""
        out = list(picks)
        for i in range(1, len(sizes) - 1):
            x, own = out[i - 1], out[i]
            if x != out[i + 1] or x == own:
                continue
            sx = self.samples.get((coll, x, q, sizes[i]), [])
            so = self.samples.get((coll, own, q, sizes[i]), [])
            if len(sx) >= 2 and len(so) >= 2 and \
                    not unpaired_faster(so, sx, 0.0, self.floor()):
                out[i] = x
        return out

    def plan(self, choices):
        """{coll: {q: [(lowest bytes per rank, MPI algorithm name or None)]}}."""
        return {gridmod.coll_of(c): {q: ranges(self.grids[c].sizes,
                                               [mpi_name(x) for x in picks])
                                     for q, picks in by_q.items()}
                for c, by_q in choices.items()}

    def write(self, path, choices, header):
        """Writes the MPI's own tuning file; returns its environment."""
        plan = self.plan(choices)
        if self.smpi:
            text = mpifile.smpi_text({c: next(iter(by_q.values()))[0][1]
                                      for c, by_q in plan.items()}, header,
                                     self.mpi.defaults)
        elif self.mpi.kind == mpifile.IMPI:
            text = mpifile.impi.text(impi_plan(plan, self.say), header)
        elif self.mpi.kind == mpifile.OPENMPI:
            ids = {c: {q: [(m, self.mpi.id_of(c, n) if n else 0) for m, n in rs]
                       for q, rs in by_q.items()} for c, by_q in plan.items()}
            text = mpifile.openmpi_text(ids, header)
        else:
            tree = mpifile.mpich_tree(plan, mpich_default(self.t.info), mpifile.mpich_name)
            text = json.dumps(tree, indent=1) + "\n"
        with open(path, "w") as f:
            f.write(text)
        return mpifile.env_for(self.mpi.kind, path)

    def table(self, choices):
        """Rows (every grid point): the default's time, every candidate's,
        the choice."""
        rows = []
        for c, by_q in choices.items():
            for q, picks in by_q.items():
                for m, pick in zip(self.grids[c].sizes, picks):
                    row = {"coll": c, "p": q, "size_bytes": m, "choice": pick}
                    for lab in self.labels(c):
                        us = self.mean_us(c, lab, q, m)
                        row[lab] = f"{us:.2f}" if us is not None else ""
                    rows.append(row)
        return rows

    def to_json(self, choices):
        return {"mpi": self.mpi.to_json(), "yardstick": self.ref,
                "samples": [[c, lab, q, m, xs] for (c, lab, q, m), xs in self.samples.items()],
                "us": [[c, lab, q, m, xs] for (c, lab, q, m), xs in self.us.items()],
                "choices": choices, "cost": self.cost, "launches": self.launches,
                "skipped": self.skipped,
                "single": {c: {lab: list(v) for lab, v in d.items()}
                           for c, d in self.single_of.items()}}


def impi_plan(plan, say):
    """{coll: ranges} of plan {coll: {q: ranges}}: Intel MPI's file keys
    by message size alone (mpifile_impi.py: its process-count conditions
    matched no call), so one communicator size's choices, the largest's,
    serve every size."""
    out = {}
    for c, by_q in plan.items():
        q = max(by_q)
        if len(by_q) > 1:
            say(f"mpi: {c}: Intel MPI's file keys by message size only: the choices at "
                f"p={q} serve every communicator size (measured at p={sorted(by_q)})")
        out[c] = by_q[q]
    return out


def library_of(program):
    """The MPI library a program loads (ldd), or None."""
    try:
        out = subprocess.run(["ldd", program], capture_output=True, text=True,
                             timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        m = re.search(r"\b(libmpi(ch|_abi)?\.so[.\d]*) => (\S+)", line)
        if m:
            return m.group(3)
    return None


def mpich_default(program):
    """MPICH's own MPIR-level selection tree, read from the library the
    program loads (MPICH 4.0 builds its default JSON into it): the file
    keeps it for every collective and range not tuned, since MPICH reads
    the file instead of it. ValueError where it cannot be found."""
    lib = library_of(program)
    if not lib:
        raise ValueError(f"cannot tell which MPI library {program} loads (ldd)")
    with open(lib, "rb") as f:
        data = f.read()
    for m in re.finditer(rb'\{"collective=[^\x00]*', data):
        text = m.group(0).decode("ascii", "replace")
        if '"algorithm=MPIR_' in text:
            try:
                return json.loads(text)
            except ValueError:
                continue
    raise ValueError(f"no MPIR-level selection tree in {lib}: cannot write MPICH's file "
                     "without the collectives it does not tune")


def single_table(tuner):
    """Lines (markdown) of SMPI's candidates per collective: geometric
    mean and worst of T / T_default over the grid, the choice marked."""
    out = []
    for c, d in tuner.single_of.items():
        out += [f"{c} (default: {tuner.mpi.defaults.get(gridmod.coll_of(c), '?')}):", "",
                "| candidate | points | geomean T/T_default | worst | |", "|---|---|---|---|---|"]
        for lab, (gm, worst, n) in sorted(d.items(), key=lambda kv: kv[1][0]):
            mark = "chosen" if tuner.chosen.get(c) == lab else \
                ("slower somewhere" if worst > 1.0 + tuner.floor() else "")
            out.append(f"| {mpi_name(lab)} | {n} | {gm:.3f} | {worst:.3f} | {mark} |")
        out.append("")
    return out


def header(mpi, t, argv):
    use = "collxrun --rules RULES (the rules file beside this one), or set -a; . " \
        "THIS_FILE; set +a" if mpi.kind == mpifile.IMPI else \
        " ".join(f"{k}={'THIS_FILE' if v.endswith('/FILE') else v}"
                 for k, v in mpifile.env_for(mpi.kind, "FILE").items())
    return [f"collx tune: {mpi.version or mpi.kind}'s own algorithms measured on "
            f"{t.describe()}",
            "command: collx tune " + " ".join(argv),
            "use: " + use]


def write_report(path, tuner, choices):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "mpi_tune.json"), "w") as f:
        json.dump(tuner.to_json(choices), f)
    if tuner.single_of:
        with open(os.path.join(path, "mpi_candidates.md"), "w") as f:
            f.write("\n".join(single_table(tuner)))
