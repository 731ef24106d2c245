#!/usr/bin/python3
"""The `collx` command and the rules file format, in seconds:

- `collx --version` says the package's version, which is the project's;
- the grammar (collx/commands.py): every command and choice names a
  module and function that exist; `collx --help`, `collx COMMAND --help`
  and `collx COMMAND CHOICE --help` answer, exit 0; the old spellings
  (plots pap, report demo DIR, tune validate) run what the new ones do; an
  unknown command or choice gets the usage on stderr and exit 2; a command
  whose third-party package is missing says which, exit 2;
- `collx rules check` passes every shipped rules file (share/collx/rules)
  and fails, saying what is wrong, on a malformed file, a wrong format
  version, an unknown algorithm, a negative bound, an empty range and a
  "beyond" other than nearest or native; it says per collective and
  ranks per node the ranges a file serves and what runs beyond them;
- what the tuner writes (version, provenance, rules) passes the check and
  loads back;
- `collx rules check` says how much of a file rests on measurements (its
  provenance's evidence), names the rules that rest on none, and warns
  where none rests on a measured point; `collx tune --help` shows collx
  tune's own examples and `man collx-tune`, which is installed;
- the JSON Schema (share/collx/rules/rules.schema.json) and the checker
  agree on the keys, the collectives (= collx_info's) and the version
  (and, where jsonschema is installed, it accepts the shipped files);
- the tool finder (collx/tools.py) takes an explicit path, then
  $COLLX_BENCH_DIR, and says what it looked for where when nothing is
  found.

    test_cli.py REPO_ROOT COLLX_INFO PROJECT_VERSION"""
import glob
import json
import os
import re
import stat
import subprocess
import sys
import tempfile

ROOT, INFO, VERSION = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(ROOT, "python"))
ENV = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")}
SHIPPED = sorted(f for f in glob.glob(os.path.join(ROOT, "share", "collx", "rules", "*.json"))
                 if not f.endswith(".schema.json"))
SCHEMA = os.path.join(ROOT, "share", "collx", "rules", "rules.schema.json")
# the families' built-in rules (src/<family>/<name>.rules.json, compiled in)
BUILTIN = sorted(glob.glob(os.path.join(ROOT, "src", "*", "*.rules.json")))
failures = []


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def collx(*args, env=None):
    p = subprocess.run([sys.executable, "-m", "collx", *args], capture_output=True, text=True,
                       env=env or ENV, timeout=300)
    return p.returncode, p.stdout + p.stderr


from collx import commands, rulesfile, tools  # noqa: E402
from collx._version import __version__  # noqa: E402
from collx.tune import rules as tune_rules  # noqa: E402

# ---------------------------------------------------------------- version
rc, out = collx("--version")
expect(rc == 0 and out.strip() == f"collx {VERSION}",
       f"collx --version says the project's version {VERSION}: {out.strip()!r}")
expect(__version__ == VERSION, f"collx/_version.py {__version__} = project() {VERSION}")
rc, out = collx("--help")
expect(rc == 0 and all(f"\n  {c} " in out for c in ("sweep", "report", "tune", "validate",
                                                     "rules check")),
       "collx --help names sweep, report, tune, validate, rules check")

# ---------------------------------------------------------------- grammar
import importlib  # noqa: E402

for c in commands.COMMANDS:
    for module, func, words in ([(c.module, c.func, [c.name])] if c.module else []) + \
            [(ch.module, ch.func, [c.name, ch.name]) for ch in c.choices]:
        mod = importlib.import_module(module)
        expect(callable(getattr(mod, func, None)),
               f"collx {' '.join(words)}: {module}.{func} exists")
        rc, out = collx(*words, "--help")
        expect(rc == 0 and out.startswith("usage: collx"),
               f"collx {' '.join(words)} --help: exit {rc}, {out[:60]!r}")
    if c.choices:
        rc, out = collx(c.name, "--help")
        expect(rc == 0 and all(ch.name in out for ch in c.choices),
               f"collx {c.name} --help lists its choices: exit {rc}")
SAME = [(["plots", "pap", "a"], ["plot", "pap", "a"]), (["report", "demo", "D"], ["report", "D"]),
        (["tune", "validate", "--rules", "r"], ["validate", "--rules", "r"])]
for old, new in SAME:
    a, b = commands.resolve(old), commands.resolve(new)
    expect(a[2:] == b[2:], f"collx {' '.join(old)} runs what collx {' '.join(new)} does: "
           f"{a[2:]} / {b[2:]}")
