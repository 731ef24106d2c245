"""The rules file (COLLX_RULES, src/core/select/rules.c): its format version, its
provenance, its text (dumps; the one writer of files is tune/rules.py),
and `collx rules check FILE...`.

    {"version": 1,
     "provenance": {"command": "collx tune ...", "collx": "0.1.0", "date": ..., ...},
     "rules": [{"collective": "bcast", "algorithm": "binomial",
                "comm_size": {"min": 2, "max": 64}, "msg_size": {"max": 65536}}, ...]}

The format is described by share/collx/rules/rules.schema.json (JSON
Schema) and share/collx/rules/README.md; the checker here follows the same
structure by hand (no third-party package needed) and, given collx_info
(collx/tools.py finds it), checks names against this collx's registry as
collx's own loader would. Version 1 is what collx 0.1.0 reads; a file
without "version" (written before it was versioned, or online tuning's
cache) is read as version 1."""
import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys

from collx import info as collx_info, mpifile, tools
from collx._version import __version__

FORMAT_VERSION = 1

# Top-level keys: collx reads "version", "rules" and "beyond"; online tuning's
# cache file (src/core/online/online_cache.c) is a rules file with "comment"
# and "fingerprint".
TOP_KEYS = ("version", "provenance", "beyond", "rules", "comment", "fingerprint")
# "beyond": what serves a call outside every rule's ranges (src/core/select/rules.c):
# "nearest" (the default: the nearest rule with the same ranks per node, else
# native) or "native"
BEYOND = ("nearest", "native")
BEYOND_DEFAULT = "nearest"
# A rule's keys: rules.c refuses any other.
RULE_KEYS = ("collective", "algorithm", "comm_size", "msg_size", "ranks_per_node", "params",
             "candidates", "comment")
RANGES = ("comm_size", "msg_size", "ranks_per_node")
RANGE_LIMIT = 2 ** 62   # rules.c: bounds below 2^62
COLLECTIVES = ("barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather",
               "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce", "allreduce",
               "reduce_scatter", "reduce_scatter_block", "scan", "exscan")
# Sizes only some ranks know (rules.c is_v): no candidates (online tuning).
V_COLLECTIVES = frozenset(("gatherv", "scatterv", "allgatherv", "alltoallv", "alltoallw",
                           "reduce_scatter"))
# ... and no msg_size but for those whose counts every rank is given, whose
# msg_size is the mean block (rules_pick.c mean_sized).
UNSIZED = V_COLLECTIVES - {"allgatherv", "reduce_scatter"}
# provenance's fields (all optional; others allowed) -> their JSON type
PROVENANCE = {"command": "string", "collx": "string", "collx_commit": "string",
              "date": "string", "target": "string", "kind": "string", "platform": "string",
              "mpi": "string", "machine": "object", "ranks": "integer",
              "ranks_per_node": "integer", "collectives": "array", "comm_size": "range",
              "msg_size": "range", "budget": "number", "budget_clock": "string",
              "mode": "string", "margin": "number", "note": "string", "evidence": "object",
              "mpi_tuning": "object"}
# provenance.evidence (collx tune writes it; tune/report.py: evidence): per
# rule, in the file's order, how many of the grid points it serves its
# choice rests on by class (one meaning of "measured" everywhere: the
# choice, native and at least one other algorithm measured there, and no
# algorithm left unmeasured that may beat the choice), and at how many a
# choice is within the noise (another run could choose otherwise). A file
# from before (issue 62's first pass) has "choice_measured" in place of
# "within_noise": read, not counted.
EVIDENCE_FIELDS = ("measured", "predicted", "at_risk", "native_alone", "within_noise")
# the classes a grid point falls in (within_noise is across them), as said
EVIDENCE_CLASSES = (("measured", "measured with alternatives"), ("predicted", "predicted"),
                    ("at_risk", "at risk"), ("native_alone", "native alone"))


# ---------------------------------------------------------------- the text

