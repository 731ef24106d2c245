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

Initial design: the algorithms as they are (their variants are predicted
from them, decide.py); then, after the budget split (whole), native at
every grid point (natives).

Guided rounds: at every grid point, the choice and, for each algorithm
whose comparison with the choice is not measured, the probability p that
it is faster by more than 3 % and the expected gain (decide.comparisons).
Items (algorithm, size) with p > 5 % are candidates. Per communicator size,
a run is grown greedily from its best item by the size or algorithm that
adds the most expected gain per predicted host second (cost.py), as long as
that keeps at least 70 % of the run's gain per second; native and the
points' choices are always in it. The run with the most gain per second
over all collectives and communicator sizes that the budget can pay for
goes next. Sampling ends when no candidate is left or the budget can pay
for none.

Budget: a run starts only if the cost spent plus its predicted cost stays
within the budget; spent = the runs' cost (host CPU seconds in SMPI, wall
seconds on a real MPI) plus, in SMPI, the tuner's own CPU seconds."""
import functools
import resource
import sys
import time

from collx.tune import decide
from collx.tune import grid as gridmod
from collx.tune.cost import CostModel
from collx.tune.labels import base_of, interleaved, runs
from collx.tune.store import case_cost, grows

MAX_LIST = 32        # collbench's --algs and -m lists
INIT_COMMS = 3       # without nodes: the smallest and middle of 3 spread ones
INIT_SIZES = 4       # sizes at each
INIT_SHARE = 0.05    # of the budget one initial run may cost (predicted)
GROUP_SIZES = 8      # sizes per guided run at most
DILUTE = 0.7         # a run grows while it keeps this share of its gain per second


def spaced(values, k):
    """k values spread evenly over the list (first and last included)."""
    if len(values) <= k:
        return list(values)
    return sorted({values[round(i * (len(values) - 1) / (k - 1))] for i in range(k)})


