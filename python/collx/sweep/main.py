"""python3 -m collx sweep: run, show or check sweeps of sweeps.json."""
import argparse
import json
import os
import shlex
import sys

from collx import info as collx_info, tools
from collx.sweep import check, launch, spec
from collx.sweep.runner import Runner, assign_cells

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

USAGE = """Run the sweeps NAME... (a sweep or a group of sweeps.json, a JSON file
holding one sweep or a catalogue; "all" = every sweep, for --list,
--dry-run and --check):

  python3 -m collx sweep pap -o results/pap --set iters=128
  python3 -m collx sweep demo -o results/today --set real_np=8
  python3 -m collx sweep hier --set np=256 --set coll=allgather --dry-run
  python3 -m collx sweep --check all

--set NAME=V1,V2 narrows or replaces an axis, or sets a variable (see
python/collx/sweep/spec.py). Environment: JOBS (parallel SMPI runs, default
the number of cores), COLLX_MPI (openmpi|mpich: the real MPI)."""


def parse(argv):
    ap = argparse.ArgumentParser(prog="collx sweep", description=USAGE,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", metavar="NAME|FILE")
    ap.add_argument("-o", "--out", help="output folder (a group: one subfolder per member)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUES")
    ap.add_argument("-j", "--jobs", type=int,
                    default=int(os.environ.get("JOBS") or os.cpu_count() or 2))
    ap.add_argument("--resume", action="store_true", help="keep cells whose CSV exists")
    ap.add_argument("--log", help="folder of the runs' logs (default results/log/NAME)")
    ap.add_argument("--timings", help="append one line per run (name, seconds) to this file")
    ap.add_argument("--list", action="store_true", help="list sweeps and groups")
    ap.add_argument("-n", "--dry-run", action="store_true", help="show the runs, run nothing")
    ap.add_argument("--check", action="store_true",
                    help="check the sweeps (algorithms registered, platforms ...), run nothing")
    ap.add_argument("--info", "--collx-info", dest="info",
                    help="collx_info listing the algorithms (default: as collx/tools.py "
                    "finds it; from a checkout build/$COLLX_MPI)")
    return ap.parse_args(argv)


def catalogue(names):
    """The catalogue with the JSON files among names added; the names."""
    cat = spec.load()
    out = []
    for n in names:
        if n.endswith(".json") and os.path.exists(n):
            with open(n) as f:
                extra = json.load(f)
            if "sweeps" in extra:
                cat["sweeps"].update(extra["sweeps"])
                cat["groups"].update(extra.get("groups", {}))
                out += list(extra["sweeps"])
            else:
                name = os.path.splitext(os.path.basename(n))[0]
                cat["sweeps"][name] = extra
                out.append(name)
        elif n == "all":
            out += list(cat["sweeps"])
        else:
            out.append(n)
    return cat, out


def overrides(pairs):
    out = {}
    for p in pairs:
        if "=" not in p:
            raise spec.SpecError(f"--set wants NAME=VALUES, not '{p}'")
        k, v = p.split("=", 1)
        out[k] = spec.parse_values(v)
    return out


def expand(cat, names, sets, out):
    """Every sweep to run, members of groups with their subfolders and
    their own settings; a --set must mean something to one of them."""
    base = {"root": ROOT, "mpi": os.environ.get("COLLX_MPI", "openmpi")}
    sweeps, used = [], set()
    for n in names:
        for name, sub, member_set in spec.members(cat, n):
            mine = {**{k: spec.parse_values(v) for k, v in member_set.items()}}
            s_spec = spec.resolve(cat, name)
            plain, axes, entries = spec.names(s_spec)
            known = plain | axes | entries | set(base) | set(cat["defaults"])
            for k, v in sets.items():
                if k in known:
                    mine[k] = v
                    used.add(k)
            o = None if out is None else os.path.join(out, sub)
            sweeps.append(spec.expand(cat, name, base, mine, o))
    unused = set(sets) - used
    if unused:
        raise spec.SpecError(f"no sweep of {' '.join(names)} has a setting {', '.join(sorted(unused))}")
    return sweeps


def show(sweeps):
    assign_cells(sweeps, "$TMP")
    for s in sweeps:
        print(f"# {s.name}: {len(s.runs)} runs -> {s.vars.text('out')}")
        for label, why in s.skipped:
            print(f"#   skipped {label}: {why}")
        for r in s.runs:
            cmd, env = launch.command(r.vars)
            env = {k: v for k, v in env.items() if k in r.vars.render(r.vars.data["env"])
                   or k in ("SIM_HOSTFILE", "LD_PRELOAD")}
            where = r.vars.text("csv")
            print(f"{r.label}:" + "".join(f" {k}={shlex.quote(v)}" for k, v in env.items())
                  + " " + " ".join(shlex.quote(c) for c in cmd)
                  + (f"  -> {where}" if where else ""))


def listing(cat):
    for kind, table in (("group", cat["groups"]), ("sweep", cat["sweeps"])):
        for name, s in table.items():
            about = s.get("about", "")
            print(f"{kind:5s} {name:14s} {about[:100]}{'...' if len(about) > 100 else ''}")


def run_checks(cat, sweeps, info):
    mpi = tools.default_mpi()
    try:
        info = tools.find("collx_info", mpi, info)
    except tools.ToolNotFound as e:
        print(f"collx sweep --check: {e}", file=sys.stderr)
        return 2
    reg = collx_info.registry(info, launch.mpi_setup(ROOT, mpi)[1] if tools.checkout() else {})
    assign_cells(sweeps, "$TMP")
    problems = []
    for s in sweeps:
        found = check.check_sweep(s, reg)
        print(f"check {s.name}: {len(s.runs)} runs, {len(s.skipped)} skipped"
              + (f", {len(found)} problems" if found else ": OK"))
        problems += found
    for g in cat["groups"]:
        try:
            expand(cat, [g], {}, None)
        except spec.SpecError as e:
            problems.append(f"group {g}: {e}")
    for p in problems:
        print("PROBLEM", p)
    print(f"check: {len(sweeps)} sweeps, {sum(len(s.runs) for s in sweeps)} runs, "
          f"{len(problems)} problems: {'FAILED' if problems else 'OK'}")
    return 1 if problems else 0


def main(argv):
    o = parse(argv)
    try:
        cat, names = catalogue(o.names)
        if o.list:
            listing(cat)
            return 0
        if not names:
            raise spec.SpecError("which sweep? (--list)")
        sweeps = expand(cat, names, overrides(o.set), o.out)
        if o.check:
            return run_checks(cat, sweeps, o.info)
        if o.dry_run:
            show(sweeps)
            return 0
    except spec.SpecError as e:
        print(f"collx sweep: {e}", file=sys.stderr)
        return 2
    missing = sorted({launch.program_path(r.vars) for s in sweeps for r in s.runs
                      if not os.path.exists(launch.program_path(r.vars))})
    if missing:
        print("collx sweep: build first (./run build): missing " + ", ".join(missing),
              file=sys.stderr)
        return 2
    for s in sweeps:
        raise_sysctl(s)
    log = o.log or os.path.join(ROOT, "results", "log", "-".join(o.names))
    runner = Runner(sweeps, o.jobs, log, o.timings, o.resume)
    todo = runner.plan()
    runner.say(f"{len(todo)} runs of {', '.join(s.name for s in sweeps)} "
               f"({o.jobs} SMPI runs at a time); logs in {log}")
    failed = runner.run()
    runner.say(f"finished: {len(todo) - failed} of {len(todo)} runs done"
               + (f", {failed} FAILED" if failed else ""))
    return 1 if failed else 0


def raise_sysctl(s):
    """A sweep's kernel limits (SMPI maps shared receive buffers 1 MiB at a
    time: p = 4096 needs more maps than Linux's default)."""
    if not s.runs:
        return
    for key, want in s.spec.get("sysctl", {}).items():
        path = "/proc/sys/" + key.replace(".", "/")
        with open(path) as f:
            if int(f.read()) >= want:
                continue
        if os.geteuid() == 0:
            with open(path, "w") as f:
                f.write(str(want))
        else:
            print(f"collx sweep: {key} is low; large runs may abort (sysctl -w {key}={want})",
                  file=sys.stderr)
