"""./run tune: measured automatic selection. Samples collbench on a target
(an SMPI platform or a real launch) where a cost model cannot tell the
winner, and writes a COLLX_RULES file of ranges (README.md here)."""