class Sampler:
    def __init__(self, target, grids, algs, store, decider, opts, stream=sys.stderr):
        self.t, self.grids, self.algs = target, grids, algs
        self.store, self.dec, self.o = store, decider, opts
        self.cost = CostModel(store, algs, opts.reps, target.node,
                              launches=opts.reps if target.launches_vary else 1)
        self.stream, self.t0 = stream, time.time()
        self.budget = opts.budget if opts.budget else float("inf")
        self.stopped = ""   # why sampling stopped early ("" = it did not)
        self.cpu0 = self.self_cpu()
        self.prior = store.cost()   # measurements loaded (--from)
        self.dirty = set(grids)     # collectives measured since their last fit
        self.plans = {}             # coll -> its candidate runs

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
            return time.time() - self.t0 + self.prior
        return self.store.cost() + self.own_cpu()

    def budget_text(self):
        if self.budget == float("inf"):
            return f"spent {self.spent():.0f} s ({self.t.clock})"
        left = max(self.budget - self.spent(), 0)
        return f"spent {self.spent():.0f}/{self.budget:.0f} s, {left:.0f} s left"

    def fits(self, coll, q, algs, sizes):
        return self.spent() + self.cost.batch(coll, q, algs, sizes) <= self.budget

    # ------------------------------------------------------------ one run
    def batch(self, coll, q, algs, sizes, why):
        """Measures algs x sizes at q (reps samples each); what is left
        after a failure runs again, as far as the budget allows. On a real
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
        first = True
        while queue:
            a, m, w, want = queue.pop(0)
            a, m = self.todo(coll, q, a, m, want)
            if not a or not m:
                continue
            if not first and not self.fits(coll, q, a, m):
                self.say(f"{coll} p={q}: no budget left for the rest ({len(a)} algs x "
                         f"{len(m)} sizes)")
                continue
            first = False
            queue[:0] = [x + (want,) for x in self.run_one(coll, q, a, m, w, per,
                                                              turn=want - per)]

    def run_one(self, coll, q, algs, sizes, why, reps, turn=0):
        """One collbench run; returns what is left to run ([] if it went
        through). If it fails, the cases it finished count, the case it was
        in is recorded as failed, and the rest is left: the other
        algorithms from that size on, that algorithm at larger sizes.
        The algorithms' order alternates (labels.interleaved; by turn
        between the launches of a real MPI)."""
        labels = interleaved(algs, reps, turn)
        args = ["--coll", coll, "--algs", ",".join(labels),
                "-m", ",".join(str(m) for m in sizes),   # one size: MIN=MAX
                "-i", str(self.o.iters), "-x", str(self.o.warmup), "--host-time"]
        rows, out = self.t.run_collbench(q, args, timeout=self.o.timeout,
                                         mem_limit=self.o.mem_limit)
        rec = {"coll": coll, "q": q, "algs": algs, "sizes": sizes, "reps": reps,
               "cases": len(rows), "cost": self.t.cost(out), "cpu_s": out.cpu,
               "wall_s": out.wall, "peak_mb": out.peak >> 20, "why": why, "ok": out.ok,
               "case_cost": sum(case_cost(r) for r in rows)}
        self.store.batches.append(rec)
        self.dirty.add(coll)
        self.store.add_rows(coll, q, rows, rec)
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
        if len(rows) >= len(order):
            self.say(f"{coll} p={q}: every case done, then the run failed ({out.why()}); "
                     f"kept")
            return []
        m, a = order[len(rows)]
        self.store.fail(coll, a, q, m, out.why())
        self.say(f"{coll} p={q}: run failed after {rec['cost']:.1f} s and {len(rows)} of "
                 f"{len(order)} cases: {a} at {m} B cannot be measured ({out.why()}); "
                 f"skipped" + (", and at larger sizes and communicators" if grows(out.why())
                               else "") + f"; {self.budget_text()}")
        return [([x for x in algs if x != a], [x for x in sizes if x >= m], why + ", rest"),
                ([a], [x for x in sizes if x > m], why + ", rest")]

    def todo(self, coll, q, algs, sizes, want=1):
        """The algorithms and sizes with a point that has fewer than want
        samples and is not known to fail."""
        algs = [a for a in algs if any(self.unknown(coll, a, q, m, want) for m in sizes)]
        sizes = [m for m in sizes if any(self.unknown(coll, a, q, m, want) for a in algs)]
        return algs, sizes

    def unknown(self, coll, a, q, m, want=1):
        return len(self.store.samples.get((coll, a, q, m), ())) < want and \
            not self.store.cannot(coll, a, q, m)

    def try_batch(self, coll, q, algs, sizes, why):
        """Runs it if the budget allows; False if it did not."""
        algs, sizes = self.todo(coll, q, algs, sizes)
        if not algs or not sizes:
            return True
        if not self.fits(coll, q, algs, sizes):
            return False
        self.batch(coll, q, algs, sizes, why)
        self.cost.refit(coll)
        return True

    # ------------------------------------------------------------ strategies
    def initial(self):
        """Every algorithm (as it is: its variants are predicted from it,
        decide.py) at a few points per collective: INIT_SIZES sizes
        spread over the range at the communicator sizes of init_comms;
        smallest communicator sizes first, so that every collective gets
        some when the budget is small."""
        for q, coll in self.smallest_first(self.init_comms):
            plain = [a for a in self.algs[coll] if base_of(a, self.algs[coll]) is None]
            for group in runs(plain):
                sizes = self.init_sizes(coll, q, group)
                if not self.try_batch(coll, q, group, sizes, "initial"):
                    self.stopped = "budget spent in the initial design"
                    self.say(f"{coll} p={q}: no budget left for the initial design")
                    return False
        return True

    def smallest_first(self, comms_of):
        """(q, coll) over every collective's communicator sizes comms_of(grid),
        smallest q first, collectives in the order asked for."""
        plan = sorted((q, i, c) for i, (c, g) in enumerate(self.grids.items())
                      for q in comms_of(g))
        return [(q, c) for q, _, c in plan]

    def init_sizes(self, coll, q, algs):
        """INIT_SIZES sizes spread over the range, the largest left out
        while the run is predicted to cost more than INIT_SHARE of the
        budget: the initial design must not spend the budget on the
        algorithms that are costly to simulate (rma_linear bcast at 32
        ranks and 1 MiB: 12 of a 66 s budget on ib-qdr-36x16)."""
        sizes = spaced(self.grids[coll].sizes, INIT_SIZES)
        while len(sizes) > 1 and \
                self.cost.batch(coll, q, algs, sizes) > INIT_SHARE * self.budget:
            sizes = sizes[:-1]
        return sizes

    def init_comms(self, g):
        """The smallest communicator size and, with nodes, the largest
        inside one node, the smallest of whole nodes across nodes and the
        smallest that ends in a part of a node (each layout is another
        machine to the models: grid.layout); without nodes, the middle one
        (in log scale). The largest sizes cost the most to simulate: the
        guided rounds go there where it pays."""
        k = self.t.node
        if k is None or k >= g.comms[-1]:
            return spaced(g.comms, INIT_COMMS)[:2]
        first = {}
        for q in g.comms:   # ascending: the smallest of each layout
            first.setdefault(gridmod.layout(q, k), q)
        inside = [q for q in g.comms if q <= k]
        return sorted({g.comms[0], inside[-1] if inside else g.comms[0]} |
                      {q for kind, q in first.items() if kind})

    def rest_runs(self, coll):
        """(q, algs, sizes) of one run per communicator size, smallest
        first, of what coll's grid has not measured yet."""
        g = self.grids[coll]
        for q in g.comms:
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
        for q, algs, sizes in self.rest_runs(coll):
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
        another, smallest first, while each run still fits that share (a
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
        """native at every grid point, one run per collective and
        communicator size, smallest first: the rules' reference, and the
        times a model cannot guess (SMPI's own allreduce at gige-18x8 is
        the fastest at 48 ranks and 32 KiB, 5.6 times the best at 72
        ranks: predicted from 48, the rules kept it there). Cheap: 0.4-2 %
        of the grids' host time (SMPI's native is simulated fast)."""
        for q, coll in self.smallest_first(lambda g: g.comms):
            if not self.try_batch(coll, q, ["native"], self.grids[coll].sizes, "native"):
                self.say(f"{coll} p={q}: no budget left for native's run")

    def refresh(self, coll):
        """The candidate runs of coll: one per communicator size with
        candidates, as (gain per second, gain, cost, q, algs, sizes,
        points at risk)."""
        g = self.grids[coll]
        self.dec.refit(coll)
        self.cost.refit(coll)
        self.cost.fill(coll, g.cells())
        choice = self.dec.choices(coll, g)
        plans = []
        for q in g.comms:
            items = {}   # m -> {a: ei}
            for m in g.sizes:
                for a, p, ei in self.dec.comparisons(coll, q, m, choice[(q, m)]):
                    if p > decide.RISK:
                        items.setdefault(m, {})[a] = ei
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
        expected gain per second, until none is left or the budget is out."""
        while True:
            for coll in list(self.dirty):
                self.refresh(coll)
                self.dirty.discard(coll)
            plans = sorted(((p, coll) for coll in self.grids for p in self.plans[coll]),
                           key=lambda x: -x[0][0])
            if not plans:
                self.say(f"no point at risk: sampling done; {self.budget_text()}")
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
                self.stopped = "budget spent"
                self.say(f"budget spent: {at_risk} comparisons still at risk; "
                         f"{self.budget_text()}")
                return

    def exhaustive(self):
        """The grid: every algorithm at every point."""
        for coll, g in self.grids.items():
            for q in g.comms:
                if not self.try_batch(coll, q, self.algs[coll], g.sizes, "grid"):
                    self.stopped = "budget spent before the grid was complete"
                    self.say(f"{coll} p={q}: no budget left for the grid")
                    return


@functools.lru_cache(maxsize=4096)
def n_runs(labels):
    """How many runs measure the labels (a frozenset): a grown run is
    priced thousands of times per round."""
    return len(runs(sorted(labels)))


def grid_pairs(grids, algs):
    """(algorithm, point) pairs of the whole grid."""
    return sum(len(g.cells()) * len(algs[c]) for c, g in grids.items())
