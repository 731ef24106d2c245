"""The sampler's guided rounds (sampler.py): per collective and
communicator size the run with the most expected gain per predicted
second (grown greedily), the best of them next, until no comparison is
at risk or the budget can pay for none (then a smaller run)."""
import functools

from collx.tune import decide
from collx.tune.labels import PARAM_SEP, runs

GROUP_SIZES = 8      # sizes per guided run at most
DILUTE = 0.7         # a run grows while it keeps this share of its gain per second


class SamplerGuided:
    """The guided rounds. Part of Sampler (its attributes:
    sampler.Sampler.__init__)."""

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


@functools.lru_cache(maxsize=4096)
def n_runs(labels):
    """How many runs measure the labels (a frozenset): a grown run is
    priced thousands of times per round."""
    return len(runs(sorted(labels)))