expect(commands.resolve(["report", "hier", "D"])[2:] == ("collx.tables.hier", "main", ["D"]),
       "collx report hier DIR: the hierarchical study")
for bad in (["no-such-command"], ["plot"], ["plot", "no-such-choice"], []):
    p = subprocess.run([sys.executable, "-m", "collx", *bad], capture_output=True, text=True,
                       env=ENV, timeout=60)
    expect(p.returncode == 2 and p.stderr.startswith("usage: collx") and not p.stdout,
           f"collx {' '.join(bad)}: usage on stderr, exit 2 ({p.returncode}, {p.stderr[:80]!r})")
p = subprocess.run([sys.executable, "-c", "import sys; sys.modules['numpy'] = None; "
                    "sys.argv = ['collx', 'plot', 'rma', 'x.csv', 'out']; "
                    "from collx.cli import main; main()"],
                   capture_output=True, text=True, env=ENV, timeout=60)
expect(p.returncode == 2 and "collx plot rma: needs the Python package numpy" in p.stderr,
       f"a missing third-party package is named, exit 2: {p.returncode} {p.stderr[-200:]!r}")

# ---------------------------------------------------------------- shipped files
# (one check of every file against collx_info below; collx_info's runs are
# the slow part)
rc, out = collx("rules", "check", "-q", "--no-registry", *SHIPPED)
expect(rc == 0 and len(SHIPPED) >= 5, f"rules check --no-registry on the {len(SHIPPED)} shipped "
       f"files: exit {rc}" + ("" if rc == 0 else ":\n" + out[-2000:]))
expect("warning: no \"version\"" not in out and "no \"provenance\"" not in out,
       "every shipped file has its version and provenance")
for f in SHIPPED:   # what runs beyond the tuned ranges is said, not left to the default
    expect(json.load(open(f)).get("beyond") in ("nearest", "native"),
           f"{os.path.basename(f)} says what runs beyond its ranges (\"beyond\")")

# ---------------------------------------------------------------- bad files
GOOD_RULE = {"collective": "bcast", "algorithm": "binomial", "comm_size": {"min": 2}}
BAD = {
    "malformed": ('{"version": 1, "rules": [\n  {"collective": "bcast",}\n]}\n',
                  r"not JSON: line 2 column \d+: .*\n\s+-> fix the JSON"),
    "version": (json.dumps({"version": 2, "rules": [GOOD_RULE]}),
                r"\"version\": 2: this collx \(\S+\) reads rules files of format version 1\n"
                r"\s+-> a newer collx wrote it"),
    "algorithm": (rulesfile.dumps([GOOD_RULE, {"collective": "bcast",
                                               "algorithm": "no_such_alg"}]),
                  r"line \d+: rules\[1\]: \"no_such_alg\" is not a bcast algorithm of this "
                  r"collx\n\s+-> valid: .*binomial"),
    "negative": (rulesfile.dumps([{"collective": "allreduce", "algorithm": "native",
                                   "msg_size": {"min": -8, "max": 64}}]),
                 r"rules\[0\]\.msg_size\.min is -8: bounds are non-negative integers"),
    "empty-range": (rulesfile.dumps([{"collective": "allreduce", "algorithm": "native",
                                      "comm_size": {"min": 64, "max": 8}}]),
                    r"rules\[0\]\.comm_size: min 64 > max 8: the range holds nothing"),
    "beyond": (json.dumps({"version": 1, "beyond": "closest", "rules": [GOOD_RULE]}),
               r"\"beyond\": \"closest\": what serves a call outside every rule's ranges "
               r"is one of \"nearest\", \"native\"\n\s+-> \"nearest\" \(the default"),
}
# "beyond": "native" said, and what it means; a file that does not say: nearest
NATIVE_BEYOND = json.dumps({"version": 1, "beyond": "native", "rules": [
    {"collective": "allreduce", "algorithm": "recursive_doubling", "comm_size": {"min": 2, "max": 64},
     "msg_size": {"max": 65536}, "ranks_per_node": {"min": 8, "max": 8}},
    {"collective": "allreduce", "algorithm": "native", "comm_size": {"min": 2, "max": 7},
     "ranks_per_node": {"min": 2, "max": 7}}]})
