"""Sweeps as data: the catalogue (sweeps.json) and its expansion into runs.

A sweep is a dict of settings. Most keys are variables ("engine",
"platform", "np", "program", "args", "csv" ...; see sweeps.json's "about"
for the list), usable in any string as {name}. The structural keys:

  extends  another sweep whose settings this one starts from (its "axes"
           are merged key by key, this sweep's first)
  parts    a list of partial sweeps, each expanded on its own (e.g. the
           SMPI and the real-MPI half of a study)
  axes     name -> values; one run per combination, first axis outermost.
           A value that is a dict sets several variables at once; a string
           is an expression giving the list (e.g. "range(1, reps + 1)")
  derive   name -> expression, computed per run in order (expr.py)
  when     expression; runs where it is false are not part of the sweep
  skip     [{"if": expression, "why": text}]: runs left out, and said so
  merge, after, clean, sysctl: see collect.py and runner.py

Overrides (--set NAME=V1,V2 or a group member's "set") replace a plain
axis, select entries of a dict axis (entries whose NAME is one of the
values; a value no entry has becomes a new entry), select parts that have
NAME, or else set a variable."""
import json
import os
import re
import string
from dataclasses import dataclass, field

from collx.sweep.expr import evaluate

CATALOG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "sweeps.json")
STRUCTURE = {"about", "extends", "parts", "axes", "derive", "when", "skip", "merge",
             "after", "clean", "sysctl"}


class SpecError(ValueError):
    pass


# ------------------------------------------------------------------ variables
class Vars:
    """Layers of settings, later ones winning; strings are templates."""

    def __init__(self, *layers):
        self.data = {}
        for layer in layers:
            self.data.update(layer)

    def __contains__(self, name):
        return name in self.data

    def set(self, name, value):
        self.data[name] = value

    def render(self, value, depth=0):
        """A setting with its {name}s replaced; "{x}" alone keeps x's type
        (a list stays a list), lists are flattened (to splice args)."""
        if depth > 20:
            raise SpecError(f"variables refer to each other in a loop: {value!r}")
        if isinstance(value, str):
            m = re.fullmatch(r"\{(\w+)\}", value)
            if m and isinstance(self.data.get(m.group(1)), (list, int, float)):
                return self.render(self.data[m.group(1)], depth + 1)
            return _Formatter(self, depth).format(value)
        if isinstance(value, list):
            out = []
            for v in value:
                r = self.render(v, depth + 1)
                out.extend(r) if isinstance(r, list) else out.append(r)
            return out
        if isinstance(value, dict):
            return {k: self.render(v, depth + 1) for k, v in value.items()}
        return value

    def get(self, name):
        """A variable's rendered value, for expressions: whole numbers
        written as strings become ints."""
        if name not in self.data:
            raise SpecError(f"unknown variable '{name}'")
        v = self.render(self.data[name])
        return int(v) if isinstance(v, str) and re.fullmatch(r"-?\d+", v) else v

    def text(self, name, default=None):
        """A variable rendered as a string (None/absent: default)."""
        if self.data.get(name) is None:
            return default
        v = self.render(self.data[name])
        return ",".join(map(str, v)) if isinstance(v, list) else str(v)

    def eval(self, text):
        return evaluate(text, self.get)


class _Formatter(string.Formatter):
    def __init__(self, vars_, depth):
        self.vars, self.depth = vars_, depth

    def get_value(self, key, args, kwargs):
        if key not in self.vars.data:
            raise SpecError(f"unknown variable {{{key}}}")
        v = self.vars.render(self.vars.data[key], self.depth + 1)
        return ",".join(map(str, v)) if isinstance(v, list) else v


# ------------------------------------------------------------------ catalogue
def load(path=CATALOG):
    """The catalogue: {"defaults", "sweeps", "groups"}."""
    with open(path) as f:
        cat = json.load(f)
    for key in ("sweeps", "groups", "defaults"):
        cat.setdefault(key, {})
    return cat


def resolve(cat, name, seen=()):
    """A sweep's settings with "extends" applied."""
    if name not in cat["sweeps"]:
        raise SpecError(f"no sweep '{name}' (python3 -m collx sweep --list)")
    if name in seen:
        raise SpecError(f"sweep '{name}' extends itself")
    spec = dict(cat["sweeps"][name])
    base = spec.pop("extends", None)
    if base is None:
        return spec
    parent = resolve(cat, base, seen + (name,))
    axes = dict(spec.get("axes", {}))
    for k, v in parent.get("axes", {}).items():
        axes.setdefault(k, v)
    merged = {**parent, **spec}
    if axes:
        merged["axes"] = axes
    return merged


def members(cat, name):
    """A group's members [(sweep, subdir, overrides)] or a sweep alone."""
    if name in cat["groups"]:
        return [(m["sweep"], m.get("out", m["sweep"]), m.get("set", {}))
                for m in cat["groups"][name]["members"]]
    return [(name, "", {})]


