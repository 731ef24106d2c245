"""The sampler's runs (sampler.py): one batch of collbench runs, what is
left of it after a failure run again, the failed runs kept and said, and
the launch given up when it keeps failing the same way (issue 62)."""
from collx.tune import grid as gridmod
from collx.tune.labels import across_nodes_only, interleaved, runs
from collx.tune.store import case_cost, grows

MAX_LIST = 32        # collbench's --algs and -m lists
LIMIT_SLACK = 1.5    # a run with a limit (batch) stops at this times what is left of it
# Runs that exited before their first case with one message, with nothing
# measured yet, after which the tuner stops: the launch itself fails (Open
# MPI with more ranks than slots failed all 60 runs of a 20 s budget, and
# the tuner wrote an all-native file and exited 0: issue 62). A run killed
# by a limit (memory, time) is an algorithm's point, not the launch.
LAUNCH_TRIES = 3
SHOW_LINES = 60   # a failed run's message on the terminal: its ends beyond this


class NothingMeasured(RuntimeError):
    """Every run so far failed before its first case: the launch (or
    collbench) itself fails. args[0]: the failed runs (Sampler.failures)."""


def shown(text, most=SHOW_LINES):
    """text's lines, indented; beyond most lines its first and last halves."""
    lines = text.splitlines()
    if len(lines) > most:
        lines = lines[:most // 2] + [f"  [... {len(lines) - most} lines left out: "
                                     "report.md has them ...]"] + lines[-(most // 2):]
    return "\n".join("    " + x for x in lines)


class SamplerRuns:
    """Batches and failures. Part of Sampler (its attributes:
    sampler.Sampler.__init__)."""

    def batch(self, coll, q, algs, sizes, why, limit=None):
        """Measures algs x sizes at q (reps samples each); what is left
        after a failure runs again, as far as the budget allows (and
        limit, seconds of it for this batch: each run is stopped when it
        has spent LIMIT_SLACK times what is left of them, its cases done
        kept, the case it was in counted as too dear, as one that ran out
        of time). On a real
        MPI each sample comes from a launch of its own, the runs taking
        turns: two launches of one case can time further apart than the
        algorithms do (Open MPI, 2 ranks on a 2-core machine: hier bcast of
        64 KiB 23.7 us in one launch, 13.3 in another, 3 samples within 10 %
        in each), so samples of one launch would hide it."""
        per = 1 if self.t.launches_vary else self.o.reps   # samples per launch
        chunk = max(1, MAX_LIST // per)
        groups = [(group[i:i + chunk], sizes, why) for group in runs(algs)
                  for i in range(0, len(group), chunk)]
        queue = [(a, m, w, want) for want in range(per, self.o.reps + 1, per)
                 for a, m, w in groups]
        first, start = True, self.spent()
        while queue:
            a, m, w, want = queue.pop(0)
            a, m = self.todo(coll, q, a, m, want)
            if not a or not m:
                continue
            if not first and not self.fits(coll, q, a, m):
                self.say(f"{coll} p={q}: no budget left for the rest ({len(a)} algs x "
                         f"{len(m)} sizes)")
                continue
            run_limit = None
            if limit is not None:
                run_limit = limit - (self.spent() - start)
                if not first and run_limit <= 0:
                    self.say(f"{coll} p={q}: its {limit:.0f} s spent, not run: {len(a)} "
                             f"algs x {len(m)} sizes")
                    continue
                # slack for a prediction that was close: the limit is for
                # the runs that cost many times theirs
                run_limit = max(LIMIT_SLACK * run_limit, 2 * self.cost.overhead(q))
            first = False
            queue[:0] = [x + (want,) for x in self.run_one(coll, q, a, m, w, per,
                                                              turn=want - per,
                                                              limit=run_limit)]

    def run_one(self, coll, q, algs, sizes, why, reps, turn=0, limit=None):
        """One collbench run; returns what is left to run ([] if it went
        through). If it fails, the cases it finished count, the case it was
        in is recorded as failed, and the rest is left: the other
        algorithms from that size on, that algorithm at larger sizes.
        The algorithms' order alternates (labels.interleaved; by turn
        between the launches of a real MPI)."""
        if self.t.launches_vary and "native" not in algs and "native" in self.algs[coll]:
            # native in every launch: each algorithm is compared with it in the
            # launches both ran in (store.paired; decide.Decider.every_repeat),
            # not across launches whose own offsets may exceed their difference
            algs = algs + ["native"]
        labels = interleaved(algs, reps, turn)
        args = gridmod.comm_args(coll, q) + [
            "--algs", ",".join(labels),
            "-m", ",".join(str(m) for m in sizes),   # one size: MIN=MAX
            "-i", str(self.o.iters), "-x", str(self.o.warmup), "--host-time"]
        timeout = self.o.timeout if limit is None else min(self.o.timeout, limit)
        rows, out = self.t.run_collbench(q, args, timeout=timeout,
                                         mem_limit=self.o.mem_limit)
        rec = {"coll": coll, "q": q, "algs": algs, "sizes": sizes, "reps": reps,
               "cases": len(rows), "cost": self.t.cost(out), "cpu_s": out.cpu,
               "wall_s": out.wall, "peak_mb": out.peak >> 20, "why": why, "ok": out.ok,
               "case_cost": sum(case_cost(r) for r in rows)}
        self.store.batches.append(rec)
        self.dirty.add(coll)
        self.store.add_rows(coll, q, rows, rec, launch=len(self.store.batches) - 1)
        order = [(m, a) for m in sizes for a in labels]   # collbench's order
        if out.ok:
            got = {(r["alg"], int(r["size_bytes"])) for r in rows}
            for m, a in order:
                if (a, m) not in got:
                    self.store.fail(coll, a, q, m, "no result row")
            what = algs[0] if len(algs) == 1 else f"{len(algs)} algs"   # a variant runs alone
            self.say(f"{coll} p={q}: {what} x {len(sizes)} sizes x {reps} "
                     f"= {len(order)} cases ({why}) in {rec['cost']:.1f} s; "
                     f"{self.budget_text()}")
            return []
        rec["failed"] = out.why()
        if len(rows) >= len(order):
            self.say(f"{coll} p={q}: every case done, then the run failed ({out.why()}); "
                     f"kept")
            self.failed_run(coll, q, out, len(rows))
            return []
        m, a = order[len(rows)]
        self.store.fail(coll, a, q, m, out.why())
        self.say(f"{coll} p={q}: run failed after {rec['cost']:.1f} s and {len(rows)} of "
                 f"{len(order)} cases: {a} at {m} B cannot be measured ({out.why()}); "
                 f"skipped" + (", and at larger sizes and communicators" if grows(out.why())
                               else "") + f"; {self.budget_text()}")
        self.failed_run(coll, q, out, len(rows))
        return [([x for x in algs if x != a], [x for x in sizes if x >= m], why + ", rest"),
                ([a], [x for x in sizes if x > m], why + ", rest")]

    def failed_run(self, coll, q, out, cases):
        """Keeps a failed run (what it ran, its whole message: said in full
        at the end, failures_text); NothingMeasured when LAUNCH_TRIES runs
        failed and nothing was ever measured."""
        self.failures.append({"coll": coll, "q": q, "cases": cases, "why": out.why(),
                              "report": out.report(), "killed": bool(out.killed)})
        if not self.store.samples and self.launch_fails():
            raise NothingMeasured(self.failures)
        if coll not in self.given_up and self.launch_fails(coll):
            # issue 62: every bcast launch failed in 0.2 s, and the tuner
            # launched 42 of them, then said "no point at risk"
            self.given_up[coll] = out.why()
            self.plans[coll] = []
            self.say(f"{coll}: its last {LAUNCH_TRIES} runs failed before their first case "
                     f"the same way ({out.why()}): not launched again; its grid points keep "
                     f"native, measured nothing")

    def launch_fails(self, coll=None):
        """The last LAUNCH_TRIES runs (of coll: its runs) exited (not killed
        by a limit: that is an algorithm's point) before their first case,
        saying the same: the launch itself fails, not one algorithm."""
        last = [f for f in self.failures if coll is None or f["coll"] == coll]
        if coll is not None:   # the collective's last runs, not some older failures
            ran = [b for b in self.store.batches if b["coll"] == coll]
            if ran[-LAUNCH_TRIES:] and any(b.get("ok", True) or b.get("cases")
                                           for b in ran[-LAUNCH_TRIES:]):
                return False
        last = last[-LAUNCH_TRIES:]
        return len(last) == LAUNCH_TRIES and len({f["why"] for f in last}) == 1 and \
            all(not f["killed"] and f["cases"] == 0 for f in last)

    def given_up_text(self):
        """ "; not measured: bcast (its runs failed: ...)" ('' if none)."""
        return "".join(f"; {c} not measured (its runs kept failing: {w})"
                       for c, w in self.given_up.items())

    def failures_text(self):
        """The runs that failed, for the end of the output: how many, the
        first one's whole message, the gists of the other kinds ('' if
        none failed)."""
        if not self.failures:
            return ""
        first = self.failures[0]
        others = list(dict.fromkeys(f["why"] for f in self.failures if f["why"] != first["why"]))
        return (f"{len(self.failures)} of {len(self.store.batches)} runs failed; "
                f"{len(self.store.failed)} (algorithm, point) pairs could not be measured "
                f"(report.md lists them). The first failed run ({first['coll']} "
                f"p={first['q']}):\n{shown(first['report'])}" +
                "".join(f"\n  other failures: {w}" for w in others[:3]) +
                (f"\n  and {len(others) - 3} more kinds" if len(others) > 3 else ""))

    def todo(self, coll, q, algs, sizes, want=1):
        """The algorithms and sizes with a point that has fewer than want
        samples and is not known to fail; none of a collective given up
        (its runs kept failing: failed_run)."""
        if coll in self.given_up:
            return [], []
        if gridmod.layout(q, gridmod.node_of(coll, self.t.node)) == 0:   # one node
            algs = [a for a in algs if not across_nodes_only(a)]
        algs = [a for a in algs if any(self.unknown(coll, a, q, m, want) for m in sizes)]
        sizes = [m for m in sizes if any(self.unknown(coll, a, q, m, want) for a in algs)]
        return algs, sizes

    def unknown(self, coll, a, q, m, want=1):
        return len(self.store.samples.get((coll, a, q, m), ())) < want and \
            not self.store.cannot(coll, a, q, m)

    def try_batch(self, coll, q, algs, sizes, why, limit=None):
        """Runs it if the budget allows; False if it did not."""
        algs, sizes = self.todo(coll, q, algs, sizes)
        if not algs or not sizes:
            return True
        if not self.fits(coll, q, algs, sizes):
            return False
        self.batch(coll, q, algs, sizes, why, limit)
        self.cost.refit(coll)
        return True