with tempfile.TemporaryDirectory() as d:
    paths = {}
    native_beyond = os.path.join(d, "native-beyond.json")
    with open(native_beyond, "w") as f:
        f.write(NATIVE_BEYOND)
    for name, (text, _) in BAD.items():
        paths[name] = os.path.join(d, name + ".json")
        with open(paths[name], "w") as f:
            f.write(text)
    # ------------------------------------------------------------ the writer
    out_path = os.path.join(d, "tuned.json")
    prov = tune_rules.provenance("collx tune --test", kind="real", mpi="collx 0.1.0 for X",
                                 ranks=4, collectives=["bcast"], budget=None,
                                 comm_size={"min": 2, "max": 4}, msg_size={"min": 8, "max": 64})
    tune_rules.write(out_path, [GOOD_RULE, {"collective": "gatherv", "algorithm": "native"}],
                     prov)
    with open(out_path) as f:
        doc = json.load(f)
    expect(doc.get("beyond") == "nearest",
           f"the tuner says what serves calls beyond its ranges: \"beyond\": "
           f"{doc.get('beyond')!r}")
    expect(doc["version"] == 1 and doc["provenance"]["collx"] == VERSION and
           "budget" not in doc["provenance"] and
           re.match(r"\d{4}-\d\d-\d\dT", doc["provenance"]["date"]) is not None,
           f"the tuner writes version 1 and a provenance (collx, date; None left out): "
           f"{doc['provenance']}")
    expect(tune_rules.load(out_path) == [GOOD_RULE, {"collective": "gatherv",
                                                     "algorithm": "native"}],
           "its rules load back")

    # ------------------------------------------------------------ evidence (issue 62)
    # what each rule rests on (provenance.evidence, as the tuner writes it):
    # a file half measured, and one that rests on no measurement at all
    def with_evidence(name, counts):
        path = os.path.join(d, name)
        ev = {"fields": list(rulesfile.EVIDENCE_FIELDS), "rules": counts, "runs": 60,
              "runs_failed": 0, "pairs_measured": 10}
        tune_rules.write(path, [{"collective": "allreduce", "algorithm": "recursive_doubling",
                                 "comm_size": {"max": 2}},
                                {"collective": "allreduce", "algorithm": "native",
                                 "comm_size": {"min": 3, "max": 4}}],
                         tune_rules.provenance("collx tune --test", evidence=ev))
        return path
    half = with_evidence("half.json", [[3, 0, 1, 0, 2], [0, 0, 40, 0, 0]])
    bare = with_evidence("bare.json", [[0, 0, 2, 0, 0], [0, 0, 0, 60, 0]])
    one = os.path.join(d, "one.json")
    tune_rules.write(one, [GOOD_RULE], tune_rules.provenance("collx tune --test"))
    locked = os.path.join(d, "locked.json")
    tune_rules.write(locked, [GOOD_RULE], tune_rules.provenance("collx tune --test"))
    os.chmod(locked, 0)
    if os.geteuid() == 0:   # root reads it anyway: no permission test
        locked = None

    # ------------------------------------------------------------ one check of all
    files = SHIPPED + BUILTIN + [out_path, native_beyond, half, bare, one] + \
        ([locked] if locked else []) + list(paths.values())
    rc, out = collx("rules", "check", "--collx-info", INFO, *files)
    expect(rc == 1, f"rules check on good and bad files: exit 1 (got {rc})")
    blocks = {}
    for i, f in enumerate(files):   # each file's lines, up to the next file's
        start = out.find(f + ": ")
        end = min([out.find(g + ": ") for g in files[i + 1:] if out.find(g + ": ") > start]
                  or [len(out)])
        blocks[f] = out[start + len(f) + 1:end] if start >= 0 else ""
    expect(len(BUILTIN) >= 2, f"hier's built-in rules found: {BUILTIN}")
    for f in SHIPPED + BUILTIN:
        expect(blocks[f].startswith(" OK, format version 1") and
               (f in SHIPPED or "warning" not in blocks[f]),
               f"rules check passes {os.path.basename(f)}" +
               ("" if blocks[f].startswith(" OK") else f": {blocks[f][:1500]}"))
    fat = blocks[next(f for f in SHIPPED if f.endswith("fattree-256x16.json"))]
    expect(re.search(r"allreduce: \d+ rules, communicator sizes 1\.\.48, messages 0 B\.\.1 MiB",
                     fat) is not None, "the check says what a file serves (fattree-256x16: "
           "allreduce up to 48 ranks and 1 MiB)")
    expect(re.search(r"serves one node of 1\.\.\d+ ranks \(communicator size = ranks per "
                     r"node\), messages 0 B\.\.1 MiB\n\s+serves ranks per node 16: communicator "
                     r"sizes \d+\.\.48, messages 0 B\.\.1 MiB\n\s+beyond them: the nearest rule of "
                     r"the call's ranks per node \(with 16 ranks per node, communicator sizes "
                     r"above 48 as at 48 and messages above 1 MiB as at 1 MiB\); other ranks per "
                     r"node: native", fat) is not None and
           "(\"beyond\": \"nearest\")" in fat,
           "the check says, per ranks per node, the ranges a file serves and what runs beyond "
           f"them (fattree-256x16, \"beyond\": \"nearest\"):\n{fat[:1500]}")
    expect(blocks[out_path].startswith(" OK") and
           "bcast: 1 rule, communicator sizes 2 and up" in blocks[out_path] and
           "serves any ranks per node: communicator sizes 2 and up" in blocks[out_path] and
           "(\"beyond\": \"nearest\"): a call no rule matches runs the nearest rule's" in
           blocks[out_path],
           f"what the tuner writes passes the check and says \"beyond\": \"nearest\": "
           f"{blocks[out_path][:600]!r}")
    # issue 62: a rule counted as "resting on measured points" where any one
    # of its points was; now the grid points by class and each rule's share
    expect(blocks[half].startswith(" OK") and
           "evidence: of the 44 grid points the rules serve, 3 measured with alternatives, "
           "0 predicted, 41 at risk, 0 native alone; 2 within the noise" in blocks[half] and
           "rules: 0 of 2 with every grid point measured, 1 with some, 1 with none" in
           blocks[half] and
           re.search(r"rules\[0\]: allreduce recursive_doubling at communicator sizes 1\.\.2: "
                     r"3 of 4 grid points measured \(75 %\); 1 at risk; 2 within the noise",
                     blocks[half]) is not None and
           re.search(r"rules\[1\]: allreduce native at communicator sizes 3\.\.4: 0 of 40 grid "
                     r"points measured \(0 %\); 40 at risk", blocks[half]) is not None and
           "warning" not in blocks[half],
           f"rules check says how many grid points were measured, per class and per rule: "
           f"{blocks[half][:900]!r}")
    expect("evidence: of the 62 grid points the rules serve, 0 measured with alternatives, "
           "0 predicted, 2 at risk, 60 native alone" in blocks[bare] and
           "warning: no grid point the rules serve was measured" in blocks[bare],
           f"a file that rests on no measurement: said, and warned: {blocks[bare][:700]!r}")
    expect(blocks[one].startswith(" OK, format version 1, 1 rule\n"),
           f"one rule: \"1 rule\": {blocks[one][:80]!r}")
    msg = rulesfile.unreadable("r.json", PermissionError(13, "Permission denied"))
    expect(msg[0] == "cannot read r.json: permission denied" and "chmod" in msg[1],
           f"an unreadable file (as a user without root meets it): said in words: {msg}")
    if locked:
        expect("cannot read " + locked + ": permission denied" in blocks[locked] and
               "Errno" not in blocks[locked] and "chmod" in blocks[locked],
               f"an unreadable file: said in words, with a fitting hint: {blocks[locked]!r}")
    expect("evidence: not recorded" in blocks[out_path],
           "a file without evidence: not recorded, said")
    nb = blocks[native_beyond]
    expect(nb.startswith(" OK") and re.search(
        r"serves one node of 2\.\.7 ranks \(communicator size = ranks per node\), messages "
        r"0 B and up\n\s+serves ranks per node 8: communicator sizes 2\.\.64, messages "
        r"0 B\.\.64 KiB\n\s+beyond them: native\n", nb) is not None and
        "(\"beyond\": \"native\"): a call no rule matches runs native" in nb,
        f"\"beyond\": \"native\" is accepted and said per collective: {nb[:900]!r}")
    blocks = {name: blocks[paths[name]] for name in BAD}
    for name, (_, want) in BAD.items():
        expect(blocks[name].startswith(" FAILED") and re.search(want, blocks[name]),
               f"rules check fails on {name} and says why: {blocks[name].strip()[:300]!r}")
    # one bad file among good ones: exit 1 still
    rc, _ = collx("rules", "check", "-q", "--no-registry", SHIPPED[0], paths["version"])
    expect(rc == 1, "one bad file among good ones fails the check")

