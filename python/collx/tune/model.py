"""Cost model of one algorithm of one collective, fitted to its measured
points (q ranks, m bytes per rank, time T):

    T(q, m) = a + b log2 q + c q + m (d + e log2 q + f q)

latency terms (one message, a tree of log2 q rounds, q - 1 steps of a
linear or ring algorithm) and the same per byte, plus, where the
communicator spans nodes, terms of its own (g + h q + m (i + j q): the
network's latency and bandwidth on top of a node's), every coefficient
>= 0 (non-negative least squares on relative error: times span decades).
Across nodes an algorithm can take 7-40 times its time inside one
(SMPI ib-qdr-36x16 allgather at 1 MiB: Bruck 3160 us at 12 ranks, 4211
at 16, one node, 29606 at 20): without terms of their own those times
pulled a node's predictions up (Bruck at 16 ranks: 6930 us), and a
separate fit per layout lost the shape in q a node shares with the nodes
where a node was measured at two sizes only (linear bcast at 8 ranks 1.45
times too slow on fattree-256x16).

Between measured points the fit is corrected by the residuals ln(T / fit)
of the measured points nearby, weighted 1/d^2 (d in grid steps: doublings
of q and of m, and APART more between layouts: one node, whole nodes,
whole nodes and a part of one) against a prior weight 1/RADIUS^2 for no
correction, so a measured point is reproduced and a far one falls back to
the fit.

How good the predictor is: at each measured point, the error it makes
when that point is left out of the correction (its leave-one-out error),
and when every point of its communicator size is (leave one communicator
size out: what a prediction at a communicator size the algorithm was not
measured at risks). The decider compares two algorithms by these errors
at the points both were measured (decide.py)."""
import math

import numpy as np

RADIUS = 2.0      # grid steps at which a residual's weight equals the prior's
APART = 2.0       # grid steps between two layouts (one node, whole nodes, a
                  # part of one past them): a step of its own, half trusted
SPREAD = 0.25     # a variant's ln(T / T of its algorithm) before any is measured
                  # (the largest seen: ln 1.45, pipeline_chain's segments)
SHRINK = 2.0      # pairs' worth of weight of that prior


def features(lq, lm, cross=None):
    """Columns of the fit at log2 q, log2 m (arrays); cross: 1 where the
    communicator spans nodes, whose own latency and bandwidth terms add to
    the ones shared with a node's inside."""
    q, m = np.exp2(lq), np.exp2(lm)
    c = np.zeros_like(lq) if cross is None else cross
    return np.stack([np.ones_like(lq), lq, q, m, m * lq, m * q, c, c * q, c * m, c * m * q],
                    axis=-1)


def nnls(a, b, iters=100):
    """min |a x - b| subject to x >= 0 (Lawson and Hanson's active set)."""
    n = a.shape[1]
    x, passive = np.zeros(n), np.zeros(n, bool)
    w = a.T @ (b - a @ x)
    for _ in range(iters):
        free = ~passive & (w > 1e-12)
        if not free.any():
            break
        passive[np.argmax(np.where(free, w, -np.inf))] = True
        while True:
            z = np.zeros(n)
            z[passive] = np.linalg.lstsq(a[:, passive], b, rcond=None)[0]
            if (z[passive] > 0).all():
                break
            neg = passive & (z <= 0)
            alpha = np.min(x[neg] / np.maximum(x[neg] - z[neg], 1e-300))
            x = x + alpha * (z - x)
            passive &= x > 1e-12
            x[~passive] = 0
        x = z
        w = a.T @ (b - a @ x)
    return x


def fit(lq, lm, t, cross=None):
    """Coefficients for times t at (log2 q, log2 m): relative least squares, >= 0."""
    a = features(lq, lm, cross) / t[:, None]
    scale = np.abs(a).max(axis=0)
    scale[scale == 0] = 1
    return nnls(a / scale, np.ones(len(t))) / scale


def coords(cells, layout):
    """log2 q, log2 m and the layout's steps (distances only, not fitted):
    across nodes, and ending in a part of a node (grid.layout's 0, 1, 2)."""
    return np.array([(math.log2(q), math.log2(m), APART if layout(q) >= 1 else 0.0,
                      APART if layout(q) == 2 else 0.0) for q, m in cells])


