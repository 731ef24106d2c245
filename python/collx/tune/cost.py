"""What measuring costs, predicted from what it has cost so far.

A case (one algorithm at one size, one sample) costs what collbench's
host_s says (SMPI: the simulation's CPU seconds; store.case_cost), and its
prediction elsewhere comes from the same kind of model as the times
(model.AlgModel on the case costs of that algorithm, inside one node and
across nodes apart: simulating shared links costs up to 200 times more),
growing as q^3 beyond the largest q measured (GROWTH): simulating
rma_linear costs a hundred times what native does, and the sampler must
know. A run
costs its cases plus a launch overhead (start-up, privatization,
communicator setup: the run's cost minus its cases'), a + b q fitted over
the runs so far."""
import math

import numpy as np

from collx.tune import grid as gridmod
from collx.tune.labels import base_of, runs
from collx.tune.model import AlgModel

DEFAULT_CASE = 0.01     # seconds, before anything is known
DEFAULT_LAUNCH = 0.2
# Beyond the largest q measured a case's cost grows as q^GROWTH: the host
# time of rma_linear bcast at 1 MiB across nodes grew 9.4 times from 24 to
# 48 ranks (ib-qdr-36x16's grid); with q^2 its first run at 32 ranks,
# extrapolated from 20, cost twice its prediction (11.8 s of a 120 s budget).
# Once an algorithm was measured at two communicator sizes of a domain, its
# own growth between the largest two (at least MIN_GROWTH): allreduce's
# cases at gige-18x8 (nine-node grid) cost q^1.1 more from 48 to 72 ranks,
# not q^3
GROWTH = 3
MIN_GROWTH = 1


class CostModel:
    def __init__(self, store, algs, reps, node=None, launches=1):
        self.store, self.algs, self.reps, self.node = store, algs, reps, node
        self.launches = launches   # launches per run: a real MPI's samples each have one
        self.models, self.cache, self.launch = {}, {}, (DEFAULT_LAUNCH, 0.0)
        self.growth = {}   # (coll, a, dom) -> exponent beyond the largest q measured
        self.at_q = {}     # (coll, a, q) -> the mean case cost of each size measured there

    def domain(self, coll, q):
        """1 across nodes (a shaped key's nodes are its own: grid.node_of)."""
        node = gridmod.node_of(coll, self.node)
        return int(node is not None and q > node)

    def refit(self, coll):
        self.cache = {k: v for k, v in self.cache.items() if k[0] != coll}
        self.at_q = {k: v for k, v in self.at_q.items() if k[0] != coll}
        pts = {}
        for (c, a, q, m), xs in self.store.host.items():
            if c == coll and xs:
                cost = max(sum(xs) / len(xs), 1e-5)
                pts.setdefault((a, self.domain(coll, q)), []).append((q, m, cost))
                self.at_q.setdefault((coll, a, q), []).append(cost)
        for a in self.algs[coll]:
            for dom in (0, 1):
                self.models[(coll, a, dom)] = AlgModel(sorted(pts.get((a, dom), [])))
                self.growth[(coll, a, dom)] = growth(pts.get((a, dom), []))
        over = []
        for b in self.store.batches:
            if b.get("case_cost") is not None:
                over.append((b["q"], max(b["cost"] - b["case_cost"], 0.0)))
        if len(over) >= 2 and len({q for q, _ in over}) >= 2:
            qs, ys = np.array([q for q, _ in over], float), np.array([y for _, y in over])
            b_, a_ = np.polyfit(qs, ys, 1)
            self.launch = (max(float(a_), 0.0), max(float(b_), 0.0))
        elif over:
            self.launch = (sum(y for _, y in over) / len(over), 0.0)

    def fill(self, coll, cells):
        """Predicts every algorithm's case cost at these points at once."""
        for a in self.algs[coll]:
            for dom in (0, 1):
                model = self.models.get((coll, a, dom))
                todo = [(q, m) for q, m in cells if self.domain(coll, q) == dom and
                        (coll, a, q, m) not in self.store.host]
                if model is None or model.n < 3 or not todo:
                    continue
                top = max(qq for qq, _ in model.points)
                pred = model.predict([(min(q, top), m) for q, m in todo])
                g = self.growth[(coll, a, dom)]
                for (q, m), ln in zip(todo, pred):
                    self.cache[(coll, a, q, m)] = math.exp(float(ln)) * max(q / top, 1) ** g

    def case(self, coll, a, q, m):
        """Predicted cost of one case of a at (q, m)."""
        key = (coll, a, q, m)
        if key in self.cache:
            return self.cache[key]
        xs = self.store.host.get(key)
        model = self.models.get((coll, a, self.domain(coll, q)))
        if xs:
            got = sum(xs) / len(xs)
        elif model is not None and model.n >= 3:
            # beyond the largest q measured: grow as q^growth (messages of a
            # ring or pairwise exchange, and sharing links costs the solver more)
            top = max(qq for qq, _ in model.points)
            got = math.exp(float(model.predict([(min(q, top), m)])[0])) * \
                max(q / top, 1) ** self.growth[(coll, a, self.domain(coll, q))]
        elif (own := self.at_q.get((coll, a, q))):
            got = sum(own) / len(own)   # measured at q at other sizes: their mean
        elif (base := base_of(a, self.algs[coll])):   # a variant not measured there:
            got = self.case(coll, base, q, m)            # as its algorithm
        else:   # nothing on this algorithm there yet: the others' mean (of
            # collx's own where one is known: SMPI simulates its own
            # collectives far cheaper than collx's schedules), or a guess
            known = [b for b in self.algs[coll] if b != a and (
                (self.models.get((coll, b, self.domain(coll, q))) is not None
                 and self.models[(coll, b, self.domain(coll, q))].n >= 3)
                or (coll, b, q) in self.at_q)]
            known = [b for b in known if b != "native"] or known
            others = [self.case(coll, b, q, m) for b in known]
            got = sum(others) / len(others) if others else DEFAULT_CASE
        self.cache[key] = got
        return got

    def overhead(self, q):
        return self.launch[0] + self.launch[1] * q

    def batch(self, coll, q, algs, sizes):
        """Predicted cost of measuring algs x sizes, reps samples each: the
        cases and a launch per run (labels.runs; on a real MPI one per
        sample)."""
        return self.overhead(q) * len(runs(algs)) * self.launches + \
            self.reps * sum(self.case(coll, a, q, m) for a in algs for m in sizes)


def growth(points):
    """How a case's cost grows with q beyond the largest q measured: the
    median over the sizes measured at the largest two q of
    log(cost ratio) / log(q ratio), within [MIN_GROWTH, GROWTH]; GROWTH
    before two q were measured."""
    by_q = {}
    for q, m, c in points:
        by_q.setdefault(q, {})[m] = c
    if len(by_q) < 2:
        return GROWTH
    q1, q2 = sorted(by_q)[-2:]
    both = sorted(set(by_q[q1]) & set(by_q[q2]))
    if not both:
        return GROWTH
    ex = sorted(math.log(by_q[q2][m] / by_q[q1][m]) / math.log(q2 / q1) for m in both)
    return min(max(ex[len(ex) // 2], MIN_GROWTH), GROWTH)
