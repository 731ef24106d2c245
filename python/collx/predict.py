"""collx predict: a program's time on a machine you do not have (SMPI).

    collx predict --platform fattree-256x16 -n 256 --out pred -- ./app ARGS

The program is built with collx-smpicc or collx-smpif90 (collx's SMPI
interposer: its MPI_ collectives reach collx, no source change). In one
command, on the platform (a name of sim/platforms or the path of a
platform XML with its .hostfile and .cfg beside it), at n ranks:

  1. native: the program as it is (collx linked, nothing chosen), with
     COLLX_STATS: its profile (which collectives, sizes, time in them);
  2. tune: collx tune --profile at the profile's points (--budget);
  3. tuned: the program again with the rules (COLLX_RULES);
  4. single: the program with each of collx's algorithms of its main
     collective forced (--single K: the K collectives with the most time),
     the best of them "the best single choice";

and reports, per run, the simulated time from MPI_Init to MPI_Finalize
(the slowest rank's), the time in collectives (the mean rank's) and its
share, the program's own check (--check REGEX in its output, else exit
status 0) and own time (--own-time REGEX), and the speed-ups with the
bound the native share allows (Amdahl: collectives made free).

Computation (--compute): "host" (default) simulates it: SMPI times the
program's work between MPI calls on this machine and charges it at the
platform host's speed, which sim/run sets equal to smpi/host-speed, so a
second of this host's CPU is a simulated second (noisy where the machine
is busy; collx's own work inside its calls is charged by its model, not
timed: src/core/util/charge.smpi.c). "none": computation is free
(deterministic; the time is then communication only, an upper bound on
the speed-up). The node model is sim/run's: the platform's .cfg rates for
local copies and node synchronization (sim/README.md); native is SMPI's
collectives as Open MPI's tuned module picks them, but scan and exscan
Open MPI's chain, run by collx (sim/README.md, "Native in SMPI").

A run that does not finish within --timeout seconds of host time is
stopped, its cause said and what to do (SMPI's network model solves the
sharing of every flow at each change: an alltoall of p ranks has p^2
flows; a program's MPI_Iprobe/MPI_Test loops are a simulator step per
call). SimGrid options given for every run (sim/run's SMPI_OPTIONS_FILE,
SMPI_FLAGS) are named in the report."""
import argparse
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time

from collx import predict_measure
from collx.calibrate.platform import validation
from collx.tune.target import ROOT, Smpi
NOTE_EVERY = 30.0   # seconds between "still running" lines
DEADLOCK = "Deadlock detected"   # SimGrid's words for a run that cannot go on
SLOWER = 1.01   # tuned slower than native by more than this: each rule left out


