"""Markdown tables, one module per family (fft, hier, pap, rma, topo)."""
import argparse
import sys


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
