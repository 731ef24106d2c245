"""./run tune: measured automatic selection. Samples collbench on a target
(an SMPI platform or a real launch) where a cost model cannot tell the
winner, and writes a COLLX_RULES file of ranges (README.md here)."""
import os

# numpy's BLAS threads spin on the tuner's matrices of a few dozen rows:
# on 2 cores they took the tuner's own CPU from 24.5 to 38.5 s (SMPI
# replay of fattree-256x16 at 81 s), CPU the budget then lacked. Set before
# numpy is imported (the collbench runs inherit it and do not use BLAS).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
