"""collx predict --measure: the predicted runs made again on a real
machine, each beside its prediction (issue 74, item 2d).

    collx predict --platform P -n N --measure "mpirun -n N --bind-to core" \\
        --measure-program ./app.real --out pred -- ./app.smpi ARGS

After the simulations, every run that predict made (native, tuned, each
forced algorithm; not the tuned-without-<collective> diagnoses) is
launched for real, --measure-launches times each, in turns (native,
tuned, ..., native, tuned, ...: a machine that drifts moves them all),
the same COLLX_ settings as its simulation (COLLX_RULES: the same rules
file; COLLX_<COLL>_ALGORITHM) and COLLX_STATS for its times: the job's
(MPI_Init to MPI_Finalize, the slowest rank) and its time in collectives
(the mean rank's), the same figures the simulation reports. The program
is the one built for the real MPI (--measure-program; the simulated one
is built with collx-smpicc and runs only in SMPI), unmodified: an Open
MPI, MPICH or Slurm launch is started through collxrun, which preloads
collx's interposer for the program's MPI; any other launch (./run
cluster run --collxrun "" -n N --) must preload it itself.

Per run: the best of the launches (as calibrate takes them: a machine
that moves between states moves a program's time by half between
launches) and their range, the error
predicted / measured - 1 of both times, and the speed-up over native
predicted and measured. A launch that fails, or whose program's check
(--check) fails, stops with its output's last lines; nothing is written
that looks like a measurement and is not one."""
import json
import os
import re
import shlex
import statistics

from collx import tools
from collx.tune import launcher, limits, profile as profmod

# runs of predict that are diagnoses, not predictions to check
SKIP = ("tuned-without-",)
COLLXRUN_KINDS = ("openmpi", "hydra", "slurm")


class MeasureError(RuntimeError):
    """A measured launch failed; the text says which and what to do."""


def collective_seconds(stats_path):
    """(the job's record, {collective: seconds of the mean rank}) of a
    COLLX_STATS JSON file: a simulated run's and a real one's alike."""
    job, entries = profmod.read(stats_path)
    ranks = job.get("ranks") or 0
    per = {}
    for e in entries:
        per[e["collective"]] = per.get(e["collective"], 0) + profmod.time_of(e, ranks)
    return job, per


def times_of(stats_path):
    """(job seconds, seconds in collectives of the mean rank)."""
    job, per = collective_seconds(stats_path)
    return job.get("seconds"), sum(per.values())


def compare(predicted, measured):
    """Rows of the comparison: predicted is predict's run records (label,
    seconds, coll_seconds), measured {label: [(seconds, coll_seconds), ...]}.
    Each row: label, predicted and measured times (the best launch's, as
    calibrate measures: this machine's placement moves a program's time by
    half between launches; lo and hi: the range), their errors, and the
    speed-up over native both ways."""
    rows = []
    med = {}
    for label, got in measured.items():
        if got:   # the best launch, both of its times
            med[label] = min(got)
    pred = {r["label"]: r for r in predicted if r.get("seconds")}
    for label, (s, c) in med.items():
        p = pred.get(label)
        if not p:
            continue
        got = measured[label]
        row = {"label": label, "launches": len(got),
               "predicted_s": p["seconds"], "measured_s": s,
               "measured_lo_s": min(x for x, _ in got), "measured_hi_s": max(x for x, _ in got),
               "error": p["seconds"] / s - 1 if s else None,
               "predicted_coll_s": p["coll_seconds"], "measured_coll_s": c,
               "coll_error": p["coll_seconds"] / c - 1 if c else None}
        if "native" in med and "native" in pred and p["seconds"] and s:
            row["predicted_speedup"] = pred["native"]["seconds"] / p["seconds"]
            row["measured_speedup"] = med["native"][0] / s
        rows.append(row)
    return rows


