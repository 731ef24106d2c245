"""The decider's uncertainty (decide.py): how sure the difference of two
algorithms' times at a point is, from their measurements or from the
models' leave-one-out errors nearby, grown with the distance to the
nearest measurement; IGNORANT where nothing around says."""
import math

import numpy as np

from collx.tune.decide_estimate import MIN_POINTS
from collx.tune.labels import base_of

IGNORANT = 1.0    # sigma of a ln-difference with too few points (a factor e)
MIN_SIGMA = 0.01
# A prediction's uncertainty is at least this per grid step (a doubling of q
# or m) to the nearest point its algorithm was measured at: the models'
# errors between measured neighbours (leave-one-out) know nothing of a step
# no point was measured across (rma_binomial bcast on cse-2switch-30x8 at 18
# ranks and 16 KiB, predicted 1.2 times faster than native from 4-8 KiB with
# a sigma of 0.07, was 1.3 times slower; with 0.1 per step, gige-18x8's at 18
# ranks and 16 KiB, 1.2 times slower, still passed). On the four SMPI grids
# an algorithm's ln(T / T native) moves by 0.19-0.25 (RMS) per doubling of m
STEP_SIGMA = 0.2
# ... and a doubling of q counts as Q_STEPS doublings of m: how far the
# nearest measurement lies is a step in the node count too (replayed at an
# eighth of a 64-rank grid of cse-2switch-30x8, hier_ms reduce_scatter_block
# at 48 ranks, 6 nodes, predicted from 32 and 64 faster than native, ran
# 2.06 times native's time; with 3, no point of six grids' replays was
# slower than native by more than 2 %).
Q_STEPS = 3.0


