"""collx COMMAND [CHOICE] ARGS... (python3 -m collx; the console script of
pyproject.toml and the bin/collx that cmake --install writes).

argparse subcommands built from the grammar of commands.py: the first
word picks a command (`collx --help` lists them), the second a choice
where the command has some (`collx plot pap`, `collx tables fft`), and
the rest goes unparsed to the module's main(argv), which parses its own
options (`collx sweep --help`, `collx plot pap --help`). A command's
module is imported only when it runs, by name: this is the one module
that loads modules by name, and no module of collx imports it
(docs/design/python.md), so those loads close no import circle."""
import argparse
import importlib
import sys
import textwrap

from collx import commands
from collx._version import __version__

DESCRIPTION = """collx's measuring tools: sweeps, the demo report, plots and tables, cost
models, the tuner and the rules checker. From a checkout: ./run collx ...,
or PYTHONPATH=python python3 -m collx ..."""

FOOTER = """Old spellings kept: `plots` for plot, `report demo DIR` for report DIR,
`tune validate` for validate. Programs (collbench, collx_info) are found by
--collbench/--collx-info, $COLLX_BENCH_DIR, beside this collx (PREFIX/bin; a
checkout's build), PATH."""


def grammar():
    """The grammar as help text: a line per command and choice, what it
    does beside it or, where the line is long, below it."""
    out = ["every command (ARGS go to its own parser: collx COMMAND [CHOICE] --help):", ""]
    for left, about in commands.usage_lines():
        words = textwrap.wrap(left, 76, initial_indent="  ", subsequent_indent="      ")
        if len(words) == 1 and len(words[0]) < 28:
            out.append(f"{words[0]:<28}{about}")
        else:
            out += words + [f"{'':28}{about}"]
    return "\n".join(out + ["", FOOTER])


def parser():
    """The command line's parser: COMMAND, and CHOICE where it has some;
    what follows is the module's (REMAINDER). Returns it and the
    subparsers by command name."""
    raw = argparse.RawDescriptionHelpFormatter
    ap = argparse.ArgumentParser(prog="collx", description=DESCRIPTION, epilog=grammar(),
                                 formatter_class=raw)
    ap.add_argument("-V", "--version", action="version", version=f"collx {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", title="commands",
                            required=True)
    subs = {}
    for c in commands.COMMANDS:
        lines = [f"collx {c.name} {c.args}: {c.about}"] if c.module else []
        lines += [f"collx {c.name} {ch.name} {ch.args}: {ch.about}" for ch in c.choices]
        p = subs[c.name] = sub.add_parser(c.name, aliases=list(c.aliases), help=c.about,
                           prog=f"collx {c.name}", description="\n".join(lines),
                           formatter_class=raw)
        if c.choices:
            p.add_argument("choice", nargs="?" if c.module else None,
                           choices=[ch.name for ch in c.choices],
                           metavar="|".join(ch.name for ch in c.choices))
        p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS",
                       help="the command's own arguments (collx "
                       f"{c.name}{' CHOICE' if c.choices else ''} --help)")
    return ap, subs


def dispatch(argv):
    """Runs one command line (without the program name); returns its exit
    status. No command: the parser's help, version or error (exit 2)."""
    try:
        cmd, choice, module, func, rest = commands.resolve(argv)
    except commands.NotACommand as e:
        ap, subs = parser()
        cmd = commands.find(argv[0]) if argv else None
        if cmd is None:
            ap.parse_args(argv[:1])   # prints the help or the version, or the error: exits
        elif argv[1:2] in (["-h"], ["--help"]):
            subs[cmd.name].print_help()
            return 0
        else:
            subs[cmd.name].error(str(e))   # exits
        ap.print_usage(sys.stderr)
        return 2
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:   # a third-party package this command needs
        if (e.name or "").split(".")[0] == "collx":
            raise
        name = cmd.name + (f" {choice.name}" if choice else "")
        sys.stderr.write(f"collx {name}: needs the Python package {e.name}, "
                         f"which {sys.executable} lacks: pip install {e.name} (Debian: "
                         f"python3-{e.name}), or run collx with a Python that has it "
                         "(COLLX_PYTHON=/usr/bin/python3 for bin/collx)\n")
        return 2
    return getattr(mod, func)(rest) or 0


def main():
    sys.exit(dispatch(sys.argv[1:]))
