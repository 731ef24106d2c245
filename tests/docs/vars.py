#!/usr/bin/python3
"""The COLLX_* variables are data (src/**/knobs.def, one table), and everyone says so.

usage: vars.py ROOT COLLX_INFO MPIEXEC [FLAGS...]

- `collx_info --vars --json` lists every variable once, each with a type, a
  range, a meaning and a default (or what happens unset); the values of
  the environment show (a size with a suffix, a clamped number, a value
  collx cannot use), and the message for the unusable ones names the
  variable and what it takes;
- `collx_info --vars` (text) names every one;
- the reference (docs/reference/variables.md, which tools/gen_reference.sh
  makes from collx_info) names every one;
- no file of src/ reads the environment but the knob mechanism (knobs.c).
Prints every problem; exit status 1 if any."""
import json
import os
import re
import subprocess
import sys

ROOT, INFO, MPIEXEC, FLAGS = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
sys.path.insert(0, os.path.join(ROOT, "python"))
from collx.tune.target import parse_info, tune_values  # noqa: E402  (as the tuner reads them)
ENV = {"COLLX_SHM_MAX": "1G", "COLLX_TOPO_REPS": "500", "COLLX_HIER_SENDERS": "abc",
       "COLLX_GATHERV_ALGORITHM": "nope"}
problems = []


def info(*args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLLX_")}
    env.update(ENV)
    r = subprocess.run([MPIEXEC, "-n", "1", *FLAGS, INFO, *args], capture_output=True,
                       text=True, timeout=120, env=env)
    if r.returncode:
        problems.append(f"collx_info {' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return r.stdout, r.stderr


out, err = info("--vars", "--json")
try:
    vars_ = json.loads(out)["vars"]
except (ValueError, KeyError) as e:
    sys.exit(f"collx_info --vars --json: not the expected JSON ({e}):\n{out}")
by = {v["name"]: v for v in vars_}
if len(by) != len(vars_):
    problems.append("a variable is listed twice")
if len(vars_) < 40:
    problems.append(f"only {len(vars_)} variables")
for v in vars_:
    if not re.fullmatch(r"COLLX_[A-Z0-9_]+", v["name"] or ""):
        problems.append(f"bad name {v['name']!r}")
    for field in ("family", "type", "range", "meaning"):
        if not v.get(field):
            problems.append(f"{v['name']}: no {field}")
    if v["default"] is None and not v["unset"]:
        problems.append(f"{v['name']}: neither a default nor what happens unset")
# (which ones are per-call is the declarations' to say, src/**/knobs.def: no
# copy of the list here; the rules' checks below hold for whichever they are)
if not any(v["per_call"] for v in vars_):
    problems.append("no per-call variable")


def want(name, field, value):
    got = by.get(name, {}).get(field)
    if got != value:
        problems.append(f"{name}: {field} {got!r}, want {value!r}")


want("COLLX_SHM_MAX", "value", str(1 << 30))
want("COLLX_SHM_MAX", "source", "environment")
want("COLLX_TOPO_REPS", "value", "100")
want("COLLX_HIER_SENDERS", "value", None)
want("COLLX_HIER_SENDERS", "source", "environment unusable: unset")
want("COLLX_GATHERV_ALGORITHM", "source", "environment, unusable")
want("COLLX_FALLBACK", "value", "silent")
want("COLLX_FALLBACK", "values", ["silent", "print", "error"])
for msg in ("collx: COLLX_TOPO_REPS=500 is outside the range (an integer in 1..100); using 100",
            "collx: COLLX_HIER_SENDERS=abc is not an integer in 1..4096; as if unset",
            "collx: COLLX_GATHERV_ALGORITHM=nope is not a gatherv algorithm; valid: native, "):
    if msg not in err:
        problems.append(f"no message {msg!r} in:\n{err}")

# The tuner's search space (./run tune tries these values with these
# algorithms): per-call knobs only, values the knob takes, registered algorithms.
algs_text, _ = info()
tuned = {n: v for n, v in by.items() if v.get("tune")}
if not tuned:
    problems.append("no variable gives the tuner values to try")
by_coll = {c: set(algs) for c, algs in parse_info(algs_text)}   # as the tuner reads it
for n, v in tuned.items():
    if not v["per_call"]:
        problems.append(f"{n}: tuned but a rule may not set it per call")
    for coll, values in tune_values(v["tune"]).items():
        if coll != "*" and coll not in by_coll:
            problems.append(f"{n}: tune names {coll!r}, not a collective")
        for x in values:
            scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(x[-1:], 1)
            digits = x[:-1] if scale > 1 else x
            if v["type"] in ("int", "size") and not (
                    digits.isdigit() and v["min"] <= int(digits) * scale <= v["max"]):
                problems.append(f"{n}: tune value {x!r} outside {v['range']}")
            if v["type"] == "algorithm" and not any(x in algs for algs in by_coll.values()):
                problems.append(f"{n}: tune value {x!r} is no registered algorithm")
    for a in (v.get("tune_algs") or "").split(","):
        if not any(a in algs for algs in by_coll.values()):
            problems.append(f"{n}: tune_algs names {a!r}, not a registered algorithm")

text, _ = info("--vars")
REFERENCE = "docs/reference/variables.md"
reference = open(os.path.join(ROOT, REFERENCE)).read()
for name in by:
    if not re.search(rf"^{name} \[", text, re.M):
        problems.append(f"collx_info --vars does not show {name}")
    pattern = "COLLX_<COLL>_ALGORITHM" if name.endswith("_ALGORITHM") else name
    if f"`{pattern}`" not in reference and f"`{pattern}=" not in reference:
        problems.append(f"{REFERENCE} does not name {pattern}")

for folder, _, files in os.walk(os.path.join(ROOT, "src")):
    for f in files:
        path = os.path.join(folder, f)
        if f.endswith((".c", ".h")) and f != "knobs.c" and "getenv(" in open(path).read():
            problems.append(f"{os.path.relpath(path, ROOT)} reads the environment itself")

for p in problems:
    print("vars:", p)
print(f"vars: {len(vars_)} variables, {len(problems)} problems")
sys.exit(1 if problems else 0)
