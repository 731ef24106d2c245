"""The decider's smoothing (decide.py): each point's choice over the
message sizes at one communicator size made to follow its neighbours
where the measurements allow it, so that a choice changes between sizes
only where a measurement says so."""
import math


class DeciderSmooth:
    """Smoothing over the message sizes. Part of Decider (its attributes:
    decide.Decider.__init__)."""

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

        while merge_run(meas, out, takes, rank):
            pass   # until no run of one choice among the measured sizes changes
        fill_between(sizes, meas, out, takes)
        return out


def merge_run(meas, out, takes, rank):
    """The first rule of smooth, once: the first run of one choice among
    the measured sizes meas that takes a neighbour's choice (takes(m, x):
    m's choice may become x; rank: the preference) takes it, in out. True
    if one did."""
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
            return True
    return False


def fill_between(sizes, meas, out, takes):
    """The second rule of smooth: a size not measured with alternatives
    takes what the measured sizes on both sides agree on, where it may
    (takes), in out."""
    for m in sizes:
        if m in meas:
            continue
        lo = max((x for x in meas if x < m), default=None)
        hi = min((x for x in meas if x > m), default=None)
        if lo is not None and hi is not None and out[lo] == out[hi] and takes(m, out[lo]):
            out[m] = out[lo]