# ------------------------------------------------------------------ overrides
def parse_values(text):
    """"a,b" -> ["a", "b"], whole numbers as ints; "" -> []."""
    if isinstance(text, list):
        return [parse_value(v) for v in text]
    return [parse_value(v) for v in str(text).replace(" ", ",").split(",") if v != ""]


def parse_value(v):
    return int(v) if isinstance(v, str) and re.fullmatch(r"-?\d+", v) else v


def names(spec):
    """(plain, axes, entries): the names a sweep's settings define as
    variables, as axes, and only in axis entries or parts."""
    plain = (set(spec) - STRUCTURE) | set(spec.get("derive", {}))
    axes, entries = set(spec.get("axes", {})), set()
    for values in spec.get("axes", {}).values():
        for v in values if isinstance(values, list) else []:
            if isinstance(v, dict):
                entries |= set(v)
    for part in spec.get("parts", []):
        p, a, e = names(part)
        entries |= p
        axes |= a
        entries |= e
    return plain, axes, entries - plain


def select_axis(values, name, wanted):
    """A dict axis narrowed to the wanted values of NAME (new values become
    new entries); a plain axis replaced."""
    out = []
    for w in wanted:
        match = [v for v in values if isinstance(v, dict) and str(v.get(name)) == str(w)]
        out += match or [{name: w}]
    return out


def keep_entry(entry, selectors):
    """An axis entry or part survives the selectors of the keys it has."""
    return all(str(entry[k]) in map(str, vals) for k, vals in selectors.items()
               if k in entry and not isinstance(entry[k], (dict, list)))


# ------------------------------------------------------------------ expansion
@dataclass(eq=False)
class Run:
    sweep: str
    index: int
    label: str
    vars: Vars


@dataclass(eq=False)
class Sweep:
    name: str
    spec: dict
    vars: Vars                    # the sweep's own settings (merges, after)
    runs: list = field(default_factory=list)
    skipped: list = field(default_factory=list)   # (label, why)


def expand(cat, name, base, overrides, out=None):
    """Sweep `name` with base variables (root, mpi ...), overrides
    {name: [values]} and the output folder (default: the sweep's "out"
    under root); raises SpecError on what it cannot resolve."""
    spec = resolve(cat, name)
    sweep_names, axis_names, entry_names = names(spec)
    common = set(base) | set(cat["defaults"])
    unknown = [k for k in overrides if k not in sweep_names | common | axis_names | entry_names]
    if unknown:
        raise SpecError(f"sweep '{name}' has no setting {', '.join(unknown)}")
    # a variable of the sweep is set; a name its entries or parts give selects them
    plain_names = (sweep_names | (common - entry_names)) - axis_names
    plain = {k: (v[0] if len(v) == 1 else ",".join(map(str, v)))
             for k, v in overrides.items() if k in plain_names}
    select = {k: v for k, v in overrides.items() if k not in plain}
    top = {k: v for k, v in spec.items() if k not in STRUCTURE}
    head = [base, cat["defaults"], top]
    if out is None:
        out = os.path.join(base["root"], Vars(*head, plain).text("out", "results/" + name))
    tail = [{"out": os.path.abspath(out)}, plain]
    sweep = Sweep(name, spec, Vars(*head, *tail))
    for part in [p for p in spec.get("parts", [{}]) if keep_entry(p, select)]:
        axes = {**spec.get("axes", {}), **part.get("axes", {})}
        layers = head + [{k: v for k, v in part.items() if k not in STRUCTURE}]
        _product(sweep, spec, part, list(axes.items()), select, layers, tail, {})
    return sweep


def _product(sweep, spec, part, axes, select, layers, tail, chosen):
    if axes:
        (name, values), rest = axes[0], axes[1:]
        if isinstance(values, str):   # an expression giving the list
            values = Vars(*layers, chosen, *tail).eval(values)
        if name in select:
            values = select_axis(values, name, select[name])
        for v in values:
            entry = v if isinstance(v, dict) else {name: v}
            if keep_entry(entry, {k: s for k, s in select.items() if k != name}):
                _product(sweep, spec, part, rest, select, layers, tail, {**chosen, **entry})
        return
    v = Vars(*layers, chosen, *tail)
    for k, e in {**spec.get("derive", {}), **part.get("derive", {})}.items():
        if k not in tail[-1]:
            v.set(k, v.eval(e))
    when = part.get("when", spec.get("when"))
    if when and not v.eval(when):
        return
    label = v.text("run") or f"{sweep.name} #{len(sweep.runs) + 1}"
    for rule in part.get("skip", spec.get("skip", [])):
        if v.eval(rule["if"]):
            sweep.skipped.append((label, v.render(rule["why"])))
            return
    sweep.runs.append(Run(sweep.name, len(sweep.runs), label, v))
