"""Figures, one module per family (demo, hier, pap, rma, topo)."""
