"""The decider's risk (decide.py): for each algorithm whose comparison
with the choice is not measured, the probability that it is faster by
more than EPS and the expected gain of switching: what the sampler
measures next."""
import math

from collx.tune.decide_choice import EPS

RISK = 0.05


def phi(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


class DeciderRisk:
    """The comparisons at risk. Part of Decider (its attributes:
    decide.Decider.__init__)."""

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
