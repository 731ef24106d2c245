"""The decider's estimates (decide.py): each algorithm fitted and its
time at a grid point measured or predicted (model.py), a variant's from
its algorithm's plus its offset, and an algorithm's setup charged to a
profile point's calls."""
import math

from collx.tune import grid as gridmod
from collx.tune.labels import across_nodes_only, base_of
from collx.tune.model import AlgModel, Offset

MIN_POINTS = 3    # points an algorithm needs before its predictions count


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


class DeciderEstimates:
    """Fits and estimates. Part of Decider (its attributes:
    decide.Decider.__init__)."""

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

    def domain(self, coll, q):
        """Inside one node (0), whole nodes (1), whole nodes and a part of
        one (2): different machines, one is not predicted from the other
        (grid.layout; a shaped key's nodes are its own, grid.node_of)."""
        return gridmod.layout(q, gridmod.node_of(coll, self.node))
