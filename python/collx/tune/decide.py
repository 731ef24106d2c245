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
(sampler.py). Points where no comparison has a risk above 5 % are done.

The class Decider is put together from one part per job, a module each:
decide_estimate.py (fits and estimates), decide_sigma.py (uncertainty),
decide_choice.py (evidence and the choice), decide_smooth.py (smoothing
over the message sizes), decide_risk.py (the comparisons at risk),
decide_alternatives.py (within the noise, candidates, regret, setup)."""
from collx.tune.decide_alternatives import CLOSE, DeciderAlternatives
from collx.tune.decide_choice import EPS, V_SLOWER, Z, DeciderChoice
from collx.tune.decide_estimate import MIN_POINTS, DeciderEstimates, Est
from collx.tune.decide_risk import RISK, DeciderRisk, phi
from collx.tune.decide_sigma import IGNORANT, MIN_SIGMA, Q_STEPS, STEP_SIGMA, DeciderSigma
from collx.tune.decide_smooth import DeciderSmooth

# the names callers and tests import from here, wherever their part keeps them
__all__ = ["CLOSE", "EPS", "IGNORANT", "MIN_POINTS", "MIN_SIGMA", "Q_STEPS", "RISK",
           "STEP_SIGMA", "V_SLOWER", "Z", "Decider", "Est", "phi"]


class Decider(DeciderEstimates, DeciderSigma, DeciderChoice, DeciderSmooth, DeciderRisk,
              DeciderAlternatives):
    """What to run at each grid point and how sure that is (the module's
    docstring); refit a collective after measuring it."""

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
