"""Runs the runs of one or more sweeps: SMPI runs in parallel (up to JOBS,
and a sweep's own "jobs"), a real-MPI run alone (its timings must not share
the cores); a line on stderr when each starts and ends, with the time
left. A cell's CSV is written as soon as its runs are done, a sweep's
merges and "after" commands when all of its runs are. An "after" command
(collx tables ..., commands.py's grammar) runs as a program of its own,
python3 -m collx with this package: the sweep driver is one of the
commands, so it does not import the command line that runs it."""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from collx.sweep import collect, launch

HEARTBEAT = 60   # seconds without a line before one says what still runs
# the folder holding this collx package (python/ of a checkout), first on
# the "after" commands' PYTHONPATH so that they run this very collx
PKG_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Cell:
    def __init__(self, sweep, path):
        self.sweep, self.path = sweep, path
        self.runs, self.parts, self.left = [], [], 0
        self.written = None   # the file its rows went to


def assign_cells(sweeps, tmp):
    """Groups runs into cells (the runs sharing a "csv" file) and gives
    each run its {part}; returns (cells, runs without CSV)."""
    cells, loose = {}, []
    for s in sweeps:
        for r in s.runs:
            csv_ = r.vars.text("csv")
            r.cell = None
            if csv_ is None:   # no CSV: nothing to gather
                loose.append(r)
                continue
            key = (s.name, f"temp{r.index}") if csv_ == "temp" else (s.name, csv_)
            r.cell = cells.setdefault(key, Cell(s, None if csv_ == "temp" else csv_))
            r.cell.runs.append(r)
    for cell in cells.values():
        for k, r in enumerate(cell.runs):
            part = os.path.join(tmp, f"{r.sweep}-{r.index}.csv") if cell.path is None \
                else cell.path + (".part" if len(cell.runs) == 1 else f".part{k}")
            r.vars.set("part", part)
    return list(cells.values()), loose


