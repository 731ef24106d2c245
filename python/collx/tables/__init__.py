"""Markdown tables, one module per family (fft, hier, pap, rma, topo,
traff, cluster) and for any collbench sweep (sweep)."""
import argparse
import sys


def fmt(x):
    """A time in us for a table: whole above 100, one decimal below."""
    return "-" if x is None else (f"{x:.0f}" if x >= 100 else f"{x:.1f}")


def command(prog, source, make, argv):
    """A table command: SOURCE [-o OUT.md]; make(source) gives the lines,
    written to OUT.md or stdout."""
    ap = argparse.ArgumentParser(prog=prog)
    ap.add_argument(source)
    ap.add_argument("-o", "--out", help="markdown file (default: stdout)")
    o = ap.parse_args(argv)
    text = "\n".join(make(getattr(o, source))) + "\n"
    if o.out:
        with open(o.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