class DeciderSigma:
    """Uncertainties of estimates and of their differences. Part of
    Decider (its attributes: decide.Decider.__init__)."""

    def diff_sigma(self, coll, a, ea, c, ec, q, m):
        """Uncertainty of ln T_a - ln T_c at (q, m) (see the docstring)."""
        noise = math.hypot(ea.sigma or 0.0, ec.sigma or 0.0)
        if ea.measured and ec.measured:
            return max(noise, MIN_SIGMA)
        if ea.via or ec.via:   # their algorithms compared, and the offsets
            a0, e0, sa = ea.via or (a, ea, 0.0)
            c0, f0, sc = ec.via or (c, ec, 0.0)
            core = max(e0.sigma or 0.0, MIN_SIGMA) if a0 == c0 else \
                self.diff_sigma(coll, a0, e0, c0, f0, q, m)
            return math.hypot(core, sa, sc)
        key = (coll, a, c, q, m)
        if key not in self.sigmas:
            self.sigmas[key] = self.local_sigma(coll, (a, c), (not ea.measured, not ec.measured),
                                                q, m, noise)
        return self.sigmas[key]

    def self_sigma(self, coll, a, e, q, m):
        """Uncertainty of ln T_a at (q, m): of its measurement, or of its
        prediction (its own leave-one-out errors nearby)."""
        if e.measured:
            return max(e.sigma, MIN_SIGMA)
        if e.via:
            base, b, s = e.via
            return math.hypot(self.self_sigma(coll, base, b, q, m), s)
        key = (coll, a, None, q, m)
        if key not in self.sigmas:
            self.sigmas[key] = self.local_sigma(coll, (a,), (True,), q, m, 0.0)
        return self.sigmas[key]

    def known(self, coll, a, e, b, eb, q, m):
        """The difference of a and b has a known uncertainty."""
        return (e.measured and eb.measured) or \
            self.diff_sigma(coll, a, e, b, eb, q, m) < IGNORANT

    def local_sigma(self, coll, algs, predicted, q, m, noise):
        """RMS near (q, m) of the leave-one-out errors of the predicted
        ones of algs (signs: first minus the others), at the points where
        all of algs were measured, in q's domain; grown with the distance
        to the nearest such point; IGNORANT outside their range. An
        algorithm predicted at a communicator size it was not measured at
        counts its errors with its communicator size left out
        (model.AlgModel.loqo): the points of one size predict each other
        better than a size predicts another."""
        dom = self.domain(coll, q)
        predicted = tuple(("size" if q not in self.at_q.get((coll, a), ()) else "point")
                          if p else None for a, p in zip(algs, predicted))
        key = (coll, algs, predicted, dom)
        if key not in self.spreads:   # the grid's cells at once: a round asks them all
            if (coll, dom) not in self.cells_of:
                self.cells_of[(coll, dom)] = [
                    c for c in (self.grids[coll].cells() if coll in self.grids else [])
                    if self.domain(coll, c[0]) == dom]
            cells = self.cells_of[(coll, dom)]
            self.spreads[key] = dict(zip(cells, self.spread(coll, algs, predicted, dom, cells)))
        table = self.spreads[key]
        v = table[(q, m)] if (q, m) in table else \
            self.spread(coll, algs, predicted, dom, [(q, m)])[0]
        if v is None:
            return IGNORANT
        far = math.hypot(*[self.distance(coll, a, q, m) for a, p in zip(algs, predicted) if p])
        return min(max(math.hypot(v, noise), STEP_SIGMA * far, MIN_SIGMA), IGNORANT)

    def distance(self, coll, a, q, m):
        """How far (q, m) lies from the nearest point of its layout where a
        (a variant: or its algorithm) was measured, in the model's grid
        steps (doublings of q and of m)."""
        key = (coll, a, self.domain(coll, q))
        if key not in self.reach:
            base = base_of(a, self.algs[coll])
            pts = [p for lab in ((a, base) if base else (a,))
                   for p in self.store.measured_points(coll, lab)
                   if self.domain(coll, p[0]) == key[2]]
            self.reach[key] = np.array([(Q_STEPS * math.log2(qq), math.log2(mm))
                                        for qq, mm in pts]) if pts else None
        x = self.reach[key]
        if x is None:
            return float("inf")
        return float(np.sqrt(((x - (Q_STEPS * math.log2(q), math.log2(m))) ** 2)
                             .sum(axis=1).min()))

    def spread(self, coll, algs, predicted, dom, cells):
        """local_sigma without the noise at cells of domain dom (None:
        outside what algs were measured around, no prediction)."""
        sup = self.support(coll, algs, dom)
        if sup is None or not cells:
            return [None] * len(cells)
        x, errs, spacing, lo, hi = sup
        err = np.zeros(len(x))
        for i, ((loo, loqo), pred) in enumerate(zip(errs, predicted)):
            if pred:
                e = loqo if pred == "size" else loo
                err = err + e if i == 0 else err - e
        c = np.array([(math.log2(q), math.log2(m)) for q, m in cells])
        d2 = ((c[:, None, :] - x[None, :, :]) ** 2).sum(axis=-1)
        w = 1.0 / (1.0 + d2)
        local = np.sqrt((w * np.square(err)).sum(axis=1) / w.sum(axis=1))
        # the errors are those of predictions one neighbour away: grow with
        # the distance to the nearest point they were measured at
        grow = np.maximum(np.sqrt(np.maximum(np.sqrt(d2.min(axis=1)), 0.5) / spacing), 0.5)
        inside = (c[:, 0] >= lo[0]) & (c[:, 0] <= hi[0]) & (c[:, 1] >= lo[1]) & (c[:, 1] <= hi[1])
        return [float(v) if ok else None for v, ok in zip(local * grow, inside)]

    def support(self, coll, algs, dom):
        """(the points of domain dom where all of algs were measured, as
        log2 q and log2 m; each one's leave-one-out errors there and its
        leave-one-communicator-size-out errors (model.AlgModel.loqo); the mean
        distance to the nearest other such point; their lower and upper
        corners), or None with too few. Cached until the next refit."""
        key = (coll, algs, dom)
        if key not in self.pairs:
            loos = [self.models[(coll, a)].loo for a in algs]
            common = [p for p in loos[0] if self.domain(coll, p[0]) == dom and
                      all(p in lo for lo in loos[1:])]
            if len(common) < MIN_POINTS:
                self.pairs[key] = None
            else:
                x = np.array([(math.log2(p[0]), math.log2(p[1])) for p in common])
                nn = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(axis=-1))
                np.fill_diagonal(nn, np.inf)
                spacing = max(float(nn.min(axis=1).mean()), 0.5)
                self.pairs[key] = (x, [(np.array([lo[p] for p in common]),
                                        np.array([self.models[(coll, a)].loqo[p]
                                                  for p in common]))
                                       for a, lo in zip(algs, loos)],
                                   spacing, tuple(x.min(axis=0)), tuple(x.max(axis=0)))
        return self.pairs[key]
