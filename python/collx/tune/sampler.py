"""Measuring: runs of collbench, the initial design, the model-guided
rounds and the exhaustive grid.

A run (a batch) is one collbench process: one collective on q ranks, some
algorithms at some sizes, each algorithm listed `reps` times (interleaved
samples of the same point); an algorithm that leaves work behind in the
process (labels.runs: RMA bcast) runs in a run of its own. When a run fails (exit, timeout, memory
limit), the cases it finished count (collbench's CSV grows case by case),
the case it was in is recorded as failed (out of memory or time: the
algorithm is presumed to fail at larger sizes and communicator sizes too;
skipped, said: store.cannot), and the rest runs again.

Where the budget goes (issue 52): the job's own size P and the largest
communicators first, then the sizes between. Initial design: the
algorithms as they are (their variants are predicted from them,
decide.py) at both ends of every layout (P among them) and P/2, so that
every communicator size between is a prediction with a known uncertainty,
not an extrapolation; then, after the budget split (whole, largest
first), native at every grid point (natives, largest first).

Guided rounds: at every grid point, the choice and, for each algorithm
whose comparison with the choice is not measured, the probability p that
it is faster by more than 3 % and the expected gain (decide.comparisons),
weighted by the point's communicator size (q / P: size_weight). Items
(algorithm, size) with p > 5 % are candidates. Per communicator size, a
run is grown greedily from its best item by the size or algorithm that
adds the most expected gain per predicted host second (cost.py), as long as
that keeps at least 70 % of the run's gain per second; native and the
points' choices are always in it. The run with the most gain per second
over all collectives and communicator sizes that the budget can pay for
goes next. Sampling ends when no candidate is left or the budget can pay
for none; where it ends, the model's predictions with their uncertainty
decide (an algorithm replaces native only when faster beyond it), and
the report says which points are measured and which predicted.

With a profile (profile.py): native at its points, then every algorithm
at its points, the most time first, the budget split by that time
(profiled), then the guided rounds with the gains weighted by it.

Budget: a run starts only if the cost spent plus its predicted cost stays
within the budget; spent = the runs' cost (host CPU seconds in SMPI, wall
seconds on a real MPI) plus, in SMPI, the tuner's own CPU seconds."""
import functools
import math
import resource
import sys
import time

from collx.tune import decide
from collx.tune import grid as gridmod
from collx.tune.cost import CostModel
from collx.tune.labels import PARAM_SEP, across_nodes_only, base_of, interleaved, runs
from collx.tune.store import case_cost, grows

MAX_LIST = 32        # collbench's --algs and -m lists
INIT_COMMS = 3       # without nodes: the smallest and middle of 3 spread ones
INIT_SIZES = 4       # sizes at each
FOCUS_SIZES = 7     # sizes at P and P/2: a measurement every other doubling
INIT_SHARE = 0.05    # of the budget one initial run may cost (predicted)
GROUP_SIZES = 8      # sizes per guided run at most
PROBE_FIRST = 1      # algorithms in the first run where their cost at q is unknown
LIMIT_SLACK = 1.5    # a run with a limit (batch) stops at this times what is left of it
DILUTE = 0.7         # a run grows while it keeps this share of its gain per second
# Without a profile, an expected gain at a communicator size of q ranks
# counts (q / P)^SIZE_POWER: a job's collectives run mostly on the whole job
# and its large sub-communicators, which cost more to simulate than 2 ranks
# do (gige-18x8 at P = 144, 300 s: the sampler before issue 52 spent 6 % at
# 112-144 ranks, on native alone). Replayed on the four grids at an eighth
# of their cost (docs/results/tune/README.md, "The budget where the job
# runs"), power 1 kept tuned/oracle at P within 1.012 and at P/2 within
# 1.047 in geometric mean; power 2 did worse over all points (1.008-1.022
# against 1.005-1.013), and budget shares forced on the sizes (each size
# its share, whatever its risk) did worse at P (1.107 on gige-18x8).
SIZE_POWER = 1
# Above P/2 (the dearest sizes to simulate) an algorithm is measured at a
# message size only if at P/2 (the reference, measured first) it was within
# SCREEN of the best there, the way ACCLAiM and FACT carry what smaller
# allocations taught to larger ones. On the five exhaustive grids of the
# development platforms (P = 32-72), screening each of P's sizes by P/2's
# times with a factor 2 measured 18-50 % of P's host time and lost no
# winner at P (with 1.3 or 1.5: up to 1.43 times the best lost, ib-qdr-36x16's
# bcast at 512 KiB); rma_linear bcast, the dearest, is screened out on all.
SCREEN = 2.0
# Without a profile, an expected gain at P and P/2 (focus) counts FOCUS_BOOST
# times what size_weight says: the held-out targets of issue 52 are there,
# and at an eighth of the grid's cost on a 64-rank grid of five collectives
# (cse-2switch-30x8) the rounds had spent nothing at P: its runs cost 6
# times P/2's and 50 times 8 ranks'. Replayed at an eighth on six grids,
# boost 8 took that grid's tuned/best at P from 1.18 to 1.07 and at P/2
# from 1.15 to 1.05 (docs/results/tune/README.md, "The job's own sizes").
FOCUS_BOOST = 8.0
# native's run at a communicator size off the initial design may cost this
# share of the budget, on the design's sizes INIT_SHARE, like the design's
# own runs (its largest sizes left out, predicted from the neighbours):
# native alltoall of 512 B-64 KiB at 64 ranks of cse-2switch-30x8 costs 37
# host seconds, the natives at every size of that grid half of an eighth of
# its cost; at 96 ranks of eth10g-ft-48x12, 256 B-64 KiB, 226 s, two thirds.
NATIVE_SHARE = 0.02
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


