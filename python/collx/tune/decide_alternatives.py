"""The decider's alternatives to a choice (decide.py), for the report,
the rules and online tuning: what another run might choose (within the
noise), the runners-up within CLOSE (the rules' candidates), the regret
predicted, and the choices lost to an algorithm's setup."""
import math

from collx.tune import grid as gridmod
from collx.tune.decide_sigma import IGNORANT

CLOSE = 0.10      # a measured runner-up this close to the choice is a candidate


class DeciderAlternatives:
    """What else the choice could have been. Part of Decider (its
    attributes: decide.Decider.__init__)."""

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