# ---------------------------------------------------------------- collx tune --help
# for a user of an installed collx (issue 62: it pointed to ./run tune and a
# README under python/ that an install does not have): collx tune examples,
# and the installed manual
rc, out = collx("tune", "--help")
intro = out.split("options:")[0]
expect(rc == 0 and "  collx tune --launch" in intro and "man collx-tune" in intro and
       not intro.split("usage:")[-1].split("\n\n", 2)[1].lstrip().startswith("./run"),
       f"collx tune --help: collx tune's examples and man collx-tune first:\n{intro[-1500:]}")
man = os.path.join(ROOT, "man", "collx-tune.1")
expect(os.path.exists(man) and "collx-tune.1" in open(os.path.join(ROOT, "CMakeLists.txt")).read(),
       "man/collx-tune.1 exists and is installed (CMakeLists.txt)")
if os.path.exists(man):
    page = open(man).read()
    expect(all(w in page for w in (".TH COLLX-TUNE 1", "\\-\\-launch", "collx rules check",
                                   "EXIT STATUS", "evidence", ".SH VALIDATE")),
           "the manual says the launch, rules check, the exit status, the evidence and "
           "collx validate")

# ---------------------------------------------------------------- no source files in help
# issue 62: collx --help named python/collx/sweeps.json; collx tune --help
# grid.py and collx/tools.py; collx validate --help was for a checkout
for words in (["--help"], ["tune", "--help"], ["validate", "--help"]):
    rc, out = collx(*words)
    src = re.findall(r"[\w/.]+\.py\b|python/collx|README\.md" +
                     (r"|\./run\b" if words[0] != "--help" else ""), out)
    expect(rc == 0 and not src, f"collx {' '.join(words)} names no source file: {src}")
