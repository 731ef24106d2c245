"""The decider's choice (decide.py): an algorithm replaces native only on
evidence (faster by the margin beyond the noise, in every repeat); of
those with evidence the best bound, a tie within the noise going to the
first in a fixed order; one algorithm for all sizes where the rules
cannot use the message size."""
import math

from collx.tune import grid as gridmod
from collx.tune.decide_sigma import IGNORANT
from collx.tune.labels import PARAM_SEP, base_of
from collx.tune.store import paired_faster, unpaired_faster

Z = 1.96          # 95 % two-sided
EPS = 0.03        # a difference this small is not worth a measurement
V_SLOWER = 0.05   # one algorithm for every size: at most this much slower anywhere


class DeciderChoice:
    """Evidence and the choice at each point. Part of Decider (its
    attributes: decide.Decider.__init__)."""

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
