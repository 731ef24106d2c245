#!/usr/bin/env python3
"""The core's rooms depend one way (docs/design/layers.md).

    layers.py SRC_DIR [OBJECT_DIR [PROGRAMS_OBJECT_DIR]]

Checks, and fails naming every breach:
- every file of src/core lies in a room (src/core/<room>/);
- includes: a file of a room includes its own room's files, and of a room
  below it only that room's header (<room>/<room>.h; api's: HEADERS),
  never a room above;
  a family (src/<family>/) includes the headers of util, engine and select
  (its API face, api_*.c, also call's); the interposer (src/pmpi) any room
  header;
- links (with OBJECT_DIR, the build's CMakeFiles/collx_objs.dir/src): a
  room's objects call no function defined in a room above, and a family's
  none above select (its API face: call), so an extern declaration cannot
  go round the headers; no room uses any symbol (function or data) a
  family defines: the core reaches the families only through the table
  generated above it (cx_families, cmake/catalogue.cmake);
- a call's decision stays in select: no room above it calls the steps of
  the decision (DECISION_STEPS); they ask cx_decide_call, and online
  tuning answers through the policy hook it registers.
- the simulator seam: only SEAM's files tell the SMPI build from a real
  MPI's with the preprocessor (#if on SMPI_H or COLLX_SMPI); the rest
  is one build (what differs: NAME.smpi.c / NAME.mpi.c, chosen by CMake);
- programs (PROGRAMS_OBJECT_DIR: bench/'s objects, collx_info and the
  benchmarks) use no data symbol of the library, only functions: a
  program that copies a table of the library into its own data
  (a copy relocation) crashes once the library is rebuilt with a larger
  one ("Symbol cx_knob_decls has different size");
- programs' sources (bench/, next to SRC_DIR) include collx's headers of
  include/ (collx.h, collx_tools.h) and their own, never a file of src/.
Prints the rooms with their files and lines, what each may include, and
the number of includes and calls checked.
"""
import os
import re
import subprocess
import sys

ROOMS = ["util", "engine", "select", "stats", "online", "call", "persist", "api"]
LEVEL = {r: i for i, r in enumerate(ROOMS)}
FAMILY_TOP = "select"      # what a family's algorithms may reach
FAMILY_API_TOP = "call"    # a family's API face (api_*.c): it dispatches
# The steps of a call's decision (select/decide_call.c): rooms above select
# ask for the whole decision (cx_decide_call), never make one themselves.
DECISION_ROOM = "select"
DECISION_STEPS = {"cx_select", "cx_select_global", "cx_select_rules", "cx_select_forced",
                  "cx_decide", "cx_fell_back", "cx_validate", "cx_settings_differ",
                  "cx_settings_native"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# The seam (util/sim.h) and the Fortran bindings, whose symbols are each
# MPI's own (SMPI's among them).
SEAM = {"core/util/sim.h", "pmpi/fortran.c", "pmpi/fortran_complete.c"}
BUILD_IF = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif)\b.*\b(SMPI_H|COLLX_SMPI)\b", re.M)


# api's one header is the SMPI start and end hooks, for the interposer's
# Fortran MPI_INIT/MPI_FINALIZE (api/smpi_finalize.smpi.c).
HEADERS = {"api": "api/smpi_hooks.h"}


def room_header(room):
    return HEADERS.get(room, f"{room}/{room}.h")


def core_target(path, core):
    """(room, path inside core) of an included file, or None outside core."""
    rel = os.path.relpath(os.path.normpath(path), core)
    if rel.startswith(".."):
        return None
    return rel.split(os.sep)[0], rel.replace(os.sep, "/")


def check_includes(src, problems):
    core = os.path.join(src, "core")
    checked = 0
    for name in sorted(os.listdir(core)):
        if not os.path.isdir(os.path.join(core, name)):
            problems.append(f"src/core/{name}: outside every room")
        elif name not in LEVEL:
            problems.append(f"src/core/{name}/: not a room of {ROOMS}")
    for top in sorted(os.listdir(src)):
        d = os.path.join(src, top)
        if not os.path.isdir(d):
            continue
        for dirpath, _, files in os.walk(d):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                p = os.path.join(dirpath, f)
                here = os.path.relpath(p, src)
                if top == "core":
                    me = ("room", os.path.relpath(p, core).split(os.sep)[0])
                elif top == "pmpi":
                    me = ("pmpi", None)
                else:
                    me = ("family", FAMILY_API_TOP if f.startswith("api_") else FAMILY_TOP)
                for inc in INCLUDE.findall(open(p, encoding="utf-8").read()):
                    t = core_target(os.path.join(dirpath, inc), core)
                    if t is None or not os.path.exists(os.path.join(dirpath, inc)):
                        continue   # not core's (or a system/include/ header)
                    checked += 1
                    room, path = t
                    kind, mine = me
                    if kind == "room" and room == mine:
                        continue
                    if path != room_header(room):
                        problems.append(f"src/{here}: includes src/core/{path}, inside room "
                                        f"{room}; include its header {room_header(room)}")
                    elif kind == "room" and LEVEL[room] > LEVEL[mine]:
                        problems.append(f"src/{here}: room {mine} includes {room}, a room "
                                        "above it")
                    elif kind == "family" and LEVEL[room] > LEVEL[mine]:
                        problems.append(f"src/{here}: a family includes {room}; families "
                                        f"reach up to {mine}")
    return checked


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRC":
            defined.add(parts[2])
    return defined, used