rc, out = collx("validate", "--help")
expect("usage: collx validate" in out and "  collx validate --rules rules.json --launch" in out,
       f"collx validate --help: for an installed collx:\n{out[:600]}")

# ---------------------------------------------------------------- the schema
with open(SCHEMA) as f:
    schema = json.load(f)
rule = schema["$defs"]["rule"]["properties"]
expect(set(schema["properties"]) == set(rulesfile.TOP_KEYS),
       f"schema and checker: top-level keys {sorted(schema['properties'])}")
expect(set(rule) == set(rulesfile.RULE_KEYS), f"schema and checker: rule keys {sorted(rule)}")
expect(schema["properties"]["version"]["const"] == rulesfile.FORMAT_VERSION,
       "schema and checker: format version")
expect(set(rulesfile.PROVENANCE) <= set(schema["$defs"]["provenance"]["properties"]),
       "every provenance field the checker knows is in the schema")
info = subprocess.run([INFO], capture_output=True, text=True, timeout=120).stdout
colls = [line.split()[0] for line in info.splitlines() if line and not line.startswith(" ")]
expect(schema["$defs"]["collective"]["enum"] == colls == list(rulesfile.COLLECTIVES),
       f"schema, checker and collx_info list the same collectives: {colls}")
try:
    import jsonschema
except ImportError:
    print("skip jsonschema is not installed: the schema is not run on the files")
else:
    for f in SHIPPED:
        with open(f) as fh:
            errs = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(fh)))
        expect(not errs, f"jsonschema accepts {os.path.basename(f)}: {errs[:1]}")

# ---------------------------------------------------------------- tool finder
with tempfile.TemporaryDirectory() as d:
    fake = os.path.join(d, "collbench")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
    expect(tools.find("collbench", "openmpi", given=fake) == fake, "explicit path: used")
    try:
        tools.find("collbench", "openmpi", given=os.path.join(d, "nothing"))
        expect(False, "an explicit path that does not exist fails")
    except tools.ToolNotFound as e:
        expect("--collbench" in str(e) and "no such file" in str(e),
               f"an explicit path that does not exist: {e}")
    old = dict(os.environ)
    try:
        os.environ[tools.DIR_ENV] = d
        expect(tools.find("collbench", "nosuchmpi") == fake, "$COLLX_BENCH_DIR: used")
        os.environ.pop(tools.DIR_ENV)
        os.environ["PATH"] = os.path.join(d, "empty")
        try:
            tools.find("collx_info", "nosuchmpi")
            expect(False, "nothing found fails")
        except tools.ToolNotFound as e:
            msg = str(e)
            expect(all(w in msg for w in ("cannot find collx_info", "--collx-info: not given",
                                          "$COLLX_BENCH_DIR: not set",
                                          "build/nosuchmpi/bench/collx_info", "PATH: not on it",
                                          "To fix: give --collx-info PATH")),
                   f"nothing found: the message names every place looked at:\n{msg}")
    finally:
        os.environ.clear()
        os.environ.update(old)
    built = os.path.join(ROOT, "build", "openmpi", "bench", "collx_info")
    if os.path.exists(built) and tools.DIR_ENV not in os.environ:
        expect(tools.find("collx_info", "openmpi") == built, "from the checkout: its build")

if failures:
    print(f"{len(failures)} FAILED")
    sys.exit(1)
print("all passed")