def weights(xa, xb):
    """1/d^2 between point sets (d = 0: an exact hit, a huge weight)."""
    d2 = ((xa[:, None, :] - xb[None, :, :]) ** 2).sum(axis=-1)
    return 1.0 / np.maximum(d2, 1e-12)


class AlgModel:
    def __init__(self, points, layout=None):
        """points: [(q, m, T)], T > 0, distinct (q, m); layout(q): 0 inside
        one node, 1 whole nodes, 2 whole nodes and a part of one
        (grid.layout; residuals of different layouts correct each other
        less: they lie APART steps further away)."""
        self.points = [(q, m) for q, m, _ in points]
        self.n = len(points)
        self.layout = layout or (lambda q: 0)
        if not self.n:
            return
        self.x = self.coords(self.points)
        t = np.array([t for _, _, t in points], float)
        self.coef = fit(self.x[:, 0], self.x[:, 1], t, self.cross(self.x))
        self.resid = np.log(t) - np.log(self.raw(self.x))
        # leave-one-out: each residual predicted from the others
        w = weights(self.x, self.x)
        np.fill_diagonal(w, 0.0)
        guess = (w @ self.resid) / (w.sum(axis=1) + 1.0 / RADIUS ** 2)
        self.loo = dict(zip(self.points, self.resid - guess))
        # leave one communicator size out: each residual predicted from the
        # points of the other communicator sizes only, the error of a
        # prediction at a communicator size where the algorithm has not
        # been measured (decide.py: the points along m at one q predict
        # each other well, and their errors alone said 0.10 where rma_binomial
        # bcast at 18 ranks, predicted from 10 and 14, was 1.6 times off)
        w[self.x[:, None, 0] == self.x[None, :, 0]] = 0.0
        guess = (w @ self.resid) / (w.sum(axis=1) + 1.0 / RADIUS ** 2)
        self.loqo = dict(zip(self.points, self.resid - guess))

    def coords(self, cells):
        return coords(cells, self.layout)

    @staticmethod
    def cross(x):
        return (x[:, 2] > 0).astype(float)

    def raw(self, x):
        return np.maximum(features(x[:, 0], x[:, 1], self.cross(x)) @ self.coef, 1e-3)

    def predict(self, cells):
        """ln T at [(q, m)] (None without points)."""
        if not self.n:
            return None
        x = self.coords(cells)
        w = weights(x, self.x)
        corr = (w @ self.resid) / (w.sum(axis=1) + 1.0 / RADIUS ** 2)
        return np.log(self.raw(x)) + corr


class Offset:
    """ln(T_variant / T_algorithm) of an algorithm's variant (knobs set,
    labels.label_of), from the points where both were measured: a
    variant is predicted as its algorithm plus this offset, so it is
    measured where its algorithm is a contender, not wherever an own model
    of a few points leaves it unknown (gige-18x8, 72 ranks: 23 bcast labels
    of 9 algorithms; a variant was the fastest at 21 of 48 grid points, by
    at most 1.45 times).

    Between measured points: their offsets weighted 1/d^2 against a prior
    weight 1/RADIUS^2 for the variant's mean offset; the uncertainty is
    the variant's spread around that mean, shrunk by the same weights.
    The mean and the spread start at 0 and SPREAD and move to the measured
    ones as pairs come in (SHRINK pairs' worth of prior), so a knob that
    changes nothing stops being measured."""

    def __init__(self, pairs, layout=None):
        """pairs: [(q, m, ln T_variant - ln T_algorithm)]."""
        self.n = len(pairs)
        self.layout = layout or (lambda q: 0)
        r = np.array([d for _, _, d in pairs], float)
        self.mean = float(r.sum() / (self.n + SHRINK))
        self.spread = math.sqrt((float(np.square(r - self.mean).sum()) + SHRINK * SPREAD ** 2) /
                                (self.n + SHRINK))
        self.r = r - self.mean
        self.x = coords([(q, m) for q, m, _ in pairs], self.layout) if self.n else None

    def predict(self, cells):
        """(ln offsets, their sigmas) at [(q, m)]."""
        if not self.n:
            return np.full(len(cells), self.mean), np.full(len(cells), self.spread)
        prior = 1.0 / RADIUS ** 2
        w = weights(coords(cells, self.layout), self.x)
        total = w.sum(axis=1) + prior
        return self.mean + (w @ self.r) / total, self.spread * np.sqrt(prior / total)
