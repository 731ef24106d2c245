"""What the rules run between grid points: message sizes between two grid
sizes and communicator sizes the grid did not measure.

Each algorithm's ln T is taken as linear between the grid points around
a point (in log2 m between two grid sizes; in log2 q, or in the last
node's fill, between two grid communicator sizes of the point's layout:
grid.brackets) and the fastest line is chosen. If every time were so, an
algorithm's regret at the point would be at most the same mix of its
regrets at the corners (the fastest of lines is concave), so a switch
lies where the corners' choices cross, not halfway between grid sizes
(SMPI cse-2switch-30x8 allreduce, p = 18: hier_ms wins at 16 KiB, hier
and reduce_bcast at 8 KiB by 1.9 times; at 12 KiB, past halfway, hier_ms
was 1.37 times slower than the best).

Times are not smooth in the communicator size (how full the last node
is, powers of two): gige-18x8 allreduce at 48 B, recursive doubling
takes 335 us at 18 ranks, 286 at 20 and 405 at 19. So between two
communicator sizes an algorithm's line also carries how much its times
at the two differ (KAPPA): halfway it counts at its slower one, and an
algorithm that is as fast at both is the better bet (hier: 321, 321,
321).

Candidates: the corners' choices; another algorithm only with evidence
against native at every corner, told apart from the corner's choice
there (not within the noise of it), and a line below theirs by EPS; of
several such, the first in the decider's fixed order. Between
two message sizes, a choice shown slower than native at one end is no
candidate (native is): where it crosses native is a guess. Without
the estimates this needs, sizes between two grid sizes are served
halfway (grid.bins), and a communicator size off the grid without a grid
size of its layout on both sides (past a node by less than the grid's
smallest fill) like the grid size that serves it (grid.comm_ranges). Measured on the held-out points
of four SMPI platforms: docs/results/tune/README.md, "Between grid
points"."""
import math

from collx.tune import grid as gridmod
from collx.tune.decide import EPS

SAMPLES = 64   # sizes tried between two grid sizes (a 1 % step per doubling)
KAPPA = 0.5    # halfway between two communicator sizes, an algorithm counts at
# its slower one: (a + b) / 2 + KAPPA * |a - b| = max(a, b) there


