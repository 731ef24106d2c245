"""Markdown tables, one module per family (fft, hier, pap, rma, topo)."""
