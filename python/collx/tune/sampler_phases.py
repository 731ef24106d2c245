"""The sampler's phases between the initial design and the guided rounds
(sampler.py): the budget split between collectives (grids measured
whole), native at every point, a profile's points (probed at their
heaviest size first), and the exhaustive grid of --grid."""
from collx.tune.labels import base_of
from collx.tune.sampler_design import INIT_SHARE

PROBE_FIRST = 1      # algorithms in the first run where their cost at q is unknown
# native's run at a communicator size off the initial design may cost this
# share of the budget, on the design's sizes INIT_SHARE, like the design's
# own runs (its largest sizes left out, predicted from the neighbours):
# native alltoall of 512 B-64 KiB at 64 ranks of cse-2switch-30x8 costs 37
# host seconds, the natives at every size of that grid half of an eighth of
# its cost; at 96 ranks of eth10g-ft-48x12, 256 B-64 KiB, 226 s, two thirds.
NATIVE_SHARE = 0.02


class SamplerPhases:
    """Whole grids, natives, the profile's points, the exhaustive grid.
    Part of Sampler (its attributes: sampler.Sampler.__init__)."""

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

    def largest_first(self, comms_of):
        """(q, coll) over every collective's communicator sizes comms_of(grid)
        in the budget's order (by_priority), collectives in the order asked
        for at each."""
        order = {q: i for i, q in enumerate(self.by_priority(
            {q for g in self.grids.values() for q in comms_of(g)}))}
        plan = sorted((order[q], i, q, c) for i, (c, g) in enumerate(self.grids.items())
                      for q in comms_of(g))
        return [(q, c) for _, _, q, c in plan]

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

    def exhaustive(self):
        """The grid: every algorithm at every point."""
        for coll, g in self.grids.items():
            for q in g.comms:
                if not self.try_batch(coll, q, self.algs[coll], g.sizes, "grid"):
                    self.stopped = "budget spent before the grid was complete"
                    self.say(f"{coll} p={q}: no budget left for the grid")
                    return