def check_links(src, objdir, problems):
    objs = {}
    for dirpath, _, files in os.walk(objdir):
        for f in files:
            rel = os.path.relpath(os.path.join(dirpath, f), objdir).split(os.sep)
            # (an object whose source moved away is an old build's: skipped)
            if f.endswith(".o") and os.path.exists(os.path.join(src, *rel)[:-len(".o")]):
                objs[os.path.join(dirpath, f)] = rel
    owner = {}
    family_owner = {}   # what the families define (functions and data)
    table = {}
    for p, rel in objs.items():
        defined, used = symbols(p)
        table[p] = used
        if rel[0] == "core":
            for s in defined:
                owner[s] = rel[1]
        elif rel[0] != "pmpi":
            for s in defined:
                family_owner[s] = rel[0]
    checked = 0
    for p, rel in sorted(objs.items()):
        if rel[0] == "pmpi":
            continue
        name = "/".join(rel)[:-len(".o")]
        if rel[0] == "core":
            top, what = rel[1], f"room {rel[1]}"
        else:
            top = FAMILY_API_TOP if rel[-1].startswith("api_") else FAMILY_TOP
            what = "a family"
        for s in sorted(table[p]):
            if rel[0] == "core" and s in family_owner:
                checked += 1
                problems.append(f"src/{name}: room {rel[1]} uses {s} of family "
                                f"{family_owner[s]}: the core reaches a family only through "
                                "its descriptor in the generated table (cx_families)")
                continue
            room = owner.get(s)
            if room is None:
                continue
            checked += 1
            if LEVEL[room] > LEVEL[top]:
                problems.append(f"src/{name}: {what} calls {s} of room {room}, above it")
            elif (rel[0] == "core" and s in DECISION_STEPS and room == DECISION_ROOM
                  and LEVEL[top] > LEVEL[DECISION_ROOM]):
                problems.append(f"src/{name}: {what} calls {s}, a step of a call's "
                                "decision; ask select's cx_decide_call")
    return checked, len(objs)


def check_programs(objdir, progdir, problems):
    """Programs' undefined cx_ symbols that the library defines as data."""
    data = set()
    for dirpath, _, files in os.walk(objdir):
        for f in files:
            if f.endswith(".o"):
                out = subprocess.run(["nm", os.path.join(dirpath, f)], capture_output=True,
                                     text=True, check=True).stdout
                data.update(p[2] for p in (line.split() for line in out.splitlines())
                            if len(p) == 3 and p[1] in "DBRC")
    checked = 0
    for dirpath, _, files in os.walk(progdir):
        for f in files:
            if not f.endswith(".o"):
                continue
            _, used = symbols(os.path.join(dirpath, f))
            for s in sorted(used):
                if s.startswith(("cx_", "CX_")):
                    checked += 1
                    if s in data:
                        problems.append(f"{os.path.relpath(os.path.join(dirpath, f), progdir)}:"
                                        f" uses the library's data symbol {s}; ask a function")
    return checked


def summary(src):
    core = os.path.join(src, "core")
    print(f"{'room':8} {'files':>5} {'lines':>6}  may include")
    for r in ROOMS:
        d = os.path.join(core, r)
        files = [f for f in os.listdir(d) if f.endswith((".c", ".h"))] if os.path.isdir(d) else []
        lines = sum(sum(1 for _ in open(os.path.join(d, f), encoding="utf-8")) for f in files)
        below = ", ".join(room_header(x) for x in ROOMS[:LEVEL[r]] if x != "api") or "-"
        print(f"{r:8} {len(files):>5} {lines:>6}  {below}")


def check_seam(src, problems):
    """Files outside SEAM whose preprocessor tells the builds apart."""
    n = 0
    for dirpath, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h", ".cpp")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            n += 1
            if rel not in SEAM and BUILD_IF.search(open(path).read()):
                problems.append(f"src/{rel}: #if on the SMPI build outside the seam "
                                "(util/sim.h: CX_SIMULATED, or a NAME.smpi.c / NAME.mpi.c)")
    return n


def check_program_includes(src, problems):
    """Quoted includes of bench/ that are neither bench's own nor include/'s."""
    root = os.path.dirname(os.path.abspath(src))
    bench, public = os.path.join(root, "bench"), os.path.join(root, "include")
    n = 0
    for f in sorted(os.listdir(bench)):
        if not f.endswith((".c", ".h")):
            continue
        for inc in INCLUDE.findall(open(os.path.join(bench, f), encoding="utf-8").read()):
            n += 1
            if not any(os.path.isfile(os.path.join(d, inc)) for d in (bench, public)):
                problems.append(f"bench/{f}: includes \"{inc}\", not a header of bench/ or "
                                "include/ (programs ask collx_tools.h, never a core room)")
    return n


def main():
    src = sys.argv[1]
    problems = []
    summary(src)
    n = check_includes(src, problems)
    print(f"{n} includes of core headers checked")
    print(f"{check_seam(src, problems)} sources checked for the SMPI build's #ifs")
    print(f"{check_program_includes(src, problems)} includes of bench/ checked")
    if len(sys.argv) > 2:
        calls, nobj = check_links(src, sys.argv[2], problems)
        print(f"{calls} calls into core rooms checked in {nobj} objects")
    if len(sys.argv) > 3:
        n = check_programs(sys.argv[2], sys.argv[3], problems)
        print(f"{n} uses of the library by programs checked")
    for p in problems:
        print("LAYERS:", p)
    print("OK" if not problems else f"{len(problems)} breaches")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