class Runner:
    def __init__(self, sweeps, jobs, log_dir, timings=None, resume=False, stream=sys.stderr):
        self.sweeps, self.jobs, self.log_dir = sweeps, max(1, jobs), log_dir
        self.timings, self.resume, self.stream = timings, resume, stream
        self.t0 = self.last_say = time.time()
        self.tmp = tempfile.mkdtemp(prefix="collx-sweep.")
        self.failed, self.durations, self.logs, self.started = [], {}, set(), 0
        self.cells, self.todo = [], []
        self.left = {s.name: 0 for s in sweeps}

    # ------------------------------------------------------------ planning
    def plan(self):
        for s in self.sweeps:
            for pattern in s.vars.render(s.spec.get("clean", [])):
                for f in glob.glob(pattern):
                    os.remove(f)
            for label, why in s.skipped:
                self.say(f"skip  {s.name}: {label}: {why}")
        self.cells, loose = assign_cells(self.sweeps, self.tmp)
        self.todo = loose
        for cell in self.cells:
            if cell.path and self.kept(cell):
                self.say(f"kept  {cell.sweep.name}: {cell.path}")
                cell.written = cell.path
                continue
            cell.left = len(cell.runs)
            self.todo += cell.runs
        order = [s.name for s in self.sweeps]
        self.todo.sort(key=lambda r: (order.index(r.sweep), r.index))
        for r in self.todo:
            self.left[r.sweep] += 1
        return self.todo

    def kept(self, cell):
        """A cell done before is kept when resuming (the sweep's "resume"
        or --resume): its CSV exists, or its key is in the updated file."""
        s = cell.sweep
        if not (self.resume or s.vars.data.get("resume")):
            return False
        if cell.path and os.path.exists(cell.path) and os.path.getsize(cell.path) > 0:
            return True
        return False

    def kept_by_key(self, run):
        s = self.sweep(run)
        if not (self.resume or s.vars.data.get("resume")) or run.vars.text("csv") != "temp":
            return False
        for m in s.vars.render(s.spec.get("merge", [])):
            if "key" in m:
                k = collect.key_of_run(run.vars.data.get("rows"), m["key"], run.vars)
                if k is not None and k in collect.keys_in(m["file"], m["key"]):
                    return True
        return False

    def sweep(self, run):
        return next(s for s in self.sweeps if s.name == run.sweep)

    # ------------------------------------------------------------ running
    def run(self):
        """Runs everything planned; returns the number of failed runs."""
        self.total, queue, active = len(self.todo), list(self.todo), {}
        for s in self.sweeps:
            if not self.left[s.name]:   # everything kept: merge what is there
                self.sweep_done(s)
        try:
            while queue or active:
                if queue and self.can_start(queue[0], active):
                    r = queue.pop(0)
                    if self.kept_by_key(r):
                        self.say(f"kept  {r.sweep}: {r.label} (in its merged file)")
                        self.finish(r, None, 0, kept=True)
                        continue
                    active[r] = self.start(r)
                    continue
                self.wait_one(active, queue)
        except KeyboardInterrupt:
            for r, (p, _, _) in active.items():
                os.killpg(p.pid, signal.SIGTERM)
            raise
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)
        return len(self.failed)

    def can_start(self, r, active):
        # Real processes run alone: they time themselves on this machine.
        if launch.is_real(r.vars) or any(launch.is_real(a.vars) for a in active):
            return not active
        cap = int(self.sweep(r).vars.get("jobs") or 0)
        same = sum(1 for a in active if a.sweep == r.sweep)
        return len(active) < self.jobs and (not cap or same < cap)

    def start(self, r):
        cmd, env = launch.command(r.vars)
        log = self.log_path(r)
        out_path = r.vars.text("stdout")
        for path in (log, out_path, r.vars.data.get("part") if r.cell else None):
            if path:
                os.makedirs(os.path.dirname(path), exist_ok=True)
        logf = open(log, "w")
        outf = open(out_path, "w") if out_path else logf
        self.started += 1
        self.say(f"start {self.started}/{self.total} {r.sweep}: {r.label} "
                 f"({launch.where(r.vars)}){self.est_text(r)}")
        p = subprocess.Popen(cmd, env={**os.environ, **env}, stdout=outf, stderr=logf,
                             stdin=subprocess.DEVNULL, cwd=r.vars.text("root"),
                             start_new_session=True)
        for f in {logf, outf}:
            f.close()
        return p, time.time(), log

    def wait_one(self, active, queue):
        while True:
            for r, (p, t, log) in list(active.items()):
                if p.poll() is not None:
                    del active[r]
                    self.finish(r, p.returncode, time.time() - t, log=log,
                                active=active, queue=queue)
                    return
            if time.time() - self.last_say >= HEARTBEAT:   # long runs: never silent
                now = time.time()
                self.say("running " + ", ".join(f"{r.label} ({now - t:.0f} s)"
                                                for r, (_, t, _) in active.items())
                         + self.eta(active, queue))
            time.sleep(0.2)

    def finish(self, r, rc, dur, log=None, kept=False, active=(), queue=()):
        s = self.sweep(r)
        self.durations[r] = dur
        if not kept:
            if rc == 0:
                self.say(f"done  {self.done_count()}/{self.total} {r.sweep}: {r.label} in "
                         f"{dur:.0f} s{self.eta(active, queue)}")
                self.timing(f"{r.label:<28s} {dur:4.0f} s" + (
                    f"  ({r.vars.text('platform')}, p={r.vars.text('np')})"
                    if launch.engine(r.vars) == "smpi" else ""))
                if r.vars.data.get("show"):
                    with open(r.vars.text("stdout") or log) as f:
                        print(f.read(), end="", flush=True)
            else:
                self.failed.append(r)
                self.say(f"FAILED {r.sweep}: {r.label} (exit {rc}) after {dur:.0f} s; see {log}")
                with open(log, errors="replace") as f:
                    for line in f.read().splitlines()[-5:]:
                        self.say(f"    {line}")
                self.timing(f"{r.label}: FAILED")
        if r.cell:
            self.cell_done(r, rc == 0 and not kept)
        self.left[r.sweep] -= 1
        if self.left[r.sweep] == 0:
            self.sweep_done(s)

    def cell_done(self, r, ok):
        cell = r.cell
        if ok:
            cell.parts.append(r.vars.text("part"))
        cell.left -= 1
        if cell.left:
            return
        path = cell.path or r.vars.text("part") + ".cell"
        fields, rows = collect.write_cell(path, cell.parts, r.vars.data.get("rows"),
                                          r.vars.data.get("header"), r.vars)
        if fields is None:
            return
        cell.written = path
        s = cell.sweep
        for m in s.vars.render(s.spec.get("merge", [])):
            if "key" in m:
                collect.update(m["file"], m["key"], fields, rows)

    def sweep_done(self, s):
        cells = [c.written for c in self.cells if c.sweep is s and c.written]   # run order
        for m in s.vars.render(s.spec.get("merge", [])):
            if "key" in m:
                continue
            os.makedirs(os.path.dirname(m["file"]), exist_ok=True)
            if "glob" in m:
                ok = collect.glob_merge(m["file"], m["glob"])
            else:
                ok = collect.concat_files(m["file"], cells)
            self.say(f"wrote {m['file']}" if ok else f"nothing to merge into {m['file']}")
        for argv in [[str(w) for w in s.vars.render(a)] for a in s.spec.get("after", [])]:
            self.say(f"after {s.name}: collx {' '.join(argv)}")
            why = self.after(argv)
            if why:   # a table must not stop the others
                self.say(f"FAILED after {s.name}: collx {' '.join(argv)}: {why}")
                self.failed.append(argv)

    def after(self, argv):
        """Runs collx ARGV (python3 -m collx, this package first on its
        path), its output beside the runner's; None if it succeeded, else
        why not."""
        path = [PKG_PARENT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.stdout.flush()
        self.stream.flush()
        try:
            rc = subprocess.run([sys.executable, "-m", "collx", *argv],
                                env={**os.environ, "PYTHONPATH": os.pathsep.join(path)}).returncode
        except OSError as e:
            return str(e)
        return f"exit {rc}" if rc else None

    # ------------------------------------------------------------ progress
    def say(self, msg):
        self.last_say = time.time()
        t = int(time.time() - self.t0)
        print(f"[sweep {t // 60}:{t % 60:02d}] {msg}", file=self.stream, flush=True)

    def timing(self, line):
        if self.timings:
            with open(self.timings, "a") as f:
                f.write(line + "\n")

    def log_path(self, r):
        name = re.sub(r"[^A-Za-z0-9_.+-]+", "_", r.label).strip("_")
        path, k = os.path.join(self.log_dir, name + ".txt"), 1
        while path in self.logs:
            k += 1
            path = os.path.join(self.log_dir, f"{name}.{k}.txt")
        self.logs.add(path)
        return path

    def done_count(self):
        return len(self.durations)

    def est(self, r):
        """Seconds a run takes: its est_s, else the mean of its sweep's
        finished runs, else of all finished runs (None: nothing known)."""
        e = int(r.vars.get("est_s") or 0)
        if e:
            return e
        same = [d for x, d in self.durations.items() if x.sweep == r.sweep and d]
        known = same or [d for d in self.durations.values() if d]
        return sum(known) / len(known) if known else None

    def est_text(self, r):
        e = self.est(r)
        return f", ~{e:.0f} s" if e and e >= 1 else ""

    def eta(self, active, queue):
        left = [self.est(r) for r in queue]
        now = time.time()
        for r, (_, t, _) in dict(active).items():
            e = self.est(r)
            left.append(None if e is None else max(e - (now - t), 0))
        if not left:
            return ""
        if None in left:
            return "; time left unknown yet"
        secs = sum(left) / self.jobs
        return f"; about {secs / 60:.0f} min left" if secs >= 90 else f"; about {secs:.0f} s left"
