"""Measuring: runs of collbench, the initial design, the model-guided
rounds and the exhaustive grid.

A run (a batch) is one collbench process: one collective on q ranks, some
algorithms at some sizes, each algorithm listed `reps` times (interleaved
samples of the same point); an algorithm that leaves work behind in the
process (labels.runs: RMA bcast) runs in a run of its own. When a run fails (exit, timeout, memory
limit), the cases it finished count (collbench's CSV grows case by case),
the case it was in is recorded as failed (out of memory or time: the
algorithm is presumed to fail at larger sizes and communicator sizes too;
skipped, said: store.cannot), and the rest runs again.

Where the budget goes (issue 52): the job's own size P and the largest
communicators first, then the sizes between. Initial design: the
algorithms as they are (their variants are predicted from them,
decide.py) at both ends of every layout (P among them) and P/2, so that
every communicator size between is a prediction with a known uncertainty,
not an extrapolation; then, after the budget split (whole, largest
first), native at every grid point (natives, largest first).

Guided rounds: at every grid point, the choice and, for each algorithm
whose comparison with the choice is not measured, the probability p that
it is faster by more than 3 % and the expected gain (decide.comparisons),
weighted by the point's communicator size (q / P: size_weight). Items
(algorithm, size) with p > 5 % are candidates. Per communicator size, a
run is grown greedily from its best item by the size or algorithm that
adds the most expected gain per predicted host second (cost.py), as long as
that keeps at least 70 % of the run's gain per second; native and the
points' choices are always in it. The run with the most gain per second
over all collectives and communicator sizes that the budget can pay for
goes next. Sampling ends when no candidate is left or the budget can pay
for none; where it ends, the model's predictions with their uncertainty
decide (an algorithm replaces native only when faster beyond it), and
the report says which points are measured and which predicted.

With a profile (profile.py): native at its points, then every algorithm
at its points, the most time first, the budget split by that time
(profiled), then the guided rounds with the gains weighted by it.

Budget: a run starts only if the cost spent plus its predicted cost stays
within the budget; spent = the runs' cost (host CPU seconds in SMPI, wall
seconds on a real MPI) plus, in SMPI, the tuner's own CPU seconds.

The class Sampler is put together from one part per job, a module each:
sampler_budget.py (what is spent, what fits, what a gain counts),
sampler_runs.py (batches and failures), sampler_design.py (the initial
design and its screening), sampler_phases.py (the budget split, natives,
a profile's points, the exhaustive grid), sampler_guided.py (the guided
rounds)."""
import sys
import time

from collx.tune.cost import CostModel
from collx.tune.sampler_budget import FOCUS_BOOST, SIZE_POWER, SamplerBudget, size_weight
from collx.tune.sampler_design import (FOCUS_SIZES, INIT_COMMS, INIT_SHARE, INIT_SIZES, SCREEN,
                                       SamplerDesign, spaced)
from collx.tune.sampler_guided import DILUTE, GROUP_SIZES, SamplerGuided, n_runs
from collx.tune.sampler_phases import NATIVE_SHARE, PROBE_FIRST, SamplerPhases
from collx.tune.sampler_runs import (LAUNCH_TRIES, LIMIT_SLACK, MAX_LIST, SHOW_LINES,
                                     NothingMeasured, SamplerRuns, shown)

# the names callers and tests import from here, wherever their part keeps them
__all__ = ["DILUTE", "FOCUS_BOOST", "FOCUS_SIZES", "GROUP_SIZES", "INIT_COMMS", "INIT_SHARE",
           "INIT_SIZES", "LAUNCH_TRIES", "LIMIT_SLACK", "MAX_LIST", "NATIVE_SHARE",
           "PROBE_FIRST", "SCREEN", "SHOW_LINES", "SIZE_POWER", "NothingMeasured", "Sampler",
           "grid_pairs", "n_runs", "shown", "size_weight", "spaced"]


class Sampler(SamplerBudget, SamplerRuns, SamplerDesign, SamplerPhases, SamplerGuided):
    """Measures within the budget, in the phases the module's docstring
    says; main.sample calls the phases the mode asks for."""

    def __init__(self, target, grids, algs, store, decider, opts, stream=sys.stderr,
                 weights=None):
        """weights: {(coll, q, m): seconds} of a profile (the points it
        measures, the budget split by their time, their expected gains
        weighted by it); None: every grid point, each communicator size's
        expected gains weighted by size_weight."""
        self.t, self.grids, self.algs = target, grids, algs
        self.store, self.dec, self.o = store, decider, opts
        self.profile = weights
        self.shares = {}   # with a profile: (coll, q) -> its seconds
        for (c, q, _), w in (weights or {}).items():
            self.shares[(c, q)] = self.shares.get((c, q), 0.0) + w
        self.cost = CostModel(store, algs, opts.reps, target.node,
                              launches=opts.reps if target.launches_vary else 1)
        self.stream, self.t0 = stream, time.time()
        self.uncounted = 0.0   # wall seconds not the budget's (the MPI's own part)
        self.budget = opts.budget if opts.budget else float("inf")
        self.stopped = ""   # why sampling stopped early ("" = it did not)
        self.cpu0 = self.self_cpu()
        self.prior = store.cost()   # measurements loaded (--from)
        self.dirty = set(grids)     # collectives measured since their last fit
        self.plans = {}             # coll -> its candidate runs
        self.failures = []          # the runs that failed: failed_run
        self.given_up = {}          # coll -> why its runs are not launched again


def grid_pairs(grids, algs):
    """(algorithm, point) pairs of the whole grid."""
    return sum(len(g.cells()) * len(algs[c]) for c, g in grids.items())
