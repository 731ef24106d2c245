"""python3 -m collx COMMAND ...: the package's commands, each a module's
main(argv) (imported only when used)."""
import importlib
import sys

# (command, family) or command -> module
COMMANDS = {
    "sweep": "collx.sweep.main",
    "report": "collx.report",
    ("report", "demo"): "collx.report",
    ("report", "hier"): "collx.tables.hier",
    ("plots", "pap"): "collx.plots.pap",
    ("plots", "rma"): "collx.plots.rma",
    ("plots", "topo"): "collx.plots.topo",
    ("tables", "pap"): "collx.tables.pap",
    ("tables", "fft"): "collx.tables.fft",
    ("tables", "topo-demo"): "collx.tables.topo",
    ("tables", "cluster"): "collx.tables.cluster",
    ("model", "rma"): "collx.models.rma",
    "tune": "collx.tune.main",
}

USAGE = """usage: python3 -m collx COMMAND ...   (PYTHONPATH=python)

  sweep NAME|FILE... [-o OUT] [--set K=V] [--dry-run] [--check] [--list]
                            run sweeps of python/collx/sweeps.json
  report [demo] DIR         the demo report: DIR/report.md and PNGs
  report hier DIR           the hierarchical study: hier_tables.md, rules.json, PNGs
  plots pap SWEEP.csv DIR [SCALING.csv] [--size K] [--delay MS]
  plots rma CSV DIR         tables.md and <platform>.png of the one-sided sweeps
  plots topo [DIR]          tables.md and allgather_{ring,rd}.png of sweep topo
  tables pap CSV [-o MD]    PAP Tables 3-4
  tables fft DIR [-o MD]    PAP Table 5 (and DIR/fft.csv)
  tables topo-demo DIR      DIR/summary.md of sweep topo-demo
  tables cluster DIR        DIR/tables.md and PNGs of the emulated-cluster sweeps
  model rma LOGGP.csv SWEEP.csv OUT.md   the one-sided broadcast's LogGP model
  tune (--platform NAME -n P | --launch CMD | --real -n P) [--colls ..] [--budget S]
       [--out rules.json] [--report DIR] [--grid]   measured rules (tune --help)
  tune validate --rules R (target) [--out DIR]   the rules on held-out points
"""


def dispatch(argv):
    """Runs one command; returns its exit status."""
    if argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(USAGE)
        return 0
    if len(argv) >= 2 and tuple(argv[:2]) in COMMANDS:
        module, rest = COMMANDS[tuple(argv[:2])], argv[2:]
    elif argv and argv[0] in COMMANDS:
        module, rest = COMMANDS[argv[0]], argv[1:]
    else:
        sys.stderr.write(USAGE)
        return 2
    return importlib.import_module(module).main(rest) or 0


def main():
    sys.exit(dispatch(sys.argv[1:]))
