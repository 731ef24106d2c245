"""collx demo report: reads what the sweeps of group `demo` (sweeps.json)
wrote into a results directory and writes DIR/report.md and PNG plots next
to it, one section per paper, each with the paper's published figures
beside ours (python/collx/published/), then real MPI on this machine, the
emulated cluster, the demo's tune step (measured selection: tuned vs
native vs oracle; tuner.py) and its applications step (apps.py).

    collx report results/<date>    (collx report demo DIR: the same)

A part whose data is missing is left out with one line naming the sweep
that makes it. CSV schema: bench/README.md. Every sweep_* file is rendered
(by the section of its platform's paper, or under 'Other SMPI sweeps'), so
new algorithms and new sweeps appear without changes here."""
import argparse
import os

from collx.report import apps, bhowmik, machines, parsons, paznikov, proficz, traff, tuner
from collx.report.sweeps import Sweeps


def sections(res):
    """The report's sections in order (papers first), None left out."""
    smpi = Sweeps(res)
    papers = [traff.section(res), proficz.section(res), paznikov.section(res, smpi),
              parsons.section(res, smpi), bhowmik.section(res, smpi)]
    rest = [machines.real_mpi(res), machines.emulated_cluster(res), tuner.section(res),
            apps.section(res), machines.other_sweeps(res, smpi)]
    return papers + [s for s in rest if s is not None]


def timings(res):
    path = os.path.join(res, "timings.txt")
    if not os.path.exists(path):
        return []
    return ["Wall time of the demo steps:", "", "```", open(path).read().rstrip(), "```", ""]


def main(argv):
    ap = argparse.ArgumentParser(prog="collx report", description="DIR/report.md and PNGs "
                                 "from what the sweeps of group demo wrote into DIR",
                                 epilog="collx report hier DIR: the hierarchical study "
                                 "(collx --help lists every command)")
    ap.add_argument("dir", metavar="DIR", help="a results directory (results/<date>)")
    res = ap.parse_args(argv).dir
    if not os.path.isdir(res):
        raise SystemExit(f"collx report: no directory {res}")
    secs = sections(res)
    summary = [s.summary() for s in secs]
    out = ["# collx demo report", "",
           "One section per paper: what it claims, this run's headline figure beside the "
           "paper's (**ours:**), where we miss it, then the tables. Published numbers: "
           "python/collx/published/. Made by `python3 -m collx report DIR` from the CSVs "
           "the sweeps of group `demo` wrote (`./run collx sweep --list`).", "",
           "## Summary", ""] + summary + [""] + timings(res)
    for s in secs:
        out += s.lines()
    with open(os.path.join(res, "report.md"), "w") as f:
        f.write("\n".join(out).rstrip("\n") + "\n")
    print("\n".join(summary))
