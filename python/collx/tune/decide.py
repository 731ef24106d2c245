"""What to run at a grid point, and how sure that is.

An algorithm's time at a point (q, m) is measured (the mean of its
samples, with their 95 % confidence interval) or predicted (model.py).
Two algorithms are compared by the difference of their ln T; its
uncertainty is

  * both measured: their confidence intervals;
  * otherwise: how wrong the predicted difference was at the measured
    points nearby where both were measured (the difference of their
    leave-one-out errors, weighted 1/(1 + d^2)), grown with the distance
    to the nearest such point. Errors the two share (a step of the
    platform that both cross) cancel: near-identical algorithms are not
    measured just because the model misses that step. Only interpolation
    counts: outside the range of q and m where both were measured, or with
    points only of another layout (inside one node, whole nodes, ending in
    a part of a node: grid.layout), the difference is unknown (sigma = 1,
    a factor e).

A variant (an algorithm with per-call knobs set, NAME@KNOB=VALUE) not
measured at a point is its algorithm's estimate there plus its offset
(model.Offset: ln(T_variant / T_algorithm) where both ran, smoothed, with
its own uncertainty); against another algorithm it counts the two
algorithms' uncertainty and the offsets'. So a variant is worth
measuring where its algorithm contends, not wherever it has too few
points of its own to be predicted.

Choice: an algorithm replaces native only on evidence: faster than native
by the margin (default 2 %), and beyond the noise: measured, in every
repeat (the launches that measured both, or each against the native of
its own launches: measured_apart; else its upper 95 % bound below
native's lower one and every sample below native's); predicted, the
difference more than 1.96 of its uncertainties, which must be known (an
unknown difference, IGNORANT, is no evidence however large), and never
on a real MPI (measured_only: a prediction has no repeats). Of native
and the algorithms with evidence the one with the best upper 95 % bound
is chosen (a measured time beats an equal prediction), unless the choice
at the next smaller size is allowed too and within 3 % of it: then that
one stays (longer ranges, fewer rules); else, of those the measurements
cannot tell from the best, the first in a fixed order (preference): the
same rules from two runs, not a switch on every difference within the
noise (issue 62).
within_noise says what another run could choose instead.

Collectives whose rules cannot use the message size (the v-collectives,
barrier) choose one algorithm per communicator size:
it must beat native in geometric mean over the sizes (by the margin, with
evidence) and be at most 5 % slower than native at every size.

Candidates (for online tuning, a rule's "candidates"): at a point, the
algorithms measured there within CLOSE (10 %) of the choice's time, and
native when the choice is not native: what the tuner could not tell from
the winner by much, which a program measuring its own calls
(COLLX_TUNE_ONLINE) should try first.

Setup (with a profile that counts the calls): an algorithm's time per call
at a profile point is its time (measured or predicted) plus its setup on a
new communicator (store.setup: collbench's first call on a new
communicator minus its median; the topo family's distance tournament,
hier's segments, rma_*'s windows) over the point's calls. Quantum ESPRESSO
on the emulated cluster (issue 53) made 3 bcasts of 64-741 KiB at p = 8:
binomial_topo, 0.265 of native's time per call in steady state, paid
about a second of distance measurement for them, and the tuned run was
2 % slower than native. Without calls (no profile, or a profile without
them) nothing is charged. lost_to_setup says where the charge changed the
choice.

Risk: the probability that an algorithm whose time is only predicted (or
whose comparison is not measured) is faster than the choice by more than
EPS (3 %); its expected gain beyond EPS ranks what to measure next
(sampler.py). Points where no comparison has a risk above 5 % are done."""
import math

import numpy as np

from collx.tune import grid as gridmod
from collx.tune.labels import PARAM_SEP, across_nodes_only, base_of
from collx.tune.model import AlgModel, Offset
from collx.tune.store import paired_faster, unpaired_faster

Z = 1.96          # 95 % two-sided
EPS = 0.03        # a difference this small is not worth a measurement
RISK = 0.05
V_SLOWER = 0.05   # one algorithm for every size: at most this much slower anywhere
IGNORANT = 1.0    # sigma of a ln-difference with too few points (a factor e)
MIN_POINTS = 3    # points an algorithm needs before its predictions count
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
CLOSE = 0.10      # a measured runner-up this close to the choice is a candidate