def git_commit():
    """The checkout's commit (with -dirty), where collx runs from one."""
    root = tools.checkout()
    if not root or not os.path.isdir(os.path.join(root, ".git")):
        return None
    try:
        out = subprocess.run(["git", "-C", root, "describe", "--always", "--dirty"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def provenance(command, **fields):
    """A "provenance" block: the command, this collx and when, then fields
    (those that are None left out)."""
    p = {"command": command, "collx": __version__}
    commit = git_commit()
    if commit:
        p["collx_commit"] = commit
    p["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    p.update({k: v for k, v in fields.items() if v is not None})
    return p


def dumps(rules, prov=None, beyond=None):
    """The file's text: version, provenance, "beyond" (when given: what
    serves calls outside every rule's ranges, BEYOND), one rule per line (a
    diff shows what changed)."""
    if beyond is not None and beyond not in BEYOND:
        raise ValueError(f"beyond must be one of {', '.join(BEYOND)}, not {beyond!r}")
    head = '{"version": %d,\n' % FORMAT_VERSION
    if prov:
        head += ' "provenance": {\n' + ",\n".join(
            f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in prov.items()) + "\n },\n"
    if beyond is not None:
        head += f' "beyond": {json.dumps(beyond)},\n'
    return head + ' "rules": [\n' + ",\n".join("  " + json.dumps(r) for r in rules) + "\n]}\n"


# ---------------------------------------------------------------- evidence

def evidence_of(ev, n):
    """[{field: count}] per rule of a provenance "evidence" block that
    matches a file of n rules, or a str saying why there is none to read."""
    if ev is None:
        return "not recorded (a file from before collx tune recorded it, or not written by it)"
    per = ev.get("rules") if isinstance(ev, dict) else None
    fields = ev.get("fields", list(EVIDENCE_FIELDS)) if isinstance(ev, dict) else None
    if not isinstance(per, list) or not isinstance(fields, list) or not all(
            isinstance(x, list) and len(x) == len(fields) and all(is_int(v) for v in x)
            for x in per):
        return "unreadable (provenance.evidence.rules: a list of counts per rule)"
    if len(per) != n:
        return (f"recorded for {len(per)} rules, the file has {n}: edited after tuning? "
                "(tune again for evidence that matches)")
    return [dict(zip(fields, x)) for x in per]


def points_of(counts):
    """The grid points a rule's counts cover (every class; within_noise is
    across them)."""
    return sum(counts.get(k, 0) for k, _ in EVIDENCE_CLASSES)


def measured_share(counts):
    """(grid points measured with alternatives, grid points) of a rule."""
    return counts.get("measured", 0), points_of(counts)


def evidence_totals(ev, per):
    """{field: count} over the grid points the rules serve, each once: a
    rule between grid points (ev["between"]) counts the points around it,
    which other rules serve, and is left out."""
    skip = set(ev.get("between") or ()) if isinstance(ev, dict) else set()
    out = {k: 0 for k, _ in EVIDENCE_CLASSES}
    out["within_noise"] = 0
    for i, c in enumerate(per):
        if i not in skip:
            for k in out:
                out[k] += c.get(k, 0)
    return out, any("within_noise" in c for c in per)


def classes_text(counts, noise=True):
    """ "10 measured with alternatives, 0 predicted, 2 at risk, 8 native
    alone; 4 within the noise" of {field: count}."""
    out = ", ".join(f"{counts.get(k, 0)} {name}" for k, name in EVIDENCE_CLASSES)
    return out + (f"; {counts.get('within_noise', 0)} within the noise" if noise else "")


def evidence_text(ev, rules):
    """ "of the 20 grid points they serve: 10 measured with alternatives,
    ...; 4 within the noise" of a provenance "evidence" block (as the tuner
    writes it) and its rules."""
    per = evidence_of(ev, len(rules))
    if isinstance(per, str):
        return "evidence " + per
    tot, noise = evidence_totals(ev, per)
    return (f"of the {points_of(tot)} grid points they serve: " + classes_text(tot, noise)
            + "; " + shares_text(per, len(rules)))


def shares_text(per, n):
    """ "rules: 1 of 3 with every grid point measured, 1 with some, 1 with
    none" of evidence_of's answer."""
    share = [measured_share(c) for c in per]
    whole = sum(1 for got, k in share if k and got == k)
    none = sum(1 for got, _ in share if not got)
    return (f"rules: {whole} of {n} with every grid point measured, "
            f"{n - whole - none} with some, {none} with none")


# ---------------------------------------------------------------- checking

def unreadable(path, e):
    """(message, hint) for a rules file that cannot be read (issue 62: "[Errno
    13] Permission denied" and "give the path of a rules file")."""
    import errno
    if isinstance(e, UnicodeDecodeError):
        return (f"cannot read {path}: not UTF-8 text (byte {e.start})",
                "a rules file is JSON text, as collx tune writes it")
    if e.errno in (errno.EACCES, errno.EPERM):
        return (f"cannot read {path}: permission denied",
                "make it readable (chmod u+r) for the user who runs the check and the "
                "application")
    if e.errno == errno.ENOENT:
        return f"cannot read {path}: no such file", "give the path of a rules file"
    if e.errno == errno.EISDIR:
        return (f"cannot read {path}: a directory, not a rules file",
                f"give the rules file in it, e.g. {os.path.join(path, 'rules.json')}")
    return (f"cannot read {path}: {(e.strerror or str(e)).lower()}",
            "give the path of a readable rules file")



def article(word):
    """'an' before a collective whose name starts with a vowel (allreduce,
    alltoall, exscan), 'a' otherwise."""
    return "an" if word[:1] in "aeiou" else "a"


class Registry:
    """What this collx has: {collective: {algorithm}} and the per-call
    knobs {name: collx_info --vars entry}, from collx_info; None where no
    collx_info could answer (names then go unchecked, and why says why)."""

    def __init__(self, info=None, find=True):
        self.algs = self.knobs = self.version = None
        self.why = "not asked (--no-registry)" if not find else None
        if not find:
            return
        try:
            path = tools.find("collx_info", given=info)
        except tools.ToolNotFound as e:
            self.why = str(e)
            return
        try:
            self.algs = collx_info.registry(path)
            vars_ = json.loads(self.run(path, "--vars", "--json"))["vars"]
            self.knobs = {v["name"]: v for v in vars_ if v.get("per_call")}
        except (OSError, ValueError, KeyError, subprocess.SubprocessError) as e:
            self.algs = self.knobs = None
            self.why = f"{path} failed: {e}"
            return
        first = self.run(path, "--version", check=False).splitlines()[:1]
        self.version = first[0] if first and first[0].startswith("collx ") else None

    @staticmethod
    def run(path, *args, check=True):
        try:
            p = subprocess.run([path, *args], capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.SubprocessError):
            if check:
                raise
            return ""
        if check and p.returncode:
            raise subprocess.SubprocessError(f"exit {p.returncode}: {p.stderr.strip()[-300:]}")
        return p.stdout


def positions(text):
    """(top-level key -> line, [line of each element of "rules"]) of a
    document that parses: messages name lines as collx's loader does."""
    dec = json.JSONDecoder()
    line = lambda i: text.count("\n", 0, i) + 1   # noqa: E731
    ws = " \t\r\n"
    keys, rule_lines = {}, []
    i = len(text) - len(text.lstrip(ws))
    if text[i:i + 1] != "{":
        return keys, rule_lines
    i += 1
    while True:
        while text[i] in ws + ",":
            i += 1
        if text[i] == "}":
            return keys, rule_lines
        key, i = dec.raw_decode(text, i)
        keys[key] = line(i)
        while text[i] in ws + ":":
            i += 1
        if key == "rules" and text[i] == "[":
            j = i + 1
            while True:
                while text[j] in ws + ",":
                    j += 1
                if text[j] == "]":
                    break
                rule_lines.append(line(j))
                _, j = dec.raw_decode(text, j)
        _, i = dec.raw_decode(text, i)


def is_int(v):
    return not isinstance(v, bool) and (isinstance(v, int) or
                                        (isinstance(v, float) and v.is_integer()))


def type_ok(v, want):
    return {"string": lambda: isinstance(v, str), "object": lambda: isinstance(v, dict),
            "array": lambda: isinstance(v, list), "integer": lambda: is_int(v),
            "number": lambda: isinstance(v, (int, float)) and not isinstance(v, bool),
            "range": lambda: isinstance(v, dict)}[want]()


def human(n):
    for unit, size in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


class Check:
    """The findings on one file: errors (collx would refuse it, or a
    version this collx does not read), warnings (it loads, but...), and
    what it serves."""

    def __init__(self, path, reg):
        self.path, self.reg = path, reg
        self.errors, self.warnings, self.serves = [], [], []
        self.doc, self.lines = None, ([], [])
        self.skipped = None

    def error(self, what, fix=None):
        self.errors.append(what + (f"\n    -> {fix}" if fix else ""))

    def warn(self, what):
        self.warnings.append(what)

    def where(self, i):
        lines = self.lines[1]
        return f"line {lines[i]}: rules[{i}]" if i < len(lines) else f"rules[{i}]"

    def run(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            self.error(*unreadable(self.path, e))
            return self
        twice = []

        def no_twice(pairs):   # collx drops a rule that names a key twice
            keys = [k for k, _ in pairs]
            twice.extend(k for k in set(keys) if keys.count(k) > 1)
            return dict(pairs)
        try:
            self.doc = json.loads(text, object_pairs_hook=no_twice)
        except json.JSONDecodeError as e:
            self.error(f"not JSON: line {e.lineno} column {e.colno}: {e.msg}",
                       "fix the JSON there (collx reads strict JSON: no comments, no "
                       "trailing commas, double quotes)")
            return self
        if not isinstance(self.doc, dict):
            self.error("the document must be an object like {\"version\": 1, \"rules\": [...]}")
            return self
        if "$schema" in self.doc and "rules" not in self.doc:
            self.skipped = "a JSON Schema (the format's description), not a rules file"
            return self
        self.lines = positions(text)
        for k in sorted(set(twice)):
            self.error(f"\"{k}\" given twice in one object",
                       "keep one (collx drops a rule that names a key twice)")
        self.top()
        rules = self.doc.get("rules")
        if isinstance(rules, list):
            for i, r in enumerate(rules):
                self.rule(i, r)
            if not self.errors:
                self.shadowed(rules)
                self.summary(rules)
        return self

    def top(self):
        d = self.doc
        for k in d:
            if k not in TOP_KEYS:
                self.warn(f"line {self.lines[0].get(k, '?')}: unknown top-level key \"{k}\" "
                          f"(known: {', '.join(TOP_KEYS)}); collx ignores it - misspelt?")
        if "version" not in d:
            self.warn(f"no \"version\": read as version {FORMAT_VERSION} (add "
                      f"\"version\": {FORMAT_VERSION}; collx tune writes it)")
        elif not is_int(d["version"]) or d["version"] != FORMAT_VERSION:
            v = d["version"]
            newer = is_int(v) and v > FORMAT_VERSION
            self.error(f"line {self.lines[0].get('version', '?')}: \"version\": "
                       f"{json.dumps(v)}: this collx ({__version__}) reads rules files of "
                       f"format version {FORMAT_VERSION}",
                       "a newer collx wrote it: use that collx, or tune again with this one"
                       if newer else f"the version is the integer {FORMAT_VERSION}")
        if "beyond" in d and d["beyond"] not in BEYOND:
            self.error(f"line {self.lines[0].get('beyond', '?')}: \"beyond\": "
                       f"{json.dumps(d['beyond'])[:60]}: what serves a call outside every "
                       f"rule's ranges is one of {', '.join(map(json.dumps, BEYOND))}",
                       "\"nearest\" (the default: the nearest rule with the call's ranks "
                       "per node, else native) or \"native\"")
        if "provenance" not in d:
            self.warn("no \"provenance\": nothing says where and how these rules were "
                      "measured (collx tune writes it)")
        elif not isinstance(d["provenance"], dict):
            self.error("\"provenance\" must be an object (share/collx/rules/rules.schema.json)")
        else:
            for k, want in PROVENANCE.items():
                v = d["provenance"].get(k)
                if v is None and k in d["provenance"]:
                    self.error(f"provenance.{k} is null", "leave the field out instead")
                elif v is not None and not type_ok(v, want):
                    self.error(f"provenance.{k} must be {'an' if want[0] in 'aio' else 'a'} "
                               f"{want}, not {json.dumps(v)[:60]}")
                elif want == "range":
                    self.range_(f"provenance.{k}", v, None)
        if "rules" not in d or not isinstance(d["rules"], list):
            self.error("the document needs a \"rules\" array (collx refuses the file "
                       "without one)", "add \"rules\": [...] (an empty list: native "
                       "everywhere)")
        elif not d["rules"]:
            self.warn("no rules: every collective runs native")

    def range_(self, where, v, coll):
        if v is None:
            return
        if not isinstance(v, dict):
            self.error(f"{where} must be an object like {{\"min\": 1, \"max\": 64}}, "
                       f"not {json.dumps(v)[:60]}")
            return
        for k, b in v.items():
            if k not in ("min", "max"):
                self.error(f"{where} takes only \"min\" and \"max\", not \"{k}\"")
            elif not is_int(b) or not 0 <= b < RANGE_LIMIT:
                self.error(f"{where}.{k} is {json.dumps(b)}: bounds are non-negative "
                           f"integers (below 2^62)",
                           "leave a bound out for a range open on that side")
        lo, hi = v.get("min", 0), v.get("max")
        if is_int(lo) and is_int(hi) and lo >= 0 and hi >= 0 and lo > hi:
            self.error(f"{where}: min {lo} > max {hi}: the range holds nothing",
                       "bounds are inclusive: swap them or fix one")

    def rule(self, i, r):
        at = self.where(i)
        if not isinstance(r, dict):
            self.error(f"{at}: a rule must be an object")
            return
        for k in r:
            if k not in RULE_KEYS:
                self.error(f"{at}: unknown key \"{k}\" (collx refuses it)",
                           f"a rule takes {', '.join(RULE_KEYS)}")
        c, a = r.get("collective"), r.get("algorithm")
        if not isinstance(c, str) or not isinstance(a, str):
            self.error(f"{at}: a rule needs \"collective\" and \"algorithm\" strings")
            return
        colls = self.reg.algs or dict.fromkeys(COLLECTIVES)
        if c not in colls:
            self.error(f"{at}: unknown collective \"{c}\"", f"one of {', '.join(colls)}")
            return
        known = self.reg.algs and self.reg.algs[c]
        if known and a not in known:
            self.error(f"{at}: \"{a}\" is not {article(c)} {c} algorithm of this collx",
                       f"valid: {', '.join(sorted(known))} (collx_info lists them)")
        for k in RANGES:
            self.range_(f"{at}.{k}", r.get(k), c)
        if c in UNSIZED and "msg_size" in r:
            self.error(f"{at}: msg_size cannot select {article(c)} {c} algorithm (only the root knows "
                       "the sizes)", "use comm_size or ranks_per_node")
        self.params(at, r.get("params"))
        cands = r.get("candidates")
        if cands is not None:
            if not isinstance(cands, list):
                self.error(f"{at}.candidates must be an array of algorithm names")
            elif c in V_COLLECTIVES:
                self.error(f"{at}.candidates: online tuning does not tune {c} (only the "
                           "root knows the sizes)", "leave candidates out")
            else:
                for x in cands:
                    if not isinstance(x, str) or (known and x not in known):
                        self.error(f"{at}.candidates: {json.dumps(x)} is not {article(c)} {c} "
                                   "algorithm" + (" of this collx" if known else ""),
                                   f"valid: {', '.join(sorted(known))}" if known else None)

    def params(self, at, ps):
        if ps is None:
            return
        if not isinstance(ps, dict):
            self.error(f"{at}.params must be an object like {{\"COLLX_HIER_INTER\": \"bruck\"}}")
            return
        knobs = self.reg.knobs
        for k, v in ps.items():
            if knobs is not None and k not in knobs:
                self.error(f"{at}.params: \"{k}\" is not a variable a rule may set",
                           f"a rule may set {', '.join(sorted(knobs))}")
                continue
            if isinstance(v, bool) or not isinstance(v, (str, int, float)):
                self.error(f"{at}.params: {k} must be a string or a number, not "
                           f"{json.dumps(v)}")
                continue
            d = (knobs or {}).get(k)
            if not d:
                continue
            if d["type"] == "enum" and str(v) not in d.get("values", []):
                self.error(f"{at}.params: {k}={v} is not {d['range']}")
            elif d["type"] == "int":
                n = _int_or_none(v) if isinstance(v, str) else v
                if not is_int(n) or not d["min"] <= n <= d["max"]:
                    self.error(f"{at}.params: {k}={v} is not {d['range']}")

    def evidence(self, rules, ev, most=5):
        """How much of the file rests on measurements (provenance.evidence):
        the grid points the rules serve by class, the rules by the share of
        their grid points measured with alternatives, those not wholly
        measured named (up to most), and a warning where no grid point was
        measured."""
        per = evidence_of(ev, len(rules))
        if isinstance(per, str):
            self.serves.append("evidence: " + per)
            return
        tot, noise = evidence_totals(ev, per)
        self.serves.append(f"evidence: of the {points_of(tot)} grid points the rules serve, "
                           + classes_text(tot, noise) +
                           (" (another tuning run could choose otherwise there)"
                            if noise and tot["within_noise"] else ""))
        share = [measured_share(c) for c in per]
        none = [i for i, (got, n) in enumerate(share) if not got]
        part = [i for i, (got, n) in enumerate(share) if got and got < n]
        self.serves.append("  " + shares_text(per, len(rules)))
        for i in (part + none)[:most]:
            r, c = rules[i], per[i]
            got, n = share[i]
            rest = ", ".join(f"{c[k]} {name}" for k, name in EVIDENCE_CLASSES[1:] if c.get(k))
            self.serves.append(
                f"  {self.where(i)}: {r['collective']} {r['algorithm']} at communicator sizes "
                f"{span_text(*bounds(r, 'comm_size', 1))}" +
                (f", messages {span_text(*bounds(r, 'msg_size', 0), human)}"
                 if "msg_size" in r else "") +
                f": {got} of {n} grid point{'s' if n != 1 else ''} measured "
                f"({100 * got / n if n else 0:.0f} %)" + (f"; {rest}" if rest else "") +
                (f"; {c['within_noise']} within the noise" if c.get("within_noise") else ""))
        if len(part + none) > most:
            self.serves.append(f"  and {len(part + none) - most} more")
        if rules and not tot["measured"]:
            self.warn("no grid point the rules serve was measured with alternatives: the "
                      "tuner measured nothing these rules could be sure of (tune again with "
                      "a larger --budget, or see its report)")

    def shadowed(self, rules):
        """Rules an earlier rule of their collective covers in every range:
        first match wins, so they never pick."""
        def bounds(r, k):
            b = r.get(k) or {}
            return b.get("min", 0), b.get("max", float("inf"))
        for i, r in enumerate(rules):
            for j in range(i):
                e = rules[j]
                if e["collective"] == r["collective"] and all(
                        bounds(e, k)[0] <= bounds(r, k)[0] and bounds(r, k)[1] <= bounds(e, k)[1]
                        for k in RANGES):
                    self.warn(f"{self.where(i)} never picks: rules[{j}] before it matches "
                              "everything it matches (the first match wins)")
                    break

    def summary(self, rules):
        p = self.doc.get("provenance") or {}
        made = [x for x in (p.get("date", "")[:10] or None,
                            p.get("collx") and f"collx {p['collx']}",
                            p.get("target"), p.get("mpi")) if x]
        if made:
            self.serves.append("made: " + "; ".join(made))
        self.evidence(rules, p.get("evidence") if isinstance(p, dict) else None)
        if p.get("mpi") and self.reg.version and \
                p["mpi"].split(" for ")[-1] != self.reg.version.split(" for ")[-1]:
            self.warn(f"measured with {p['mpi']}; this collx_info is {self.reg.version}: "
                      "the choices may not carry over (tune again on this MPI)")
        beyond = self.doc.get("beyond", BEYOND_DEFAULT)
        by = {}
        for r in rules:
            by.setdefault(r["collective"], []).append(r)
        for c, rs in by.items():
            algs = {}
            for r in rs:
                algs[r["algorithm"]] = algs.get(r["algorithm"], 0) + 1
            picks = ", ".join(f"{a} ({n})" for a, n in sorted(algs.items(), key=lambda x: -x[1]))
            sized = any("msg_size" in r for r in rs)
            q0, q1 = hull([bounds(r, "comm_size", 1) for r in rs])
            m0, m1 = hull([bounds(r, "msg_size", 0) for r in rs])
            parts = [f"{len(rs)} rule{'s' if len(rs) > 1 else ''}",
                     "communicator sizes " + span_text(q0, q1)]
            if sized:
                parts.append("messages " + span_text(m0, m1, human))
            if any("ranks_per_node" in r for r in rs):
                parts.append("ranks per node " + span_text(*hull(
                    [bounds(r, "ranks_per_node", 1) for r in rs])))
            self.serves.append(f"{c}: " + ", ".join(parts) + f"; picks {picks}")
            bands = served(rs)
            for (n0, n1), qs, ms, diagonal in bands:
                if diagonal:
                    where = f"one node of {span_text(n0, n1)} ranks (communicator size = " \
                            "ranks per node)"
                elif (n0, n1) == (1, INF):
                    where = "any ranks per node: communicator sizes " + union_text(qs)
                else:
                    where = f"ranks per node {span_text(n0, n1)}: communicator sizes " + \
                        union_text(qs)
                self.serves.append(f"  serves {where}" +
                                   (f", messages {union_text(ms, human)}" if sized else ""))
            self.serves.append("  beyond them: " + beyond_text(beyond, bands, sized))
        rest = [c for c in (self.reg.algs or COLLECTIVES) if c not in by]
        if rest:
            self.serves.append(f"no rule (native): {', '.join(rest)}")
        self.serves.append(
            f"beyond the ranges above (\"beyond\": \"{beyond}\"" +
            ("" if "beyond" in self.doc else ", the default when a file does not say") + "): " +
            ("a call no rule matches runs the nearest rule's algorithm among the rules of its "
             "ranks per node, and native where none has them" if beyond == "nearest" else
             "a call no rule matches runs native"))


INF = float("inf")


def bounds(r, key, floor):
    """(lo, hi) of a rule's range key: absent bounds open (lo at floor)."""
    b = r.get(key) or {}
    return max(b.get("min", floor), floor), b.get("max", INF)


def hull(spans):
    return min(lo for lo, _ in spans), max(hi for _, hi in spans)


def merge(spans):
    """Integer intervals [(lo, hi)] -> their union, sorted, adjacent ones joined."""
    out = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def span_text(lo, hi, fmt=str):
    if hi == INF:
        return f"{fmt(lo)} and up"
    return fmt(lo) if lo == hi else f"{fmt(lo)}..{fmt(hi)}"


def union_text(spans, fmt=str, most=6):
    words = [span_text(lo, hi, fmt) for lo, hi in spans]
    return ", ".join(words[:most]) + (f" and {len(words) - most} more ranges"
                                      if len(words) > most else "")


def served(rules):
    """What a collective's rules serve, by ranks per node: [((n0, n1), the
    communicator sizes, the message sizes (unions of intervals), diagonal)]
    over the ranks-per-node values where some rule holds, those with equal
    sizes merged; diagonal: a run of one-node bands (communicator size =
    ranks per node: the sizes inside one node, each with its own node
    size, as the tuner writes them)."""
    rpn = [bounds(r, "ranks_per_node", 1) for r in rules]
    cuts = sorted({lo for lo, _ in rpn} | {hi + 1 for _, hi in rpn if hi != INF})
    elems = [(a, b - 1) for a, b in zip(cuts, cuts[1:])] + [(cuts[-1], INF)]
    bands = []
    for n0, n1 in elems:
        on = [r for r, (lo, hi) in zip(rules, rpn) if lo <= n0 and n1 <= hi]
        if not on:
            continue
        qs = merge([bounds(r, "comm_size", 1) for r in on])
        ms = merge([bounds(r, "msg_size", 0) for r in on])
        one = qs == [(n0, n1)] or (n0 == 1 and len(qs) == 1 and qs[0][1] == n1 != INF)
        if bands and bands[-1][0][1] + 1 == n0 and bands[-1][2] == ms and (
                (one and bands[-1][3]) or (not one and not bands[-1][3] and
                                           bands[-1][1] == qs)):
            (b0, _), bq, _, _ = bands[-1]
            bands[-1] = ((b0, n1), merge(bq + qs), ms, one)
        else:
            bands.append(((n0, n1), qs, ms, one))
    return bands


def beyond_text(beyond, bands, sized):
    """What runs outside a collective's ranges, in words."""
    if beyond == "native":
        return "native"
    edges = []
    for (n0, n1), qs, ms, diagonal in bands:
        top_q, top_m = qs[-1][1], ms[-1][1]
        if diagonal or (top_q == INF and (not sized or top_m == INF)):
            continue
        what = []
        if top_q != INF:
            what.append(f"communicator sizes above {top_q} as at {top_q}")
        if sized and top_m != INF:
            what.append(f"messages above {human(top_m)} as at {human(top_m)}")
        edges.append(("with " if (n0, n1) == (1, INF) else
                      f"with {span_text(n0, n1)} ranks per node, ") + " and ".join(what))
    every = merge([n for n, *_ in bands]) == [(1, INF)]
    return "the nearest rule of the call's ranks per node" + \
        (f" ({'; '.join(edges)})" if edges else "") + \
        ("" if every else "; other ranks per node: native")


def _int_or_none(text):
    try:
        return int(text)
    except ValueError:
        return None


def check_file(path, reg):
    return Check(path, reg).run()


def looks_like_json(path):
    """Whether the file starts as JSON does (a collx rules file): the rest
    are checked as the MPIs' tuning files, whose errors name their line."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(4096).lstrip()[:1] in ("{", "[")
    except (OSError, UnicodeDecodeError):
        return True   # check_file says why it cannot be read


def check_mpi_file(path, quiet=False):
    """Prints the check of an MPI's own tuning file; 1 if it has problems."""
    kind, probs, lines = mpifile.check(path)
    if kind is None:
        print(f"{path}: FAILED, not a rules file collx or an MPI reads")
        print(f"  ERROR {probs[0]}")
        return 1
    what = {mpifile.OPENMPI: "Open MPI coll/tuned dynamic rules (coll_tuned_dynamic_rules_"
            "filename)", mpifile.MPICH: "MPICH selection JSON (MPIR_CVAR_COLL_SELECTION_"
            "TUNING_JSON_FILE)", mpifile.SMPI: "SMPI options (sim/run's SMPI_OPTIONS_FILE; "
            "smpirun's --cfg=)", mpifile.IMPI: "Intel MPI I_MPI_ADJUST_ variables (its "
            "environment: collxrun --rules, or set -a; . FILE)"}[kind]
    print(f"{path}: {'FAILED' if probs else 'OK'}, {what}")
    for p in probs:
        print(f"  ERROR {p}")
    if not quiet:
        for line in lines:
            print(f"  {line}")
        print("  run with: " + " ".join(f"{k}={shlex.quote(v)}" for k, v in
                                        mpifile.env_for(kind, path).items()))
    return 1 if probs else 0


def mpi_tuning_lines(prov):
    """(lines, warnings, errors): what a rules file says of the MPI's own
    tuning file it was decided against (provenance.mpi_tuning), whether
    that file is there, and whether the MPI can read it (a cut file: the
    MPI would run without it and without a word)."""
    mt = prov.get("mpi_tuning") if isinstance(prov, dict) else None
    if not isinstance(mt, dict):
        return [], [], []
    f = mt.get("file")
    if not f or not os.path.exists(f):
        return [], [], [f"provenance.mpi_tuning: the MPI's own tuning file {f} is not there: "
                    "collxrun --rules refuses to run without it (collx's rules were decided "
                    "against native tuned by it)"]
    kind, probs, _ = mpifile.check(f)
    if probs:
        return [], [], [f"provenance.mpi_tuning: the MPI's own tuning file {f}: {p}"
                        for p in probs]
    if mt.get("mpi") == mpifile.SMPI:   # no collxrun in SMPI: sim/run reads the file
        return [f"decided against SMPI tuned by {f}; run both with " +
                " ".join(f"{k}={v}" for k, v in mt.get("env", {}).items()) +
                " COLLX_RULES=<this file> sim/run ..."], [], []
    return [f"decided against the MPI tuned by {f} ({mt.get('mpi')}); collxrun --rules "
            "sets " + ", ".join(mt.get("env", {}))], [], []


USAGE = """Checks rules files (COLLX_RULES) as collx would load them, and says what
each serves. Format: share/collx/rules/README.md, rules.schema.json there.

  collx rules check FILE...              exit 0: every file loads; 1: one does not
  collx rules check --collx-info PATH F  the collx_info whose algorithms to check against
"""


def main(argv):
    ap = argparse.ArgumentParser(prog="collx rules", description=USAGE,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", metavar="check")
    c = sub.add_parser("check", help="check rules files and say what they serve")
    c.add_argument("files", nargs="+", metavar="FILE")
    c.add_argument("--collx-info", dest="collx_info",
                   help="collx_info to check names against (default: as collx/tools.py finds it)")
    c.add_argument("--no-registry", action="store_true",
                   help="check the structure only, not the collectives' algorithm names")
    c.add_argument("-q", "--quiet", action="store_true", help="problems only")
    a = ap.parse_args(argv)
    if a.cmd != "check":
        ap.print_help(sys.stderr)
        return 2
    reg = Registry(a.collx_info, find=not a.no_registry)
    if reg.algs is None and not a.no_registry:
        print("collx rules: algorithm and params names not checked: "
              + reg.why.replace("\n", "\n  "), file=sys.stderr)
    bad = 0
    for path in a.files:
        if mpifile.kind_of(path) or not looks_like_json(path):
            bad += check_mpi_file(path, a.quiet)   # the MPI's own (collx tune --mpi-file)
            continue
        ch = check_file(path, reg)
        if ch.skipped:
            print(f"{path}: skipped: {ch.skipped}")
            continue
        prov = ch.doc.get("provenance") if isinstance(ch.doc, dict) else None
        mt_lines, mt_warn, mt_errors = mpi_tuning_lines(prov)
        ch.warnings += mt_warn
        ch.errors += mt_errors
        ch.serves = mt_lines + ch.serves
        bad += bool(ch.errors)
        n = len(ch.doc["rules"]) if isinstance(ch.doc, dict) and \
            isinstance(ch.doc.get("rules"), list) else 0
        version = ch.doc.get("version", FORMAT_VERSION) if isinstance(ch.doc, dict) else None
        if ch.errors:
            print(f"{path}: FAILED, {len(ch.errors)} problem{'s' if len(ch.errors) > 1 else ''}")
        else:
            print(f"{path}: OK, format version {version}, {n} rule{'s' if n != 1 else ''}")
        for e in ch.errors:
            print(f"  ERROR {e}")
        for w in ch.warnings:
            print(f"  warning: {w}")
        if not a.quiet:
            for s in ch.serves:
                print(f"  {s}")
    return 1 if bad else 0