class PredictError(RuntimeError):
    """A step failed; the text says which and what to do."""


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="collx predict", description=__doc__.split("\n\n")[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: collx predict --platform fattree-256x16 -n 256 --check "
               "'VERIFICATION SUCCESSFUL' --out pred -- ./is.S.smpi")
    ap.add_argument("--platform", required=True, help="sim/platforms NAME or a platform XML")
    ap.add_argument("-n", type=int, required=True, help="ranks")
    ap.add_argument("--hostfile", help="another placement (sim/run's SIM_HOSTFILE)")
    ap.add_argument("--compute", choices=("host", "none"), default="host",
                    help="simulate the program's computation at this host's speed (host, "
                         "default) or leave it free (none)")
    ap.add_argument("--budget", type=float, default=120,
                    help="seconds of host time for collx tune (default 120)")
    ap.add_argument("--single", type=int, default=1,
                    help="forced-algorithm runs for the K collectives with the most time "
                         "(default 1; 0: none)")
    ap.add_argument("--check", help="a regular expression the program prints when its "
                                    "result is right (else: exit status 0)")
    ap.add_argument("--own-time", help="a regular expression whose first matched group is "
                                       "the program's own time in seconds")
    ap.add_argument("--timeout", type=float, default=1800,
                    help="host seconds per simulation (default 1800)")
    ap.add_argument("--out", default="predict", help="folder for runs, rules, report")
    ap.add_argument("--measure", metavar="LAUNCH",
                    help="then run the same cases for real with these launch words (e.g. "
                         "\"mpirun -n 2 --bind-to core\") and report predicted vs measured")
    ap.add_argument("--measure-program", metavar="PATH",
                    help="the program built for the real MPI (default: PROGRAM itself)")
    ap.add_argument("--measure-launches", type=int, default=3,
                    help="real launches of each run, in turns (default 3; the best is kept)")
    ap.add_argument("--measure-timeout", type=float, default=600,
                    help="wall seconds per real launch (default 600)")
    ap.add_argument("--measure-only", action="store_true",
                    help="no simulation: measure the runs of OUT/predict.json again")
    ap.add_argument("program", nargs=argparse.REMAINDER,
                    help="-- PROGRAM [ARGS] (built with collx-smpicc / collx-smpif90)")
    a = ap.parse_args(argv)
    if a.program and a.program[0] == "--":
        a.program = a.program[1:]
    if not a.program:
        ap.error("no program: ... -- PROGRAM [ARGS]")
    if a.n < 1:
        ap.error("-n must be at least 1")
    if (a.measure_only or a.measure_program) and not a.measure:
        ap.error("--measure-only and --measure-program go with --measure LAUNCH")
    if a.measure_launches < 1:
        ap.error("--measure-launches must be at least 1")
    return a