def phi(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


class Est:
    """ln T at a point; sigma: of the measurement (None: predicted); via:
    for a variant predicted from its algorithm, (that algorithm, its Est,
    the offset's sigma)."""

    def __init__(self, ln, sigma=None, via=None):
        self.ln, self.sigma, self.via = ln, sigma, via

    @property
    def measured(self):
        return self.sigma is not None

    @property
    def us(self):
        return math.exp(self.ln)


class Decider:
    def __init__(self, store, algs, margin, grids=None, node=None, calls=None,
                 measured_only=False):
        """algs: {coll: [algorithm, ...]} (native among them); node: ranks
        per node (None: one node); calls: {(coll, q, m): calls} of a
        profile's points (profile.Profile.calls), whose estimates carry the
        algorithms' setup over them (charge); None: no charge anywhere;
        measured_only: only measurements are evidence against native (a
        real MPI, whose launches vary: a prediction has no repeats to hold
        in; predictions still say where to measure)."""
        self.store, self.algs, self.margin, self.node = store, algs, margin, node
        self.measured_only = measured_only
        self.calls = calls or {}
        self.grids = grids or {}
        self.models, self.pred, self.pairs = {}, {}, {}
        self.offsets = {}   # (coll, variant) -> (its algorithm, Offset, {cell: (ln, sigma)})
        self.spreads = {}   # local_sigma's tables over the grid, until the next refit
        self.cells_of = {}   # (coll, domain) -> the grid's cells there
        self.sigmas = {}   # diff_sigma and self_sigma until the next refit: choosing and the
        # risk ask the same (a, native) comparisons where native is the choice
        self.at_q = {}   # (coll, a) -> the communicator sizes a was measured at
        self.reach = {}   # (coll, a, layout) -> where a was measured, as model coordinates

    def refit(self, coll, cells=None):
        """Fits every algorithm of coll and predicts the grid's points."""
        cells = cells or (self.grids[coll].cells() if coll in self.grids else [])
        self.pairs = {k: v for k, v in self.pairs.items() if k[0] != coll}
        self.sigmas = {k: v for k, v in self.sigmas.items() if k[0] != coll}
        self.spreads = {k: v for k, v in self.spreads.items() if k[0] != coll}
        self.reach = {k: v for k, v in self.reach.items() if k[0] != coll}
        for a in self.algs[coll]:
            pts = [(q, m, self.store.stat(coll, a, q, m).mean)
                   for q, m in sorted(self.store.measured_points(coll, a))]
            self.at_q[(coll, a)] = {q for q, _, _ in pts}
            model = self.models[(coll, a)] = AlgModel(
                pts, layout=lambda q: self.domain(coll, q))
            if model.n >= MIN_POINTS and cells:
                self.pred[(coll, a)] = dict(zip(cells, model.predict(cells)))
            else:
                self.pred[(coll, a)] = {}
            self.fit_offset(coll, a, cells)

    def fit_offset(self, coll, a, cells):
        """A variant's offset from its algorithm (model.Offset) at the cells."""
        base = base_of(a, self.algs[coll])
        if base is None:
            self.offsets.pop((coll, a), None)
            return
        both = set(self.store.measured_points(coll, a)) & \
            set(self.store.measured_points(coll, base))
        pairs = [(q, m, self.store.log_ratio(coll, a, base, q, m)) for q, m in sorted(both)]
        off = Offset(pairs, layout=lambda q: self.domain(coll, q))
        self.offsets[(coll, a)] = (base, off, dict(zip(cells, zip(*off.predict(cells))))
                                   if cells else {})

    # ------------------------------------------------------------ estimates
    def estimate(self, coll, alg, q, m):
        """alg's time per call at (q, m): per_call plus its charge (the
        setup over the point's calls, where the profile counts them)."""
        e = self.per_call(coll, alg, q, m)
        extra = self.charge(coll, alg, q, m) if e is not None else 0.0
        if not extra:
            return e
        # the setup is taken as exact: the time's uncertainty stays as it was
        return Est(math.log(e.us + extra), e.sigma, e.via)

    def setup(self, coll, alg, q):
        """alg's setup on a new communicator of q ranks, us: measured there,
        else its algorithm's (a variant's knobs are per call), else the
        one measured at the nearest communicator size (the larger on a tie:
        a setup grows with the nodes); 0 where none was measured."""
        names = (alg, base_of(alg, self.algs[coll]) or alg)
        for a in names:
            x = self.store.setup(coll, a, q)
            if x is not None:
                return x
        near = [(abs(math.log(qq / q)), -qq, a, qq) for (c, a, qq) in self.store.setups
                if c == coll and a in names]
        if not near:
            return 0.0
        *_, a, qq = min(near)
        return self.store.setup(coll, a, qq)

    def charge(self, coll, alg, q, m):
        """What alg's setup adds to each call at a profile point: setup /
        calls (0 without calls). Conservative: the whole setup is charged
        to each point, as if no other point (another message size, another
        collective of its family: the topo distances are one per
        communicator) shared it and the calls all ran on one communicator."""
        n = self.calls.get((coll, q, m))
        return self.setup(coll, alg, q) / n if n else 0.0

    def per_call(self, coll, alg, q, m):
        """alg's steady-state time per call at (q, m), measured or
        predicted, without setup; None where there is no estimate."""
        if self.store.cannot(coll, alg, q, m) or self.alike(coll, alg, q):
            return None
        if self.store.usable(coll, alg, q, m):
            st = self.store.stat(coll, alg, q, m)
            return Est(math.log(st.mean), st.sigma_ln())
        if (coll, alg) in self.offsets:   # a variant: its algorithm's, offset
            base, off, at = self.offsets[(coll, alg)]
            if self.store.cannot(coll, base, q, m):
                return None   # where its algorithm cannot serve, nor can it
            b = self.per_call(coll, base, q, m)
            if b is not None:
                d, s = at[(q, m)] if (q, m) in at else [float(v[0]) for v in off.predict([(q, m)])]
                return Est(b.ln + float(d), via=(base, b, float(s)))
        ln = self.pred.get((coll, alg), {}).get((q, m))
        return None if ln is None else Est(float(ln))

    def alike(self, coll, alg, q):
        """alg is a variant whose knob matters only between nodes, at a
        communicator inside one node: its algorithm itself, no candidate
        (labels.ACROSS_NODES)."""
        return self.domain(coll, q) == 0 and across_nodes_only(alg)

    def estimates(self, coll, q, m, charged=True):
        """{algorithm: Est} at (q, m); charged=False: per call, no setup."""
        get = self.estimate if charged else self.per_call
        out = {}
        for a in self.algs[coll]:
            e = get(coll, a, q, m)
            if e:
                out[a] = e
        return out

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

    def domain(self, coll, q):
        """Inside one node (0), whole nodes (1), whole nodes and a part of
        one (2): different machines, one is not predicted from the other
        (grid.layout; a shaped key's nodes are its own, grid.node_of)."""
        return gridmod.layout(q, gridmod.node_of(coll, self.node))

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

    # ------------------------------------------------------------ choosing
    def measured_apart(self, coll, fast, ef, slow, es, q, m, need, sure=0.0):
        """fast, measured, is faster than slow, measured, beyond the noise
        and in every repeat. Where two launches or more measured both (a
        real MPI: native is in every launch), by their ratios in those
        launches (store.paired_faster: faster in each, by need in the mean,
        beyond the noise); where they ran in different launches (a variant's
        knobs are its run's), each one's ratios to the native of its own
        launches (store.unpaired_faster). A launch's own offset cancels, and one slow
        launch of native (a 4 MiB allreduce's first, 9.5 ms against 1.1)
        does not hide a gain. Else their confidence intervals apart, and
        every sample of fast below every sample of slow (one sample each,
        SMPI's deterministic runs: nothing more to ask). A mean that beats
        native's may rest on one launch: at p = 2 on a 2-core machine two
        identical tunes alternated hier, hier_ms and native by message size
        (issue 62). sure: the bound of the difference beyond it, not 0."""
        d = self.store.paired(coll, fast, slow, q, m)
        if len(d) >= 2:
            return paired_faster(d, need, self.store.floor, sure)
        # run apart (a variant's knobs are its run's), each against the
        # native of its own launches
        rf, rs = (self.store.paired(coll, a, "native", q, m) if a != "native" else []
                  for a in (fast, slow))
        if len(rf) >= 2 and len(rs) >= 2:
            return unpaired_faster(rf, rs, need, self.store.floor, sure)
        if not ef.ln + Z * ef.sigma < es.ln - Z * es.sigma - sure:
            return False
        xs = self.store.samples.get((coll, fast, q, m), ())
        ys = self.store.samples.get((coll, slow, q, m), ())
        return len(xs) < 2 or len(ys) < 2 or max(xs) < min(ys)

    def evidence(self, coll, a, e, nat, q, m, sure=False):
        """a beats native by the margin, beyond the noise. A variant never
        measured at this communicator size, known only as its algorithm's
        time plus an offset learnt at other sizes, is no evidence: on
        roce-torus-32x8 (p = 64) hier_ms with 8 senders, so predicted 45 us
        at 512 B against native's 114, ran 705 us at 1000 B, 5.8 times
        native (the offset of a knob is a property of the size)."""
        if e.via is not None and q not in self.at_q.get((coll, a), ()):
            return False
        if self.measured_only and not (e.measured and nat.measured):
            return False
        need = -math.log(1 - self.margin)
        return self.apart(coll, a, e, "native", nat, q, m, nat.ln - e.ln, need,
                          need if sure else 0.0)

    def slower(self, coll, a, e, nat, q, m):
        """a is slower than native beyond the noise."""
        return self.apart(coll, a, e, "native", nat, q, m, e.ln - nat.ln, 0.0)

    def beats(self, coll, a, ea, b, eb, q, m):
        """a is faster than b beyond the noise."""
        return self.apart(coll, a, ea, b, eb, q, m, eb.ln - ea.ln, 0.0)

    def apart(self, coll, a, e, b, eb, q, m, gain, need, sure=0.0):
        """a and b differ by gain (at least need) beyond the noise (by sure
        beyond it: the difference's 95 % bound beyond sure, not 0)."""
        if gain < need:
            return False
        if e.measured and eb.measured:
            (fast, ef), (slow, es) = sorted(((a, e), (b, eb)), key=lambda x: x[1].ln)
            return self.measured_apart(coll, fast, ef, slow, es, q, m, need, sure)
        s = self.diff_sigma(coll, a, e, b, eb, q, m)
        # an unknown difference (no points around to say how wrong the
        # models are) is no evidence, however large: rma_binomial predicted
        # at 3 ranks on 3 nodes from its 2 ranks on one, 39 times faster than
        # native, where it cannot even create its window (emulated cluster)
        return s < IGNORANT and gain - Z * s > sure

    def choose_cell(self, coll, q, m, ests=None, keep=None):
        """keep: the choice at the next smaller size; it stays if it is
        allowed here and within EPS of the best (fewer, longer ranges
        instead of a new rule for every difference within the noise)."""
        ests = ests if ests is not None else self.estimates(coll, q, m)
        nat = ests.get("native")
        if nat is None:
            return "native"
        ok = ["native"] + [a for a, e in ests.items()
                           if a != "native" and self.evidence(coll, a, e, nat, q, m) and
                           self.knob_matters(coll, a, ests, q, m)]
        # the best time it can be trusted to have: a measured algorithm
        # wins over an equal prediction
        bound = {a: ests[a].ln + Z * self.self_sigma(coll, a, ests[a], q, m) for a in ok}
        # measured only (a real MPI): native only where nothing has evidence
        # against it; an algorithm faster in every repeat is faster, however
        # widely native's samples spread over launches
        best = min(ok[1:] if self.measured_only and len(ok) > 1 else ok, key=bound.get)
        if keep in ok and ests[keep].ln - ests[best].ln <= math.log(1 + EPS):
            return keep
        # of those the measurements cannot tell apart, the first in a fixed
        # order, not the one the noise put first: two tunes give one choice
        # (not the choice at the next smaller size: a variant the noise chose
        # there would run on through every size it ties at)
        ties = [a for a in ok if a == best or self.tied(coll, best, a, ests, q, m)]
        return min(ties, key=self.preference(coll))

    def knob_matters(self, coll, a, ests, q, m):
        """A variant measured where its algorithm was too beats it beyond the
        noise (else its knob changed nothing there, and what made it beat
        native where its algorithm did not was the noise: hier with
        COLLX_HIER_INTER at p = 2, one node, no leaders' collective, chosen
        over hier at sizes where hier's own evidence fell short; issue 62).
        An algorithm as it is, or a variant whose algorithm was not measured
        there: True."""
        base = base_of(a, self.algs[coll])
        e, b = ests.get(a), ests.get(base)
        if base is None or b is None or not (e.measured and b.measured):
            return True
        return self.beats(coll, a, e, base, b, q, m)

    def tied(self, coll, best, a, ests, q, m):
        """a, measured, is not slower than best by the margin beyond the noise (measured,
        or predicted with its uncertainty: a measurement beats a prediction
        it cannot be told from). A predicted a ties with nothing: a tie
        within a prediction's uncertainty may be a large loss."""
        e, eb = ests[a], ests[best]
        # by the margin, as against native: two algorithms one time apart
        # (hier and hier_ms at p = 2) beat each other by a percent in every
        # one of 3 launches often enough to alternate by size (issue 62)
        return e.measured and not self.apart(coll, best, eb, a, e, q, m, e.ln - eb.ln,
                                             -math.log(1 - self.margin))

    def preference(self, coll):
        """The order among choices the measurements cannot tell apart:
        native, then algorithms as they are, then variants (per-call knobs
        set), each in the registry's order."""
        order = {a: i for i, a in enumerate(self.algs[coll])}
        return lambda a: (a != "native", PARAM_SEP in a, order.get(a, len(order)), a)

    def within_noise(self, coll, q, m, choice):
        """The algorithms another tuning run might choose at (q, m) instead:
        where the choice is native, those faster than native by the margin
        whose evidence does not hold (beyond the noise, in every repeat);
        else those with evidence against native that the choice does not
        beat beyond the noise, and native where the choice's gain, beyond
        the noise, is not surely the margin (its bound short of it). Only
        comparisons with a known uncertainty."""
        ests = self.estimates(coll, q, m)
        nat, c = ests.get("native"), ests.get(choice)
        if nat is None or c is None:
            return []
        out = []
        for a, e in ests.items():
            if a == choice or a == "native" or not self.known(coll, a, e, "native", nat, q, m):
                continue
            if self.measured_only and not (e.measured and nat.measured):
                continue
            if choice == "native":
                if nat.ln - e.ln >= -math.log(1 - self.margin) and \
                        not self.evidence(coll, a, e, nat, q, m):
                    out.append(a)
            elif self.evidence(coll, a, e, nat, q, m) and (
                    e.ln < c.ln or not self.beats(coll, choice, c, a, e, q, m)):
                out.append(a)
        out.sort(key=lambda a: ests[a].ln)
        if choice != "native" and not self.evidence(coll, choice, c, nat, q, m, sure=True):
            out.append("native")
        return out

    def known(self, coll, a, e, b, eb, q, m):
        """The difference of a and b has a known uncertainty."""
        return (e.measured and eb.measured) or \
            self.diff_sigma(coll, a, e, b, eb, q, m) < IGNORANT

    def lost_to_setup(self, coll, q, m, choice, sizes=None):
        """(algorithm, its setup in us, the point's calls, its per-call time
        over native's) where that algorithm, chosen without the setups,
        lost to its setup over the point's calls; else None. sizes: the
        grid's, for the collectives that choose one algorithm for all."""
        n = self.calls.get((coll, q, m))
        if not n:
            return None
        if gridmod.uses_msg_size(coll):
            want = self.choose_cell(coll, q, m, ests=self.estimates(coll, q, m, False))
            lost = want != self.choose_cell(coll, q, m)
        else:
            want = self.choose_bin(coll, q, sizes or [m], charged=False)
            lost = want != self.choose_bin(coll, q, sizes or [m])
        raw = self.estimates(coll, q, m, False)
        if not lost or want == choice or not self.charge(coll, want, q, m) or \
                want not in raw or "native" not in raw:
            return None
        return (want, self.setup(coll, want, q), n,
                math.exp(raw[want].ln - raw["native"].ln))

    def choose_bin(self, coll, q, sizes, charged=True):
        """One algorithm for every size at q (rules without msg_size)."""
        per = [(m, self.estimates(coll, q, m, charged)) for m in sizes]
        if any("native" not in e for _, e in per):
            return "native"
        best, best_g = "native", 0.0
        for a in self.algs[coll]:
            if a == "native" or any(a not in e for _, e in per):
                continue
            if self.measured_only and not all(e[a].measured and e["native"].measured
                                              for _, e in per):
                continue
            d = [e[a].ln - e["native"].ln for _, e in per]
            s = sum(self.diff_sigma(coll, a, e[a], "native", e["native"], q, m)
                    for m, e in per) / len(per)   # errors at neighbouring sizes go together
            g = sum(d) / len(d)
            if (g <= math.log(1 - self.margin) and g + Z * s < 0 and
                    max(d) <= math.log(1 + V_SLOWER) and g < best_g):
                best, best_g = a, g
        return best

    def choices(self, coll, grid):
        """{(q, m): algorithm} over the grid: each point's (choose_cell),
        then smoothed over the message sizes (smooth)."""
        out = {}
        for q in grid.comms:
            if gridmod.uses_msg_size(coll):
                prev, raw = None, {}
                for m in grid.sizes:
                    raw[m] = prev = self.choose_cell(coll, q, m, keep=prev)
                out.update({(q, m): a for m, a in
                            self.smooth(coll, q, grid.sizes, raw).items()})
            else:
                a = self.choose_bin(coll, q, grid.sizes)
                out.update({(q, m): a for m in grid.sizes})
        return out

    def compared(self, coll, q, m, ests):
        """Measured with alternatives: native and another algorithm were
        measured at the point (the report's "measured" needs the choice too)."""
        nat = ests.get("native")
        return nat is not None and nat.measured and \
            any(e.measured for a, e in ests.items() if a != "native")

    def smooth(self, coll, q, sizes, raw):
        """{m: algorithm} at q: the choices raw (each point's own) where the
        evidence says so, else their neighbours' (issue 62: at p = 4 with a
        60 s budget on a real MPI, 21 rules alternated native, hier_ms,
        native, hier by message size, the algorithms at the sizes measured
        with alternatives and native at those between; native alone at
        single sizes between two of hier's). Two rules:

        * among the sizes measured with alternatives (compared), a run of
          one choice between two runs of X takes X, and a run of an
          algorithm beside a run of another first in the order (preference;
          not native) takes that one, unless X is slower there, at one of
          its sizes, than the run's own choice by the margin beyond the
          noise (a choice with evidence against native keeps it: native is
          slower there beyond the noise);
        * a size not measured with alternatives takes what the measured
          sizes on both sides agree on, unless that is slower there by the
          margin beyond the noise than its own choice or cannot serve it; else its own
          choice stays (native on a real MPI, where predictions are no
          evidence; the model's, with its uncertainty, in SMPI).

        So a choice changes between message sizes only where a measurement
        says so, and two runs of one tune differ only where their
        measurements do."""
        ests = {m: self.estimates(coll, q, m) for m in sizes}
        meas = [m for m in sizes if self.compared(coll, q, m, ests[m])]
        out, need, rank = dict(raw), -math.log(1 - self.margin), self.preference(coll)

        def takes(m, x):   # m's choice may become x: x serves m, not slower by the margin
            e, c = ests[m], out[m]
            return x != c and x in e and c in e and \
                not self.apart(coll, c, e[c], x, e[x], q, m, e[x].ln - e[c].ln, need)

        changed = True
        while changed:   # runs of one choice among the measured sizes
            changed = False
            runs = []
            for m in meas:
                if runs and runs[-1][0] == out[m]:
                    runs[-1][1].append(m)
                else:
                    runs.append((out[m], [m]))
            for i, (c, pts) in enumerate(runs):
                left = runs[i - 1][0] if i else None
                right = runs[i + 1][0] if i + 1 < len(runs) else None
                # between two runs of one choice: that choice; beside another
                # algorithm (not native) first in the order: that one
                near = [left] if left == right and left else \
                    [x for x in (left, right) if x and "native" not in (x, c) and
                     rank(x) < rank(c)]
                x = next((x for x in sorted(near, key=rank)
                          if all(takes(m, x) for m in pts)), None)
                if x:
                    out.update({m: x for m in pts})
                    changed = True
                    break
        for m in sizes:
            if m in meas:
                continue
            lo = max((x for x in meas if x < m), default=None)
            hi = min((x for x in meas if x > m), default=None)
            if lo is not None and hi is not None and out[lo] == out[hi] and takes(m, out[lo]):
                out[m] = out[lo]
        return out

    def runners_up(self, coll, q, m, choice):
        """{algorithm: T / T(choice)} of the candidates at (q, m): measured
        there within CLOSE of the choice, and native if it is not the
        choice (whatever its time)."""
        ests = self.estimates(coll, q, m)
        c = ests.get(choice)
        if c is None:
            return {}
        out = {a: math.exp(e.ln - c.ln) for a, e in ests.items()
               if a != choice and e.measured and e.ln - c.ln <= math.log(1 + CLOSE)}
        if choice != "native" and "native" in ests:
            out["native"] = math.exp(ests["native"].ln - c.ln)
        return out

    def candidates(self, coll, grid, choices):
        """{(q, m): {algorithm: T / T(choice)}} over the grid (runners_up);
        empty for collectives online tuning does not tune (no msg_size)."""
        if not gridmod.uses_msg_size(coll):
            return {}
        return {(q, m): self.runners_up(coll, q, m, choices[(q, m)]) for q, m in grid.cells()}

    # ------------------------------------------------------------ risk
    def comparisons(self, coll, q, m, choice):
        """[(a, p, ei)] for each algorithm a whose comparison with the
        choice is not measured: p, the probability that a is faster by
        more than EPS; ei, the expected gain beyond EPS (in ln T) of
        switching to a, E[max(0, ln T_choice - ln T_a - ln(1 + EPS))]."""
        ests = self.estimates(coll, q, m)
        c = ests.get(choice)
        if c is None:
            return []
        out, delta = [], math.log(1 + EPS)
        for a, e in ests.items():
            if a == choice or (e.measured and c.measured):
                continue
            s = self.diff_sigma(coll, a, e, choice, c, q, m)
            z = (c.ln - e.ln - delta) / s
            ei = s * math.exp(-z * z / 2) / math.sqrt(2 * math.pi) + (c.ln - e.ln - delta) * phi(z)
            out.append((a, phi(z), ei))
        return out

    def risk(self, coll, q, m, choice):
        """(the largest p of comparisons, the algorithms to measure: those
        with p > RISK, and then the choice and native too)."""
        comp = self.comparisons(coll, q, m, choice)
        need = {a for a, p, _ in comp if p > RISK}
        if need:
            need |= {choice, "native"}
        need = {a for a in need if not self.store.usable(coll, a, q, m)}
        return max((p for _, p, _ in comp), default=0.0), sorted(need)

    def predicted_regret(self, coll, q, m, choice):
        """T(choice) / min T over the algorithms, from the estimates; a
        prediction whose uncertainty is unknown (IGNORANT: no measured
        points around it, e.g. from another node layout) is left out, as
        the choice leaves it out (on the emulated cluster such predictions
        made the bcast's regret 1291)."""
        ests = self.estimates(coll, q, m)
        if choice not in ests:
            return None
        known = [e.ln for a, e in ests.items()
                 if a == choice or self.self_sigma(coll, a, e, q, m) < IGNORANT]
        return math.exp(ests[choice].ln - min(known))

