"""collx COMMAND ... (python3 -m collx; the console script of pyproject.toml
and the bin/collx that cmake --install writes): the package's commands,
each a module's main(argv) (imported only when used)."""
import importlib
import sys

# (command, family) or command -> module[:function] (default main)
COMMANDS = {
    "sweep": "collx.sweep.main",
    "report": "collx.report",
    ("report", "demo"): "collx.report",
    ("report", "hier"): "collx.tables.hier",
    ("plots", "pap"): "collx.tables.pap:plot_main",
    ("plots", "rma"): "collx.tables.rma:plot_main",
    ("plots", "topo"): "collx.tables.topo:plot_main",
    ("tables", "pap"): "collx.tables.pap",
    ("tables", "fft"): "collx.tables.fft",
    ("tables", "topo-demo"): "collx.tables.topo",
    ("tables", "cluster"): "collx.tables.cluster",
    ("model", "rma"): "collx.models.rma",
    "tune": "collx.tune.main",
    ("tune", "validate"): "collx.tune.validate",
    "rules": "collx.rulesfile",
}

# command -> the words it stands for
ALIASES = {"validate": ["tune", "validate"]}

USAGE = """usage: collx COMMAND ...   (from a checkout: ./run collx, or PYTHONPATH=python
       python3 -m collx; collx --version)

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
  validate ...              the same as tune validate
  rules check FILE...       is a rules file (COLLX_RULES) usable, and what it serves
Programs (collbench, collx_info) are found by --collbench/--collx-info,
$COLLX_BENCH_DIR, beside this collx (PREFIX/bin; a checkout's build), PATH.
"""


def dispatch(argv):
    """Runs one command; returns its exit status."""
    if argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(USAGE)
        return 0
    if argv[:1] in (["--version"], ["-V"]):
        from collx._version import __version__
        print(f"collx {__version__}")
        return 0
    if argv[:1] and argv[0] in ALIASES:
        argv = ALIASES[argv[0]] + argv[1:]
    if len(argv) >= 2 and tuple(argv[:2]) in COMMANDS:
        module, rest, name = COMMANDS[tuple(argv[:2])], argv[2:], " ".join(argv[:2])
    elif argv and argv[0] in COMMANDS:
        module, rest, name = COMMANDS[argv[0]], argv[1:], argv[0]
    else:
        sys.stderr.write(USAGE)
        return 2
    module, _, func = module.partition(":")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:   # a third-party package this command needs
        if (e.name or "").split(".")[0] == "collx":
            raise
        sys.stderr.write(f"collx {name}: needs the Python package {e.name}, "
                         f"which {sys.executable} lacks: pip install {e.name} (Debian: "
                         f"python3-{e.name}), or run collx with a Python that has it "
                         "(COLLX_PYTHON=/usr/bin/python3 for bin/collx)\n")
        return 2
    return getattr(mod, func or "main")(rest) or 0


def main():
    sys.exit(dispatch(sys.argv[1:]))