def fastest(rows, key):
    """The label of the fastest row by key, or None."""
    ok = [r for r in rows if r.get(key)]
    return min(ok, key=lambda r: r[key])["label"] if ok else None


class Measurer:
    def __init__(self, a, out, say):
        self.words = shlex.split(a.measure)
        if not self.words:
            raise MeasureError("--measure is empty: give the launch, e.g. "
                               "\"mpirun -n 2 --bind-to core\"")
        self.kind = launcher.kind_of(self.words)
        self.program = os.path.abspath(a.measure_program or a.program[0])
        if not (os.path.isfile(self.program) and os.access(self.program, os.X_OK)):
            raise MeasureError(f"--measure-program {self.program}: not an executable file "
                               "(the program built for the real MPI, e.g. by "
                               "sim/outside/fetch_build.sh --mpi openmpi)")
        self.args = a.program[1:]
        self.launches = a.measure_launches
        self.check = a.check
        self.timeout = a.measure_timeout
        self.dir = os.path.join(out, "measured")
        self.say = say
        self.start = []
        if self.kind in COLLXRUN_KINDS:
            mpi = "mpich" if self.kind == "hydra" else (
                "openmpi" if self.kind == "openmpi" else None)
            try:
                self.start = [tools.find("collxrun", mpi), "--"]
            except tools.ToolNotFound as e:
                raise MeasureError(f"no collxrun to preload collx for {self.words[0]}: {e}")

    def describe(self):
        how = "through collxrun" if self.start else "as given (it must preload collx)"
        return f"{shlex.join(self.words)} {self.program}, {how}"

    def env(self, label, extra, k):
        """(variables to set, names to leave out) for one launch: the
        run's own settings, its COLLX_STATS file; none of the caller's
        choices, nor this repository's test settings where ./run exported
        them (the program runs as a user's would)."""
        add = {"COLLX_STATS": os.path.join(self.dir, f"{label}.{k}.json"), **extra}
        unset = [n for n in os.environ if n not in add and
                 (n == "COLLX_RULES" or (n.startswith("COLLX_") and n.endswith("_ALGORITHM")))]
        unset += launcher.test_settings(os.environ, launcher.mpi_env_settings(tools.checkout()))
        return add, tuple(unset)

    def once(self, rec, k):
        label = rec["label"]
        env, unset = self.env(label, rec.get("extra") or {}, k)
        stats, log = env["COLLX_STATS"], os.path.join(self.dir, f"{label}.{k}.out")
        if os.path.exists(stats):
            os.remove(stats)
        argv = self.start + self.words + [self.program] + list(self.args)
        try:
            out = limits.run(argv, env, timeout=self.timeout, cwd=os.getcwd(),
                             stdout_path=log, clock="wall", unset=unset)
        except OSError as e:
            raise MeasureError(f"cannot run {shlex.join(argv)}: {e.strerror}") from None
        with open(log, errors="replace") as f:
            text = f.read()
        tail = "\n".join(text.strip().splitlines()[-8:])
        if not out.ok:
            raise MeasureError(f"the real {label} run failed ({shlex.join(argv)}):\n"
                               f"{out.report()}\n{tail}")
        if self.check and not re.search(self.check, text):
            raise MeasureError(f"the real {label} run's check ({self.check}) is not in its "
                               f"output ({log}); its last lines:\n{tail}")
        if not os.path.exists(stats):
            raise MeasureError(f"the real {label} run wrote no {stats}: did collx reach "
                               "the program? (an Open MPI, MPICH or Slurm launch goes "
                               "through collxrun; another must preload libcollx_pmpi.so "
                               "and pass COLLX_* to the ranks)")
        return times_of(stats)

    def measure(self, runs):
        """{label: [(seconds, coll_seconds)] per launch} for predict's runs."""
        todo = [r for r in runs if r.get("seconds") and not r["label"].startswith(SKIP)]
        os.makedirs(self.dir, exist_ok=True)
        got = {r["label"]: [] for r in todo}
        for k in range(self.launches):
            for r in todo:
                s, c = self.once(r, k)
                got[r["label"]].append((s, c))
                self.say(f"measured {r['label']} ({k + 1} of {self.launches}): "
                         f"{s * 1e3:.3f} ms, {c * 1e3:.3f} ms in collectives")
        return got


