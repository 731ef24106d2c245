"""The sampler's initial design (sampler.py): every algorithm as it is at
a few communicator sizes per layout and a few message sizes, small ones
first; above P/2 only the algorithms within SCREEN of the best at the
reference size (screening)."""
import functools
import math

from collx.tune import grid as gridmod
from collx.tune.labels import base_of, runs

INIT_COMMS = 3       # without nodes: the smallest and middle of 3 spread ones
INIT_SIZES = 4       # sizes at each
FOCUS_SIZES = 7     # sizes at P and P/2: a measurement every other doubling
INIT_SHARE = 0.05    # of the budget one initial run may cost (predicted)
# Above P/2 (the dearest sizes to simulate) an algorithm is measured at a
# message size only if at P/2 (the reference, measured first) it was within
# SCREEN of the best there, the way ACCLAiM and FACT carry what smaller
# allocations taught to larger ones. On the five exhaustive grids of the
# development platforms (P = 32-72), screening each of P's sizes by P/2's
# times with a factor 2 measured 18-50 % of P's host time and lost no
# winner at P (with 1.3 or 1.5: up to 1.43 times the best lost, ib-qdr-36x16's
# bcast at 512 KiB); rma_linear bcast, the dearest, is screened out on all.
SCREEN = 2.0


def spaced(values, k):
    """k values spread evenly over the list (first and last included)."""
    if len(values) <= k:
        return list(values)
    return sorted({values[round(i * (len(values) - 1) / (k - 1))] for i in range(k)})


class SamplerDesign:
    """The initial design and its screening. Part of Sampler (its
    attributes: sampler.Sampler.__init__)."""

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
