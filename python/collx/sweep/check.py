"""Checks a catalogue without running anything: every sweep and group
expands, every command line can be built, every collective and algorithm a
collbench run names is registered (collx_info lists the registry), every
SMPI platform and hostfile exists and has the slots, every "after" command
exists. Returns the problems found."""
import os
import subprocess

from collx import commands
from collx.sweep import launch
from collx.sweep.spec import SpecError

ALG_OPTIONS = ("--algs", "--guide-algs", "--g2-algs")


def option(args, name):
    return [args[i + 1] for i, a in enumerate(args[:-1]) if a == name]


def check_collbench(args, reg):
    problems = []
    colls = option(args, "--coll")
    if len(colls) != 1 or colls[0] not in reg:
        return [f"--coll {colls} is not one collective of collx_info's list"]
    coll = colls[0]
    regular = coll[:-1] if coll in ("gatherv", "scatterv") else coll
    for opt in ALG_OPTIONS:
        target = coll if opt == "--algs" else regular   # guidelines: the padded regular one
        for names in option(args, opt):
            for a in names.split(","):
                if a not in reg[target]:
                    problems.append(f"{opt}: {target} has no algorithm '{a}'")
    return problems


def slots(hostfile):
    total = 0
    with open(hostfile) as f:
        for line in f:
            if line.strip():
                name, _, n = line.strip().partition(":")
                total += int(n) if n else 1
    return total


def check_smpi(v):
    plats = os.path.join(v.text("root"), "sim", "platforms")
    plat = v.text("platform")
    if not os.path.exists(os.path.join(plats, plat + ".xml")):
        return [f"no SMPI platform '{plat}'"]
    hf = v.text("hostfile", "") or ""
    path = hf if hf and os.path.exists(hf) else \
        os.path.join(plats, f"{plat}.{hf}.hostfile" if hf else f"{plat}.hostfile")
    if not os.path.exists(path):
        return [f"no hostfile '{hf}' for {plat}"]
    if int(v.text("np")) > slots(path):
        return [f"{plat} ({hf or 'default hostfile'}) has {slots(path)} slots, np={v.text('np')}"]
    return []


def check_run(r, reg):
    v = r.vars
    try:
        cmd, env = launch.command(v)
    except (SpecError, ValueError, KeyError, subprocess.SubprocessError) as e:
        return [f"cannot build its command: {e}"]
    problems = check_smpi(v) if launch.engine(v) == "smpi" else []
    if v.text("program") == "collbench":
        problems += check_collbench([str(a) for a in v.render(v.data["args"])], reg)
    return problems


def check_sweep(s, reg):
    problems = [f"{s.name}: {r.label}: {p}" for r in s.runs for p in check_run(r, reg)]
    if not s.runs:
        problems.append(f"{s.name}: no runs")
    for argv in [s.vars.render(a) for a in s.spec.get("after", [])]:
        try:
            commands.resolve([str(a) for a in argv])
        except commands.NotACommand as e:
            problems.append(f"{s.name}: after: 'collx {' '.join(map(str, argv[:2]))}': {e}")
    return problems