def spaced(values, k):
    """k values spread evenly over the list (first and last included)."""
    if len(values) <= k:
        return list(values)
    return sorted({values[round(i * (len(values) - 1) / (k - 1))] for i in range(k)})


class Sampler:
    def __init__(self, target, grids, algs, store, decider, opts, stream=sys.stderr,
                 weights=None):
        """weights: {(coll, q, m): seconds} of a profile (the points it
        measures, the budget split by their time, their expected gains
        weighted by it); None: every grid point, each communicator size's
        expected gains weighted by size_weight."""
        self.t, self.grids, self.algs = target, grids, algs
        self.store, self.dec, self.o = store, decider, opts
        self.profile = weights
        self.shares = {}   # with a profile: (coll, q) -> its seconds
        for (c, q, _), w in (weights or {}).items():
            self.shares[(c, q)] = self.shares.get((c, q), 0.0) + w
        self.cost = CostModel(store, algs, opts.reps, target.node,
                              launches=opts.reps if target.launches_vary else 1)
        self.stream, self.t0 = stream, time.time()
        self.uncounted = 0.0   # wall seconds not the budget's (the MPI's own part)
        self.budget = opts.budget if opts.budget else float("inf")
        self.stopped = ""   # why sampling stopped early ("" = it did not)
        self.cpu0 = self.self_cpu()
        self.prior = store.cost()   # measurements loaded (--from)
        self.dirty = set(grids)     # collectives measured since their last fit
        self.plans = {}             # coll -> its candidate runs
        self.failures = []          # the runs that failed: failed_run
        self.given_up = {}          # coll -> why its runs are not launched again

    # ------------------------------------------------------------ progress
    def say(self, msg):
        s = int(time.time() - self.t0)
        print(f"[tune {s // 60}:{s % 60:02d}] {msg}", file=self.stream, flush=True)

    @staticmethod
    def self_cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def own_cpu(self):
        return self.self_cpu() - self.cpu0

    def spent(self):
        """The budget spent: the runs' cost (host CPU seconds in SMPI),
        plus the tuner's own CPU time (fits, choices) since it started; on
        a real MPI the wall time since the start."""
        if self.t.kind == "real":
            return time.time() - self.t0 - self.uncounted + self.prior
        return self.store.cost() + self.own_cpu()

    def budget_text(self):
        if self.budget == float("inf"):
            return f"spent {self.spent():.0f} s ({self.t.clock})"
        left = max(self.budget - self.spent(), 0)
        return f"spent {self.spent():.0f}/{self.budget:.0f} s, {left:.0f} s left"

    def fits(self, coll, q, algs, sizes):
        return self.spent() + self.cost.batch(coll, q, algs, sizes) <= self.budget

    # ------------------------------------------------------------ where it goes
    def weight(self, coll, q, m):
        """What an expected gain at a grid point counts: size_weight without
        a profile; with one, the point's seconds (0 off the profile's
        points: never measured for itself)."""
        if self.profile is None:
            boost = FOCUS_BOOST if q in self.focus else 1.0
            return boost * size_weight(q, self.t.p)
        return self.profile.get((coll, q, m), 0.0)

    def points(self, coll, q):
        """The sizes at q that count (all without a profile)."""
        return [m for m in self.grids[coll].sizes if self.weight(coll, q, m) > 0]

    def by_priority(self, comms):
        """Communicator sizes in the order the budget goes to them: the
        largest first (the job's own size P, then its large
        sub-communicators)."""
        return sorted(comms, reverse=True)

    # ------------------------------------------------------------ one run
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

    # ------------------------------------------------------------ strategies
    def initial(self):
        """Every algorithm (as it is: its variants are predicted from it,
        decide.py) at a few points per collective: INIT_SIZES sizes
        spread over the range at the communicator sizes of init_comms,
        every layout at both ends (decide.py predicts with a known
        uncertainty only between measured communicator sizes of a layout:
        beyond them a prediction is no evidence, and before issue 52 the
        sizes above the largest measured were left to native). The small
        ones first, smallest first: they are cheap and tell the cost model
        what a case costs before the large ones, P last, whose runs
        leave out their largest sizes until they are predicted to cost at
        most INIT_SHARE of the budget (init_sizes)."""
        for q, coll in self.init_order():
            plain = [a for a in self.algs[coll] if base_of(a, self.algs[coll]) is None]
            if self.screening(q):
                self.dec.refit(coll)
            for group in runs(plain):
                sizes = self.init_sizes(coll, q, group)
                for algs, kept in self.unscreened(coll, q, group, sizes):
                    if not self.try_batch(coll, q, algs, kept, "initial"):
                        self.stopped = "budget spent in the initial design"
                        self.say(f"{coll} p={q}: no budget left for the initial design")
                        return False
        return True

    # ------------------------------------------------------------ screening
    def screening(self, q):
        """Whether algorithms are screened at q: above P/2, without a
        profile (a profile's points are measured as it asks)."""
        return self.profile is None and q > self.t.p // 2 and self.ref_q is not None

    @functools.cached_property
    def ref_q(self):
        """The reference of the screening: the largest communicator size of
        the initial design at most P/2 (P/2 itself where it is a grid size
        of whole nodes), the same for every collective."""
        qs = [q for g in self.grids.values() for q in self.init_comms(g) if q <= self.t.p // 2]
        return max(qs, default=None)

    def screened(self, coll, a, q, m, best=None):
        """a is not measured at (q, m): slower than SCREEN times the best at
        the reference size (measured there, or predicted from its
        neighbours) and q is above P/2. best: {m: ln of the best at the
        reference} when the caller has it."""
        if a == "native" or not self.screening(q):
            return False
        e = self.dec.per_call(coll, a, self.ref_q, m)
        if e is None:
            return False
        low = best.get(m) if best is not None else None
        if low is None:
            low = self.ref_best(coll, m)
        return e.ln - low > math.log(SCREEN)

    def ref_best(self, coll, m):
        return min((e.ln for e in self.dec.estimates(coll, self.ref_q, m, charged=False)
                    .values()), default=float("inf"))

    def unscreened(self, coll, q, algs, sizes):
        """[(algs, sizes)]: the runs that measure each algorithm at the sizes
        it is not screened out at, algorithms with the same sizes together
        (native everywhere)."""
        if not self.screening(q):
            return [(algs, sizes)]
        best = {m: self.ref_best(coll, m) for m in sizes}
        by = {}
        for a in algs:
            kept = tuple(m for m in sizes if not self.screened(coll, a, q, m, best))
            if kept:
                by.setdefault(kept, []).append(a)
        out = sorted(((group, list(kept)) for kept, group in by.items()),
                     key=lambda x: -len(x[1]))
        dropped = [a for a in algs if not any(a in g for g, _ in out)]
        if dropped:
            self.say(f"{coll} p={q}: screened out at every size by p={self.ref_q} "
                     f"(slower than {SCREEN:g} x the best there): {', '.join(dropped)}")
        return out

    def init_order(self):
        """(q, coll) of the initial design: per collective the communicator
        sizes of init_comms, smallest first, collectives in the order asked
        for at each."""
        plan = sorted((q, i, c) for i, (c, g) in enumerate(self.grids.items())
                      for q in self.init_comms(g))
        return [(q, c) for q, _, c in plan]

    def largest_first(self, comms_of):
        """(q, coll) over every collective's communicator sizes comms_of(grid)
        in the budget's order (by_priority), collectives in the order asked
        for at each."""
        order = {q: i for i, q in enumerate(self.by_priority(
            {q for g in self.grids.values() for q in comms_of(g)}))}
        plan = sorted((order[q], i, q, c) for i, (c, g) in enumerate(self.grids.items())
                      for q in comms_of(g))
        return [(q, c) for _, _, q, c in plan]

    def init_sizes(self, coll, q, algs):
        """INIT_SIZES sizes spread over the range, the largest left out
        while the run is predicted to cost more than INIT_SHARE of the
        budget: the initial design must not spend the budget on the
        algorithms that are costly to simulate (rma_linear bcast at 32
        ranks and 1 MiB: 12 of a 66 s budget on ib-qdr-36x16)."""
        sizes = spaced(self.grids[coll].sizes,
                       FOCUS_SIZES if q in self.focus else INIT_SIZES)
        while len(sizes) > 1 and \
                self.cost.batch(coll, q, algs, sizes) > INIT_SHARE * self.budget:
            sizes = sizes[:-1]
        return sizes

    def init_comms(self, g):
        """Per layout (grid.layout: inside one node, whole nodes, whole
        nodes and a part of one: each another machine to the models) the
        smallest and the largest communicator size, and one between of
        whole nodes: P/2 (the job's halves, its largest sub-communicators)
        where it is a grid size of whole nodes between them, else the
        middle one in log2 q. The job's own size P is the largest of its
        layout. Without nodes: the smallest, the middle and the largest."""
        k = gridmod.node_of(g.coll, self.t.node)
        if k is None or k >= g.comms[-1]:
            return spaced(g.comms, INIT_COMMS)
        out = set()
        for kind in (0, 1, 2):
            own = [q for q in g.comms if gridmod.layout(q, k) == kind]
            if own:
                out |= {own[0], own[-1]}
            if kind == 1 and len(own) >= 3:
                half = self.t.p // 2
                mid = (own[0] * own[-1]) ** 0.5
                out.add(half if half in own[1:-1] else
                        min(own[1:-1], key=lambda q: abs(math.log(q / mid))))
        return sorted(out)

    def rest_runs(self, coll):
        """(q, algs, sizes) of one run per communicator size, largest
        first (by_priority), of what coll's grid has not measured yet."""
        g = self.grids[coll]
        for q in self.by_priority(g.comms):
            algs, sizes = self.todo(coll, q, self.algs[coll], g.sizes)
            if algs and sizes:
                yield q, algs, sizes

    def grid_left(self, coll):
        """Predicted cost of the rest of coll's grid: one run per
        communicator size of what is not measured yet; beyond the largest
        size measured, that size's run grown in proportion to q. (The cost
        model's q^3 there keeps rma_linear from taking the budget by
        surprise; for the whole rest of a cheap grid it is far too much:
        after gige-18x8's initial design it put allreduce's rest at 199 s
        where the grid cost 4 times less than q^3 says beyond 16 ranks.)"""
        top = max((q for (c, _, q, _) in self.store.samples if c == coll), default=None)
        total = 0.0
        for q, algs, sizes in sorted(self.rest_runs(coll)):
            if top is None or q <= top:
                total += self.cost.batch(coll, q, algs, sizes)
            else:
                total += self.cost.batch(coll, top, algs, sizes) * q / top
        return total

    def whole(self):
        """The budget split between collectives (water-filling): cheapest
        rest of the grid first, a collective whose rest is predicted to
        cost at most an even share of the budget left (among it and the
        ones not served yet) is measured whole, one communicator size after
        another, largest first, while each run still fits that share (a
        misprediction stops it there: the rest is sampled); the dearer ones
        share what is left in the guided rounds. A cheap collective's
        whole grid costs less than sampling it (one run per communicator
        size, where the guided rounds launch many small ones, each with a
        refit: gige-18x8's tuner spent 40.5 s on allreduce, whose grid
        costs 32.1) and leaves no comparison to a model; bcast's RMA
        algorithms make its grid 6-24 times dearer than allreduce's, and
        it is sampled."""
        if self.budget == float("inf") or len(self.grids) < 2:
            return
        for coll in self.grids:
            self.cost.refit(coll)
        order = sorted(self.grids, key=self.grid_left)
        for i, coll in enumerate(order):
            rest, share = self.grid_left(coll), \
                (self.budget - self.spent()) / (len(order) - i)
            if rest > share:
                whole = f"{', '.join(order[:i])} measured whole; " if i else ""
                self.say(f"budget split: {whole}{', '.join(order[i:])} sampled ({coll}'s "
                         f"rest ~{rest:.0f} s > an even share {share:.0f} s)")
                return
            self.say(f"{coll}: the rest of its grid (~{rest:.1f} s) fits an even share of "
                     f"the budget left ({share:.0f} s): measured whole")
            start = self.spent()
            for q, algs, sizes in list(self.rest_runs(coll)):
                if self.spent() - start + self.cost.batch(coll, q, algs, sizes) > share:
                    self.say(f"{coll} p={q}: the rest of its grid no longer fits its share "
                             f"({share:.0f} s): sampled from here on, like the others")
                    return
                self.batch(coll, q, algs, sizes, "whole grid")
                self.cost.refit(coll)

    def natives(self):
        """native at every grid point (with a profile: at its points), one
        run per collective and communicator size, largest first
        (by_priority): the rules' reference, and the times a model cannot
        guess (SMPI's own allreduce at gige-18x8 is the fastest at 48 ranks
        and 32 KiB, 5.6 times the best at 72 ranks: predicted from 48, the
        rules kept it there). Cheap: 0.4-2 % of the grids' host time
        (SMPI's native is simulated fast)."""
        for q, coll in self.largest_first(lambda g: g.comms):
            sizes = self.points(coll, q)
            if self.profile is None and self.budget < float("inf"):
                share = INIT_SHARE if q in self.init_comms(self.grids[coll]) else NATIVE_SHARE
                sizes = self.todo(coll, q, ["native"], sizes)[1]
                while len(sizes) > 1 and \
                        self.cost.batch(coll, q, ["native"], sizes) > share * self.budget:
                    sizes = sizes[:-1]
            if sizes and not self.try_batch(coll, q, ["native"], sizes, "native"):
                self.say(f"{coll} p={q}: no budget left for native's run")

    def probe(self, coll, q, algs, m, share, why):
        """Algorithms not measured at q yet, at the profile's heaviest size
        m only, until the runs have cost share (at least one run): what a
        case of them costs to simulate at q is unknown before (ex5f at
        1024 ranks: allreduce's 35 cases, predicted from native's at 50 s,
        took 109, and the scan, a quarter of the time, was left to native
        with no comparison). The first run has PROBE_FIRST of them (it may
        spend half the budget left); the next ones as many as their cost,
        predicted from what those cost, leaves within the share, and a run
        that would spend more is stopped there (the case it was in counted
        as out of time: six of bcast's at 4 B took 278 s at 1024 ranks
        where 23 were predicted). Returns algs less those left out."""
        start = self.spent()
        new = [a for a in algs if a != "native" and not any(
            self.store.samples.get((coll, a, q, mm)) for mm in self.grids[coll].sizes)]
        i, n = 0, PROBE_FIRST
        while i < len(new):
            left = share - (self.spent() - start)
            if i:
                if left <= 0:
                    self.say(f"{coll} p={q}: its share ({share:.0f} s) spent at its "
                             f"heaviest size; {len(new) - i} algorithms not measured")
                    return [a for a in algs if a not in new[i:]]
                n = 1
                while i + n < len(new) and \
                        self.cost.batch(coll, q, new[i:i + n + 1], [m]) <= left:
                    n += 1
            # the first run may spend half the budget left (one comparison
            # at least, and the others keep some), the next ones what is
            # left of the share
            limit = max(left, 0.0) if i else max(share, (self.budget - self.spent()) / 2)
            if not self.try_batch(coll, q, new[i:i + n], [m], why, limit=limit):
                self.say(f"{coll} p={q}: no budget left for the profile's point")
                return [a for a in algs if a not in new[i:]]
            i += n
        return algs

    def profiled(self):
        """With a profile: every algorithm (as it is; its variants are
        predicted from it and measured in the rounds where it contends) at
        the profile's points, one run per collective and communicator
        size, the most time first, each within its share of the budget
        left (its seconds over the seconds of those not measured yet, so
        that what one leaves flows to the next): the algorithms new at a
        communicator size first at its heaviest size alone (probe), then
        the rest in a run that, predicted to cost more than the share
        left, leaves out its sizes with the least time, then its dearest
        algorithms, until it fits."""
        plain = {c: [a for a in self.algs[c] if base_of(a, self.algs[c]) is None]
                 for c in self.grids}
        order = sorted(self.shares, key=lambda g: (-self.shares[g], g))
        left = sum(self.shares.values())
        for coll, q in order:
            w = self.shares[(coll, q)]
            share = (self.budget - self.spent()) * w / left if left > 0 else 0.0
            left -= w
            self.cost.refit(coll)
            heavy = sorted(self.points(coll, q), key=lambda m: (-self.weight(coll, q, m), m))
            why = (f"profile: {100 * w / sum(self.shares.values()):.0f} % of the "
                   f"application's time, share {share:.0f} s")
            start = self.spent()
            if heavy and self.budget < float("inf"):
                algs = self.probe(coll, q, plain[coll], heavy[0], share, why + ", probe")
                self.cost.refit(coll)
                share -= self.spent() - start
            else:
                algs = plain[coll]
            algs, sizes = self.todo(coll, q, algs, heavy)
            if not algs or not sizes or share <= 0:
                continue
            while len(sizes) > 1 and self.cost.batch(coll, q, algs, sizes) > share:
                sizes = sizes[:-1]
            while len(algs) > 2 and self.cost.batch(coll, q, algs, sizes) > share:
                dear = max((a for a in algs if a != "native"),
                           key=lambda a: sum(self.cost.case(coll, a, q, m) for m in sizes))
                algs = [a for a in algs if a != dear]
            if not self.fits(coll, q, algs, sizes):
                self.say(f"{coll} p={q}: no budget left for the profile's point")
                continue
            self.batch(coll, q, algs, sorted(sizes), why)
            self.cost.refit(coll)

    def refresh(self, coll):
        """The candidate runs of coll: one per communicator size with
        candidates, as (gain per second, gain, cost, q, algs, sizes,
        points at risk)."""
        g = self.grids[coll]
        if coll in self.given_up:
            self.plans[coll] = []
            return
        self.dec.refit(coll)
        self.cost.refit(coll)
        self.cost.fill(coll, g.cells())
        choice = self.dec.choices(coll, g)
        best = {m: self.ref_best(coll, m) for m in g.sizes} if self.ref_q else {}
        plans = []
        for q in g.comms:
            items = {}   # m -> {a: ei, weighted by the point's time with a profile}
            for m in self.points(coll, q):
                w = self.weight(coll, q, m)
                for a, p, ei in self.dec.comparisons(coll, q, m, choice[(q, m)]):
                    if p > decide.RISK and not self.screened(coll, a, q, m, best):
                        items.setdefault(m, {})[a] = ei * w
            if items:
                plans.append(self.grow(coll, q, items, choice))
        self.plans[coll] = plans

    def grow(self, coll, q, items, choice):
        """The run at q with the most expected gain per predicted second
        (greedy, see the module's docstring)."""
        def value(algs, sizes):
            return sum(items.get(m, {}).get(a, 0.0) for m in sizes for a in algs)

        case = {(a, m): self.cost.case(coll, a, q, m) for a in self.algs[coll] for m in items}
        launch = self.cost.overhead(q)

        def price(algs, sizes):   # the runs measure every algorithm at every size
            full = set(algs) | {"native"} | {choice[(q, m)] for m in sizes}
            return launch * n_runs(frozenset(full)) + \
                self.o.reps * sum(case[(a, m)] for a in full for m in sizes)

        best = max(((a, m) for m in items for a in items[m]),
                   key=lambda am: items[am[1]][am[0]] / price([am[0]], [am[1]]))
        algs, sizes = [best[0]], [best[1]]
        while True:
            ratio = value(algs, sizes) / price(algs, sizes)
            options = [(algs + [a], sizes) for a in {x for d in items.values() for x in d}
                       if a not in algs]
            if len(sizes) < GROUP_SIZES:
                options += [(algs, sorted(sizes + [m])) for m in items if m not in sizes]
            scored = [(value(a, s) / price(a, s), a, s) for a, s in options]
            if not scored:
                break
            r, a, s = max(scored, key=lambda x: x[0])
            if r < DILUTE * ratio:
                break
            algs, sizes = a, s
        full = set(algs) | {"native"} | {choice[(q, m)] for m in sizes}
        algs = sorted(full, key=self.algs[coll].index)
        v, c = value(algs, sizes), price(algs, sizes)
        return (v / c, v, c, q, algs, sizes, sum(len(d) for d in items.values()))

    def guided(self):
        """Rounds: refit what was measured, take the run with the most
        expected gain per second (gains weighted: weight), until none is
        left or the budget is out."""
        while True:
            for coll in list(self.dirty):
                self.refresh(coll)
                self.dirty.discard(coll)
            plans = sorted(((p, coll) for coll in self.grids for p in self.plans[coll]),
                           key=lambda x: -x[0][0])
            if not plans:
                self.say(f"sampling done{self.given_up_text()}; {self.budget_text()}"
                         if self.given_up else
                         f"no point at risk: sampling done; {self.budget_text()}")
                return
            at_risk = sum(p[6] for p, _ in plans)
            for plan, coll in plans:
                _, gain, cost, q, algs, sizes, _ = plan
                before = len(self.store.batches)
                if not self.try_batch(coll, q, algs, sizes, f"gain {gain:.2f} for ~{cost:.1f} "
                                      f"s; {at_risk} comparisons at risk"):
                    continue
                if len(self.store.batches) == before:   # nothing left to run there
                    self.plans[coll].remove(plan)
                    continue
                break
            else:
                if self.smaller_run(plans, at_risk):
                    continue
                self.stopped = "budget spent"
                self.say(f"budget spent: {at_risk} comparisons still at risk; "
                         f"{self.budget_text()}")
                return

    def smaller_run(self, plans, at_risk):
        """No planned run fits what is left of the budget: the first one
        that fits with its dearest sizes left out (down to one), then its
        dearest variants (each a run of its own) and algorithms (native
        stays), runs (on a real MPI a run is a launch per sample: at p = 2,
        17 of 30 s were left unspent when the one run planned, with 4 MiB in
        it, no longer fit: issue 62). True if one ran."""
        for plan, coll in plans:
            _, gain, _, q, algs, sizes, _ = plan
            algs, sizes = self.todo(coll, q, algs, sizes)
            if not algs or not sizes:
                continue
            sizes = sorted(sizes, key=lambda m: sum(self.cost.case(coll, a, q, m) for a in algs))
            while len(sizes) > 1 and not self.fits(coll, q, algs, sizes):
                sizes.pop()
            # then the variants (each a run, a launch per sample, of its own),
            # the dearest first; native stays
            algs = sorted(algs, key=lambda a: (a != "native", PARAM_SEP in a,
                                               self.cost.case(coll, a, q, sizes[0])))
            while len(algs) > 2 and not self.fits(coll, q, algs, sizes):
                algs.pop()
            if self.fits(coll, q, algs, sizes):
                before = len(self.store.batches)
                self.batch(coll, q, algs, sorted(sizes), f"gain {gain:.2f}, its cheaper "
                           f"sizes; {at_risk} comparisons at risk")
                self.cost.refit(coll)
                if len(self.store.batches) > before:
                    return True
        return False

    @functools.cached_property
    def focus(self):
        """P and P/2 (where P/2 is no grid size: the design's reference),
        without a profile and with a budget (without one, every size is
        measured to the end anyway)."""
        if self.profile is not None or self.budget == float("inf"):
            return frozenset()
        half = self.t.p // 2
        if not any(half in g.comms for g in self.grids.values()):
            half = self.ref_q
        return frozenset({self.t.p} | ({half} if half else set()))

    def exhaustive(self):
        """The grid: every algorithm at every point."""
        for coll, g in self.grids.items():
            for q in g.comms:
                if not self.try_batch(coll, q, self.algs[coll], g.sizes, "grid"):
                    self.stopped = "budget spent before the grid was complete"
                    self.say(f"{coll} p={q}: no budget left for the grid")
                    return


def size_weight(q, p, power=SIZE_POWER):
    """What an expected gain at q ranks counts without a profile, the
    job's own size p counting 1: (q / p)^power."""
    return (q / p) ** power


@functools.lru_cache(maxsize=4096)
def n_runs(labels):
    """How many runs measure the labels (a frozenset): a grown run is
    priced thousands of times per round."""
    return len(runs(sorted(labels)))


def grid_pairs(grids, algs):
    """(algorithm, point) pairs of the whole grid."""
    return sum(len(g.cells()) * len(algs[c]) for c, g in grids.items())