class Predictor:
    def __init__(self, a, stream=sys.stderr):
        try:   # the tuner's SMPI target: sim/run, the platform, its slots, collx_info
            self.target = Smpi(a.platform, a.n, hostfile=a.hostfile)
        except ValueError as e:
            raise PredictError(str(e)) from None
        self.a = a
        self.out = os.path.abspath(a.out)
        os.makedirs(self.out, exist_ok=True)
        self.stream = stream
        self.t0 = time.time()
        self.runs = []
        self.calls_whole = None   # rank 0's collective calls in the native run
        xml = a.platform if a.platform.endswith(".xml") or "/" in a.platform else \
            os.path.join(ROOT, "sim", "platforms", a.platform + ".xml")
        self.model = validation(os.path.abspath(xml))
        self.say(f"the model's error: {self.model}")

    def say(self, msg):
        s = int(time.time() - self.t0)
        print(f"[predict {s // 60}:{s % 60:02d}] {msg}", file=self.stream, flush=True)

    def env(self, label, extra):
        env = dict(os.environ)
        for k in [k for k in env if k.startswith("COLLX_") and k.endswith("_ALGORITHM")]:
            del env[k]
        env.pop("COLLX_RULES", None)
        env["COLLX_STATS"] = os.path.join(self.out, f"{label}.json")
        env["COLLX_PROGRESS_FILE"] = self.progress_path(label)
        if self.a.compute == "host":
            env["SMPI_FLAGS"] = (env.get("SMPI_FLAGS", "") +
                                 " --cfg=smpi/simulate-computation:yes").strip()
        env.update(extra)
        return env

    def progress_path(self, label):
        return os.path.join(self.out, f"{label}.progress")

    def progress(self, label):
        """(calls, simulated seconds) rank 0 reached (COLLX_PROGRESS_FILE:
        rewritten at calls 1, 2, 4, ..., 128 and every 256th), or None."""
        try:
            with open(self.progress_path(label)) as f:
                calls, sim = f.read().split()[:2]
            return int(calls), float(sim)
        except (OSError, ValueError):
            return None

    def still(self, label, host):
        """The line for a run still simulating: how far rank 0 is, and the
        time left at this pace where the native run gave the whole."""
        text = f"{label}: still simulating, {host:.0f} s of host time"
        got = self.progress(label)
        if got and self.calls_whole and label != "native":
            calls, sim = got
            done = min(calls / self.calls_whole, 1.0)
            left = host * (1 - done) / done if done > 0 else None
            text += (f", rank 0 at collective call {calls} of about {self.calls_whole} "
                     f"({done:.0%}, {sim * 1e3:.3f} ms simulated)" +
                     (f", about {left:.0f} s left at this pace" if left is not None else ""))
        elif got:
            text += f", rank 0 at collective call {got[0]} ({got[1] * 1e3:.3f} ms simulated)"
        return text + f" (stopped at {self.a.timeout:.0f} s: --timeout)"

    def simulate(self, label, extra, what):
        """One run of the program; its record (see report)."""
        cmd, run_env = self.target.command(self.a.n, self.a.program[1:],
                                           program=self.a.program[0])
        log = os.path.join(self.out, f"{label}.out")
        stats = os.path.join(self.out, f"{label}.json")
        for old in (stats, self.progress_path(label)):
            if os.path.exists(old):
                os.remove(old)
        self.say(f"{label}: {what} ...")
        start = time.time()
        proc = self.launch(label, extra, cmd, run_env, log, start)
        host = time.time() - start
        with open(log, errors="replace") as f:
            text = f.read()
        rec = {"label": label, "what": what, "extra": extra, "host_seconds": round(host, 1),
               "exit": proc.returncode, "log": os.path.basename(log)}
        error = self.run_error(label, proc, text, host)
        if error:
            rec["error"] = error
        rec["verified"] = (re.search(self.a.check, text) is not None if self.a.check
                           else proc.returncode == 0) and "error" not in rec
        if self.a.own_time:
            m = re.search(self.a.own_time, text)
            got = m and next((g for g in m.groups() if g), None)
            rec["own_seconds"] = float(got) if got else None
        if os.path.exists(stats):
            self.add_profile(rec, stats)
        elif "error" not in rec:
            rec["error"] = (f"no COLLX_STATS file {stats}: is the program built with "
                            "collx-smpicc / collx-smpif90?")
        self.runs.append(rec)
        self.say(f"{label}: " + summary(rec))
        return rec

    def launch(self, label, extra, cmd, run_env, log, start):
        """Runs cmd, its output into log, until it ends or --timeout
        passes; says every NOTE_EVERY seconds how far it is (still).
        Returns the process, ended."""
        with open(log, "w") as f:
            # a session of its own: a timeout stops sim/run, smpirun and the
            # simulation together
            proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                                    env={**self.env(label, extra), **run_env},
                                    stdin=subprocess.DEVNULL,
                                    start_new_session=True)
            last = start
            try:
                while proc.poll() is None:
                    time.sleep(0.5)
                    now = time.time()
                    if now - start > self.a.timeout:
                        break
                    if now - last >= NOTE_EVERY:
                        last = now
                        self.say(self.still(label, now - start))
            finally:   # timed out, or predict itself stopped (Ctrl-C, SIGTERM)
                if proc.poll() is None:
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    proc.wait()
        return proc

    def run_error(self, label, proc, text, host):
        """What went wrong with a run (its output text, host seconds), for
        its record: out of time, a non-zero exit, SMPI's deadlock; None."""
        if host > self.a.timeout:
            error = (f"not finished in {self.a.timeout:.0f} s of host time (SMPI's "
                     "time goes to its network model, which re-solves the sharing of "
                     "every flow at each flow's start and end: an all-to-all of p "
                     "ranks has p^2 flows; or to the program's polling loops, "
                     "MPI_Iprobe/MPI_Test until a message comes, each call one "
                     "simulator step that sim/run charges 0.1 us: a slow network "
                     "means many); try fewer ranks, a smaller problem, --compute "
                     "none, a larger --timeout, or for polling coarser calls for "
                     "every run (SMPI_OPTIONS_FILE with smpi/iprobe:1e-6 and "
                     "smpi/test:1e-6, sim/run)")
            got = self.progress(label)
            if got:
                whole = f" of about {self.calls_whole}" if self.calls_whole else ""
                error += (f"; rank 0 had reached collective call {got[0]}{whole}, "
                          f"{got[1] * 1e3:.3f} ms simulated")
            return error
        if proc.returncode != 0:
            tail = "\n".join(text.strip().splitlines()[-8:])
            return f"exit status {proc.returncode}; its last lines:\n{tail}"
        if DEADLOCK in text:   # SMPI exits 0 after one
            return ("SMPI found a deadlock (\"Deadlock detected\" in its output; "
                    "its exit status is 0 all the same)")
        return None

    @staticmethod
    def add_profile(rec, stats):
        job, per = predict_measure.collective_seconds(stats)
        rec["stats"] = os.path.basename(stats)
        rec["seconds"] = job.get("seconds")
        rec["collectives"] = {c: round(t, 9) for c, t in sorted(per.items(),
                                                               key=lambda x: -x[1])}
        rec["coll_seconds"] = sum(per.values())
        rec["served"] = sorted(per)

    def tune(self, profile):
        rules = os.path.join(self.out, "rules.json")
        cmd = [sys.executable, "-m", "collx", "tune", "--platform", self.a.platform,
               "-n", str(self.a.n), "--profile", profile, "--budget", str(self.a.budget),
               "--out", rules, "--report", os.path.join(self.out, "tune")]
        if self.a.hostfile:
            cmd += ["--hostfile", self.a.hostfile]
        self.say(f"tune: collx tune at the profile's points, --budget {self.a.budget:.0f} s")
        start = time.time()
        with open(os.path.join(self.out, "tune.out"), "w") as f:
            rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL)
        self.tune_seconds = round(time.time() - start, 1)
        if rc != 0 or not os.path.exists(rules):
            with open(os.path.join(self.out, "tune.out"), errors="replace") as f:
                tail = "\n".join(f.read().strip().splitlines()[-10:])
            raise PredictError(f"collx tune failed (exit {rc}; {self.out}/tune.out):\n{tail}")
        self.say(f"tune: rules in {rules} ({self.tune_seconds:.0f} s)")
        return rules

    def without_each(self, rules, native, tuned):
        """Where the tuned run is slower than native beyond SLOWER, the
        choices were each measured alone (the tuner's points) but not
        together: the program again with each collective's rules left
        out in turn (native for it), so that the report says which choice
        cost the time. Each file: rules-without-<coll>.json."""
        if not (native.get("seconds") and tuned.get("seconds")) or \
                tuned["seconds"] <= native["seconds"] * SLOWER:
            return
        with open(rules) as f:
            doc = json.load(f)
        colls = sorted({r["collective"] for r in doc.get("rules", [])
                        if r.get("algorithm") != "native"})
        self.say(f"tuned is {native['seconds'] / tuned['seconds']:.3f}x native: the rules "
                 f"again without each collective's ({', '.join(colls)})")
        for coll in colls:
            part = dict(doc, rules=[r for r in doc["rules"] if r["collective"] != coll])
            path = os.path.join(self.out, f"rules-without-{coll}.json")
            with open(path, "w") as f:
                json.dump(part, f, indent=1)
            self.simulate(f"tuned-without-{coll}", {"COLLX_RULES": path},
                          f"the tuned rules but {coll}'s (native)")

    def algorithms(self, coll):
        """collx's algorithms of coll but native (collx_info, in SMPI)."""
        return [alg for c, algs in self.target.registry() if c == coll
                for alg in algs if alg != "native"]

    def run(self):
        if self.a.measure_only:
            return self.measure_again()
        self.simulated()
        return self.measured()

    def measure_again(self):
        """--measure-only: the runs of an earlier predict in --out."""
        path = os.path.join(self.out, "predict.json")
        try:
            with open(path) as f:
                old = json.load(f)
        except (OSError, ValueError) as e:
            raise PredictError(f"--measure-only: no predict of before in {path} ({e}); "
                               "run collx predict with --measure first") from None
        if old.get("platform") != self.a.platform or old.get("ranks") != self.a.n:
            raise PredictError(f"--measure-only: {path} is a predict on {old.get('platform')} "
                               f"at {old.get('ranks')} ranks, not {self.a.platform} at "
                               f"{self.a.n}")
        self.runs = old["runs"]
        self.tune_seconds = old.get("tune_host_seconds")
        return self.measured()

    def measured(self):
        """The real runs (--measure) beside the predicted; the report."""
        if not self.a.measure:
            return self.report()
        for name in ("measure.json", "measure.csv"):   # no stale results left
            if os.path.exists(os.path.join(self.out, name)):
                os.remove(os.path.join(self.out, name))
        try:
            self.measured_section = predict_measure.run(self.a, self.out, self.runs, self.say)
        except predict_measure.MeasureError as e:
            raise PredictError(f"--measure: {e}") from None
        return self.report()

    def simulated(self):
        native = self.simulate("native", {}, "the program, collx linked, nothing chosen")
        if "error" in native:
            raise PredictError(f"the native run failed: {native['error']}")
        got = self.progress("native")   # the whole, to 16 calls, for the estimates
        self.calls_whole = got[0] if got else None
        rules = self.tune(os.path.join(self.out, "native.json"))
        tuned = self.simulate("tuned", {"COLLX_RULES": rules}, "with the tuned rules")
        self.without_each(rules, native, tuned)
        for coll in list(native.get("collectives", {}))[:self.a.single]:
            for alg in self.algorithms(coll):
                self.simulate(f"{coll}-{alg}", {f"COLLX_{coll.upper()}_ALGORITHM": alg},
                              f"{coll} forced to {alg}")

    def report(self):
        doc = {"platform": self.a.platform, "ranks": self.a.n, "compute": self.a.compute,
               "model": self.model,
               "program": self.a.program, "hostfile": self.a.hostfile,
               "smpi_options": smpi_options(),
               "tune_host_seconds": getattr(self, "tune_seconds", None),
               "host_seconds": round(time.time() - self.t0, 1), "runs": self.runs}
        if getattr(self, "measured_section", None):
            doc["measured"] = self.measured_section
        with open(os.path.join(self.out, "predict.json"), "w") as f:
            json.dump(doc, f, indent=1)
        md = markdown(doc)
        with open(os.path.join(self.out, "predict.md"), "w") as f:
            f.write(md)
        return doc, md


