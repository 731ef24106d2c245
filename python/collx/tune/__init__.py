"""./run tune: measured automatic selection. Samples collbench on a target
(an SMPI platform or a real launch) where a cost model cannot tell the
winner, and writes a COLLX_RULES file of ranges (README.md here).

Two classes are put together from parts, a module each with one job.
sampler.Sampler: sampler_budget.py (what is spent, what fits, what a
gain at a point counts), sampler_runs.py (batches and failed runs),
sampler_design.py (the initial design, screening), sampler_phases.py
(the budget split, natives, a profile's points, --grid) and
sampler_guided.py (the guided rounds). decide.Decider: decide_estimate.py
(fits and estimates), decide_sigma.py (uncertainty), decide_choice.py
(evidence and the choice), decide_smooth.py (smoothing over message
sizes), decide_risk.py (comparisons at risk, for the sampler) and
decide_alternatives.py (within the noise, candidates, regret, setup).
sampler.py and decide.py keep the class, its __init__ and every name
callers import; report.write writes report.md a section per function."""
import os

# numpy's BLAS threads spin on the tuner's matrices of a few dozen rows:
# on 2 cores they took the tuner's own CPU from 24.5 to 38.5 s (SMPI
# replay of fattree-256x16 at 81 s), CPU the budget then lacked. Set before
# numpy is imported (the collbench runs inherit it and do not use BLAS).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