def markdown(section):
    """The report's section "Predicted vs measured"."""
    rows = section["rows"]
    lines = ["", "## Predicted vs measured", "",
             f"Real runs: `{section['launch']}`, {section['launches']} launches each in "
             "turns; the best launch (the range). Error: predicted / measured - 1.", "",
             "| run | predicted | measured | error | in collectives: predicted | measured "
             "| error | vs native: predicted | measured |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        sp = (f"{r['predicted_speedup']:.3f}x | {r['measured_speedup']:.3f}x"
              if "predicted_speedup" in r else " | ")
        lines.append(
            f"| {r['label']} | {r['predicted_s'] * 1e3:.3f} ms | {r['measured_s'] * 1e3:.3f} ms "
            f"({r['measured_lo_s'] * 1e3:.3f}-{r['measured_hi_s'] * 1e3:.3f}) | "
            f"{100 * r['error']:+.1f} % | {r['predicted_coll_s'] * 1e3:.3f} ms | "
            f"{r['measured_coll_s'] * 1e3:.3f} ms | "
            + (f"{100 * r['coll_error']:+.1f} %" if r["coll_error"] is not None else "")
            + f" | {sp} |")
    errs = [abs(r["error"]) for r in rows if r["error"] is not None]
    if errs:
        lines += ["", f"Median |error| of the whole time {100 * statistics.median(errs):.1f} %, "
                  f"worst {100 * max(errs):.1f} %; fastest predicted: "
                  f"{section['fastest_predicted']}, measured: {section['fastest_measured']}."]
    tuned = next((r for r in rows if r["label"] == "tuned"), None)
    if tuned and "predicted_speedup" in tuned:
        d = tuned["predicted_speedup"] - tuned["measured_speedup"]
        same = (tuned["predicted_speedup"] - 1) * (tuned["measured_speedup"] - 1) >= 0
        lines += ["", f"Tuned over native: predicted {tuned['predicted_speedup']:.3f}x, "
                  f"measured {tuned['measured_speedup']:.3f}x (off by {d:+.3f}"
                  + ("" if same else "; **of the wrong sign**") + ")."]
    return "\n".join(lines) + "\n"


def section(measurer, runs, got):
    rows = compare(runs, got)
    return {"launch": measurer.describe(), "launches": measurer.launches,
            "rows": rows, "per_launch": {k: v for k, v in got.items()},
            "fastest_predicted": fastest(rows, "predicted_s"),
            "fastest_measured": fastest(rows, "measured_s")}


def write_csv(path, sec):
    keys = ["label", "launches", "predicted_s", "measured_s", "measured_lo_s", "measured_hi_s",
            "error", "predicted_coll_s", "measured_coll_s", "coll_error",
            "predicted_speedup", "measured_speedup"]
    with open(path, "w") as f:
        f.write(",".join(keys) + "\n")
        for r in sec["rows"]:
            f.write(",".join("" if r.get(k) is None else
                             (f"{r[k]:.9g}" if isinstance(r[k], float) else str(r[k]))
                             for k in keys) + "\n")


def run(a, out, runs, say):
    """Measures predict's runs; returns the report's section (also in
    measure.json and measure.csv under out)."""
    m = Measurer(a, out, say)
    say(f"measuring for real: {m.describe()}, {m.launches} launches of each run")
    got = m.measure(runs)
    sec = section(m, runs, got)
    with open(os.path.join(out, "measure.json"), "w") as f:
        json.dump(sec, f, indent=1)
    write_csv(os.path.join(out, "measure.csv"), sec)
    return sec