def smpi_options():
    """SimGrid options the user added for every run (sim/run's
    SMPI_OPTIONS_FILE, SMPI_FLAGS), as they were given."""
    opts = []
    path = os.environ.get("SMPI_OPTIONS_FILE")
    if path:
        try:
            with open(path) as f:
                opts += [ln.split("#")[0].strip() for ln in f if ln.split("#")[0].strip()]
        except OSError:
            opts.append(f"(unreadable: {path})")
    opts += shlex.split(os.environ.get("SMPI_FLAGS", ""))
    return opts


def summary(rec):
    if "error" in rec and rec.get("seconds") is None:
        return "FAILED: " + rec["error"].splitlines()[0]
    share = rec["coll_seconds"] / rec["seconds"] if rec.get("seconds") else 0
    return (f"{rec['seconds'] * 1e3:.3f} ms simulated, {rec['coll_seconds'] * 1e3:.3f} ms in "
            f"collectives ({100 * share:.0f} %), check {'passed' if rec['verified'] else 'FAILED'}"
            f", {rec['host_seconds']:.0f} s of host time")


def markdown(doc):
    runs = doc["runs"]
    native = next((r for r in runs if r["label"] == "native"), None)
    lines = [f"# collx predict: {' '.join(shlex.quote(w) for w in doc['program'])}", "",
             f"SMPI platform `{doc['platform']}`, {doc['ranks']} ranks"
             + (f", hostfile {doc['hostfile']}" if doc["hostfile"] else "")
             + f"; computation: {COMPUTE[doc['compute']]}; node model: sim/run's "
             "(the platform's .cfg: local copies, node synchronization); native: SMPI's "
             "collectives as Open MPI's tuned module picks them, scan and exscan Open "
             "MPI's chain run by collx (sim/README.md, \"Native in SMPI\"). "
             + (f"SimGrid options added for every run: {' '.join(doc['smpi_options'])}. "
                if doc.get("smpi_options") else "")
             + f"{doc['host_seconds']:.0f} s of host time in all (tune: "
             f"{doc['tune_host_seconds'] or 0:.0f} s).", "",
             f"**The model's error:** {doc.get('model') or 'not known'}. A speed-up here is "
             "a ratio of two such predictions.", "",
             "| run | simulated time | in collectives | share | vs native | own time | "
             "check | host s |", "|---|---|---|---|---|---|---|---|"]
    singles = [r for r in runs if r["label"] not in ("native", "tuned") and r.get("seconds")
               and r["verified"] and not r["label"].startswith("tuned-without-")]
    best = min(singles, key=lambda r: r["seconds"]) if singles else None
    for r in runs:
        name = r["label"] + (" (best single)" if r is best else "")
        if r.get("seconds") is None:
            lines.append(f"| {name} | failed: {r['error'].splitlines()[0]} | | | | | | "
                         f"{r['host_seconds']:.0f} |")
            continue
        vs = native["seconds"] / r["seconds"] if native and native.get("seconds") else None
        own = r.get("own_seconds")
        lines.append(
            f"| {name} | {r['seconds'] * 1e3:.3f} ms | {r['coll_seconds'] * 1e3:.3f} ms | "
            f"{100 * r['coll_seconds'] / r['seconds']:.1f} % | "
            + (f"{vs:.3f}x" if vs else "") + " | "
            + (f"{own:.6g} s" if own is not None else "") + " | "
            + ("passed" if r["verified"] else "FAILED") + f" | {r['host_seconds']:.0f} |")
    if native and native.get("seconds"):
        share = native["coll_seconds"] / native["seconds"]
        bound = 1 / (1 - share) if share < 1 else float("inf")
        lines += ["", f"Native spends {100 * share:.1f} % of its time in collectives "
                  f"({', '.join(f'{c} {t * 1e3:.3f} ms' for c, t in native['collectives'].items())}"
                  f"): no choice of collectives can make it more than {bound:.2f}x faster "
                  "end to end (Amdahl, collectives made free)."]
        ok = [r for r in runs if r.get("seconds") and r["verified"]]
        fastest = min(ok, key=lambda r: r["seconds"]) if ok else None
        if fastest:
            lines += ["", f"Fastest verified run: {fastest['label']} "
                      f"({native['seconds'] / fastest['seconds']:.3f}x native)"
                      + ("; the tuned rules were slower than native beyond 1 %, so the "
                         "program ran again without each collective's rules "
                         "(tuned-without-<collective>, rules-without-<collective>.json): "
                         "the tuner measures each collective alone, the program runs them "
                         "together (a faster barrier can move the ranks' wait into the "
                         "next call)." if any(r["label"].startswith("tuned-without-")
                                              for r in runs) else "")]
    lines += ["", "Simulated time: MPI_Init to MPI_Finalize, the slowest rank (COLLX_STATS's "
              "job); in collectives: the mean rank's (rank seconds over ranks); files: "
              "<run>.out (the program's output), <run>.json (COLLX_STATS), rules.json, "
              "tune/ (the tuner's report), predict.json (this table's data).", ""]
    text = "\n".join(lines)
    if doc.get("measured"):
        text += predict_measure.markdown(doc["measured"])
    return text


COMPUTE = {"host": "simulated, this host's CPU time at the platform host's speed "
                   "(smpi/simulate-computation:yes)",
           "none": "free (smpi/simulate-computation:no): communication only"}


def _stopped(signum, frame):
    raise SystemExit(128 + signum)   # unwinds: the running simulation is killed


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    # a simulation runs in a session of its own: a SIGTERM to predict alone
    # (kill, a batch system) must not leave it running
    signal.signal(signal.SIGTERM, _stopped)
    try:
        doc, md = Predictor(a).run()
    except PredictError as e:
        print(f"predict: {e}", file=sys.stderr)
        return 1
    print(md)
    failed = [r["label"] for r in doc["runs"] if not r["verified"]]
    if failed:
        print(f"predict: the program's check failed in: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
