"""The `collx` command's grammar, as data: one grammar for every command,

    collx COMMAND [CHOICE] ARGS...

where COMMAND is one of the commands below, CHOICE (for the commands that
have choices: plot pap, tables fft, report hier, tune validate) picks the
module, and ARGS go to that module's main(argv) (or the function named),
which parses them itself. cli.py builds its argparse parser from this
table and loads a command's module by name only when it runs (numpy and
matplotlib are needed only by the commands that use them); sweep/check.py
checks a sweep's "after" commands against it. Nothing of collx is
imported here."""


class Choice:
    """The second word of a command: its name, the module (and function,
    default main) it runs, its arguments and what it does (for --help)."""

    def __init__(self, name, module, args, about, func="main"):
        self.name, self.module, self.func = name, module, func
        self.args, self.about = args, about


class Command:
    """A first word: with module, a command of its own (its choices, if
    any, optional: `report DIR` is `report demo DIR`); without, a choice
    is required (`plot pap ...`). aliases: other spellings of the word."""

    def __init__(self, name, about, module=None, args="", choices=(), aliases=(),
                 func="main"):
        self.name, self.about, self.module, self.func = name, about, module, func
        self.args, self.choices, self.aliases = args, tuple(choices), tuple(aliases)

    def choice(self, word):
        return next((c for c in self.choices if c.name == word), None)


TARGET = "(--platform NAME -n P | --launch CMD | --real -n P)"

COMMANDS = (
    Command("sweep", "run, show or check the sweeps collx knows (collx sweep --list)",
            "collx.sweep.main",
            "NAME|FILE... [-o OUT] [--set K=V] [--dry-run] [--check] [--list]"),
    Command("report", "the demo report: DIR/report.md and PNGs", "collx.report", "DIR",
            choices=(Choice("demo", "collx.report", "DIR", "the same as report DIR"),
                     Choice("hier", "collx.tables.hier", "[DIR]",
                            "the hierarchical study: hier_tables.md, rules.json, PNGs"))),
    Command("plot", "a family's figures (and the tables beside them)", aliases=("plots",),
            choices=(Choice("pap", "collx.tables.pap",
                            "SWEEP.csv DIR [SCALING.csv] [--size K] [--delay MS]",
                            "PAP Figs. 14-17 (and pap_scaling.md)", func="plot_main"),
                     Choice("rma", "collx.tables.rma", "CSV DIR",
                            "tables.md and <platform>.png of the one-sided sweeps",
                            func="plot_main"),
                     Choice("topo", "collx.tables.topo", "[DIR]",
                            "tables.md and allgather_{ring,rd}.png of sweep topo",
                            func="plot_main"))),
    Command("tables", "a family's tables",
            choices=(Choice("pap", "collx.tables.pap", "CSV [-o MD]", "PAP Tables 3-4"),
                     Choice("fft", "collx.tables.fft", "DIR [-o MD]",
                            "PAP Table 5 (and DIR/fft.csv)"),
                     Choice("topo-demo", "collx.tables.topo", "DIR",
                            "DIR/summary.md of sweep topo-demo"),
                     Choice("cluster", "collx.tables.cluster", "DIR",
                            "DIR/tables.md and PNGs of the emulated-cluster sweeps"))),
    Command("model", "a family's cost model against its sweep",
            choices=(Choice("rma", "collx.models.rma", "LOGGP.csv SWEEP.csv OUT.md",
                            "the one-sided broadcast's LogGP model"),)),
    Command("tune", "measured rules (collx tune --help)", "collx.tune.main",
            f"{TARGET} [--colls ..] [--budget S] [--out rules.json] [--report DIR] [--grid]",
            choices=(Choice("validate", "collx.tune.validate", "--rules R (target) [--out DIR]",
                            "the same as validate"),)),
    Command("validate", "the rules on held-out points (collx validate --help)",
            "collx.tune.validate", f"--rules R {TARGET} [--out DIR]"),
    Command("rules", "is a rules file (COLLX_RULES) usable, and what it serves",
            "collx.rulesfile", "check FILE..."),
    Command("predict", "a program's time on an SMPI platform: native, tuned for its own "
            "calls, best single algorithm (collx predict --help)", "collx.predict",
            "--platform NAME -n P [--compute host|none] [--budget S] [--out DIR] -- PROGRAM"),
    Command("calibrate", "an SMPI platform fitted to the machine a launch runs on, and "
            "(--check) its predictions against real runs (collx calibrate --help)",
            "collx.calibrate.main",
            "--launch CMD --out DIR [--check] | --from DIR --out DIR"),
    Command("apps", "real applications from Debian: correct with every algorithm "
            "forced, timed end to end (collx apps --help)", "collx.apps.main",
            "list|setup|correct|time|report|quick [options]"),
)


def find(word):
    """The command a first word names (its name or an alias), or None."""
    return next((c for c in COMMANDS if word == c.name or word in c.aliases), None)


class NotACommand(ValueError):
    """argv is no collx command; the text says why."""


def resolve(argv):
    """(command, choice or None, module, function, the module's argv) of a
    command line (without the program name); NotACommand if it names no
    command."""
    if not argv or argv[0].startswith("-"):
        raise NotACommand("no command")
    cmd = find(argv[0])
    if cmd is None:
        raise NotACommand(f"no command '{argv[0]}'")
    ch = cmd.choice(argv[1]) if len(argv) > 1 else None
    if ch:
        return cmd, ch, ch.module, ch.func, argv[2:]
    if cmd.module:
        return cmd, None, cmd.module, cmd.func, argv[1:]
    raise NotACommand(f"which one? {'|'.join(c.name for c in cmd.choices)}"
                      + (f", not '{argv[1]}'" if len(argv) > 1 else ""))


def usage_lines():
    """The grammar, a line per command and choice (collx --help)."""
    out = []
    for c in COMMANDS:
        name = c.name + (f" ({', '.join(c.aliases)})" if c.aliases else "")
        if c.module:
            out.append((f"{name} {c.args}", c.about))
        for ch in c.choices:
            out.append((f"{c.name} {ch.name} {ch.args}", ch.about))
    return out