class Between:
    def __init__(self, dec, coll, grid, choices, node):
        self.dec, self.coll, self.grid, self.choices, self.node = dec, coll, grid, choices, node
        self.cache = {}

    def ests(self, q, m):
        if (q, m) not in self.cache:
            self.cache[(q, m)] = self.dec.estimates(self.coll, q, m)
        return self.cache[(q, m)]

    def vs_native(self, test, a, q, m):
        """test (Decider.evidence or .slower) of a against native at (q, m);
        False where either has no estimate."""
        e = self.ests(q, m)
        return a in e and "native" in e and test(self.coll, a, e[a], e["native"], q, m)

    def beats_native(self, a, q, m):
        """a may be chosen at (q, m): native, or with evidence against it (a
        variant: where its knob matters, decide.Decider.knob_matters)."""
        return a == "native" or (self.vs_native(self.dec.evidence, a, q, m) and
                                 self.dec.knob_matters(self.coll, a, self.ests(q, m), q, m))

    def told_apart(self, a, q, m):
        """a and the choice at grid point (q, m) differ beyond the noise,
        either way (measured, or predicted with its uncertainty): a third
        algorithm that the corners cannot tell from their choices takes no
        part between them, else the noise would pick the rules there (hier
        and its variants at p = 2 on a real MPI: issue 62)."""
        e, c = self.ests(q, m), self.choices[(q, m)]
        if a not in e or c not in e:
            return False
        return self.dec.beats(self.coll, a, e[a], c, e[c], q, m) or \
            self.dec.beats(self.coll, c, e[c], a, e[a], q, m)

    def slower_than_native(self, a, q, m):
        return a != "native" and self.vs_native(self.dec.slower, a, q, m)

    def lines(self, qc, ms):
        """qc: [(grid q, weight)], ms: the message sizes at the two ends (m0,
        m1, or m, m) -> ({candidate: (ln T at the first end, at the
        second)}, {other: ...}), or None when a candidate has no estimate at
        every corner. Between two communicator sizes an algorithm's line
        is the mix of its times plus how much they differ (KAPPA, largest
        halfway): times are not smooth in q, and an algorithm whose time
        moves between them is a worse bet than one that does not."""
        corners = [(q, m) for q, _ in qc for m in ms]
        base = {self.choices[c] for c in corners}
        # between two sizes, an algorithm shown slower than native at one
        # does not serve towards it: where it crosses native is a guess, and
        # times step (emulated cluster, 100 Mbit/s, allreduce p = 6: hier
        # 1375 us at 8 KiB, 1850 at 16 KiB, 2040 at 12 KiB; native 1044,
        # 2060, 1559). Not between communicator sizes: there native's own
        # time jumps (SMPI gige-18x8: 9 times the best at 64 ranks).
        safe = {a for a in base if len(qc) > 1 or
                not any(self.slower_than_native(a, q, m) for q, m in corners)}
        if safe != base:
            base = safe | {"native"}
        others = [a for a in self.dec.algs[self.coll] if a not in base and a != "native" and
                  all(self.beats_native(a, q, m) and self.told_apart(a, q, m)
                      for q, m in corners)]
        bend = KAPPA * 4 * qc[0][1] * qc[-1][1] if len(qc) == 2 else 0.0

        def line(a):
            ends = []
            for m in ms:
                es = [self.ests(q, m).get(a) for q, _ in qc]
                if None in es:
                    return None
                ends.append(sum(w * e.ln for (_, w), e in zip(qc, es)) +
                            bend * abs(es[0].ln - es[-1].ln))
            return tuple(ends)
        cand = {a: line(a) for a in base}
        if any(v is None for v in cand.values()):
            return None
        # of several thirds, the first in the decider's fixed order: their
        # lines run within the noise of each other, and each would take a
        # sliver of its own (issue 62: three variants of hier between 1 and
        # 2 MiB at p = 4)
        third = sorted((a for a in others if line(a) is not None),
                       key=self.dec.preference(self.coll))[:1]
        return cand, {a: line(a) for a in third}

    @staticmethod
    def pick(cand, others, t):
        at = {a: (1 - t) * v[0] + t * v[1] for a, v in cand.items()}
        best = min(sorted(at), key=at.get)
        if others:
            ot = {a: (1 - t) * v[0] + t * v[1] for a, v in others.items()}
            third = min(sorted(ot), key=ot.get)
            if ot[third] < at[best] - math.log(1 + EPS):
                return third
        return best

    def at_size(self, qc, m):
        """The choice at grid size m for qc = [(grid q, weight)]."""
        if len(qc) == 1:
            return self.choices[(qc[0][0], m)]
        ls = self.lines(qc, (m, m))
        return self.pick(*ls, 0.0) if ls else None

    def sizes_between(self, qc, m0, m1, c0, c1):
        """[(lo, hi, choice)] over m0 + 1 .. m1 - 1 (c0, c1: the choices at
        m0 and m1)."""
        (_, mid), _ = gridmod.bins([m0, m1], top=m1)   # the switch without lines
        halfway = [s for s in ((m0 + 1, mid, c0), (mid + 1, m1 - 1, c1)) if s[0] <= s[1]]
        ls = self.lines(qc, (m0, m1))
        if ls is None:
            return halfway
        cand, others = ls
        if c0 == c1 and len(cand) == 1 and not others:
            return [(m0 + 1, m1 - 1, c0)]
        span, out = math.log(m1 / m0), []
        tried = range(m0 + 1, m1) if m1 - m0 <= SAMPLES else \
            sorted({int(round(m0 * (m1 / m0) ** (k / SAMPLES))) for k in range(1, SAMPLES)})
        for m in tried:
            best = self.pick(cand, others, math.log(m / m0) / span)
            if out and out[-1][2] == best:
                out[-1] = (out[-1][0], m, best)
                continue
            if out:   # the switch halfway between the sizes tried
                out[-1] = (out[-1][0], (out[-1][1] + m) // 2, out[-1][2])
            out.append((out[-1][1] + 1 if out else m0 + 1, m, best))
        if out:
            out[-1] = (out[-1][0], m1 - 1, out[-1][2])
        return out

    def row(self, q):
        """[(lo, hi, choice)] over message sizes at communicator size q, or
        None where q is off the grid without grid sizes of its layout on
        both sides (served by the nearest then)."""
        if q in self.grid.comms:
            qc = [(q, 1.0)]
        else:
            br = gridmod.brackets(self.grid.comms, self.node, q)
            if br is None:
                return None
            qa, qb, s = br
            qc = [(qa, 1 - s), (qb, s)]
        sizes = self.grid.sizes
        at = [self.at_size(qc, m) for m in sizes]
        if None in at:
            return None
        segs = [(None, sizes[0], at[0])]
        for i, (m0, m1) in enumerate(zip(sizes, sizes[1:])):
            segs += self.sizes_between(qc, m0, m1, at[i], at[i + 1])
            segs.append((m1, m1, at[i + 1]))
        return segs
