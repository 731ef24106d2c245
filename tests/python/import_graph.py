#!/usr/bin/python3
"""The import graph of python/collx (docs/design/python.md), read with the
ast module, nothing imported: prints each module's collx-internal imports
and the layers of packages they make, and fails (exit 1) when

- a collx-internal import sits inside a function (a lazy import hides a
  circle, and the graph then depends on which function ran first);
- modules import each other in a circle (named, module by module);
- packages do: collx.tables importing collx.plots and back is a circle
  between packages even where no two modules close one;
- a lower layer imports a higher one: plots -> tables -> report, plots
  lowest (LAYERS below);
- a module other than collx.cli loads modules by name (importlib), or a
  module imports collx.cli: the command line loads each command's module
  by name when it runs, and those loads (the modules commands.py names,
  shown as edges of collx.cli) close no circle only if nothing imports it;
- a module other than collx.tune.rules writes a rules file: uses
  rulesfile.dumps, the text of a COLLX_RULES file (rules written only by
  the tuner).

Third-party imports (numpy, matplotlib) may be lazy: only collx's own
count. An import in a try block or under `if` at module level counts like
any other top-level import.

    import_graph.py [REPO_ROOT] [-q]    (-q: the summary and the problems only)"""
import ast
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
args = [a for a in sys.argv[1:] if not a.startswith("-")]
ROOT = args[0] if args else os.path.dirname(os.path.dirname(HERE))
QUIET = "-q" in sys.argv[1:]
PKG_DIR = os.path.join(ROOT, "python", "collx")
# modules the build writes, not in the source tree (python/CMakeLists.txt)
GENERATED = {"collx._install"}
# lower first: a package of the list imports none after it
LAYERS = ("collx.plots", "collx.tables", "collx.report")
# the one module that loads modules by name, and the only one that imports it
LOADER, LOADER_USERS = "collx.cli", {"collx.__main__"}
# the one writer of rules files, and the format it writes with
RULES_WRITER, RULES_FORMAT, RULES_TEXT = "collx.tune.rules", "collx.rulesfile", "dumps"


def modules():
    """{module name: path} of every .py under python/collx."""
    out = {}
    for d, dirs, files in os.walk(PKG_DIR):
        dirs[:] = sorted(x for x in dirs if not x.startswith((".", "__pycache__")))
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(d, f), os.path.dirname(PKG_DIR))[:-3]
            parts = rel.split(os.sep)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = os.path.join(d, f)
    return out


def targets(node, name, mods):
    """[(module, the name it is bound to or None)] that an import statement
    of module name loads: the module itself where `from X import Y` names a
    module, X where Y is a name in X."""
    if isinstance(node, ast.Import):
        return [(a.name, a.asname) for a in node.names if a.name.split(".")[0] == "collx"]
    if node.level:   # relative: from the module's package, level - 1 up
        base = name.split(".") if mods[name].endswith("__init__.py") else name.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        frm = ".".join(base + ([node.module] if node.module else []))
    else:
        frm = node.module or ""
    if frm.split(".")[0] != "collx":
        return []
    out = []
    for a in node.names:
        sub = f"{frm}.{a.name}"
        if sub in mods or sub in GENERATED:
            out.append((sub, a.asname or a.name))
        else:
            out.append((frm, None if a.name != RULES_TEXT else f"{frm}:{a.name}"))
    return out


class Visitor(ast.NodeVisitor):
    """One module's imports (with whether each is inside a function), its
    loads by name, and where it uses the rules file's text."""

    def __init__(self, name, mods):
        self.name, self.mods, self.depth = name, mods, 0
        self.found, self.loads, self.texts, self.bound = [], [], [], {}

    def function(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = function

    def visit_Import(self, node):
        for t, bound in targets(node, self.name, self.mods):
            self.found.append((t, node.lineno, self.depth > 0))
            if bound and bound.endswith(f":{RULES_TEXT}") and t == RULES_FORMAT:
                self.texts.append(node.lineno)
            elif bound:
                self.bound[bound] = t

    visit_ImportFrom = visit_Import

    def visit_Call(self, node):
        f = node.func
        called = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
        if called in ("import_module", "__import__"):
            self.loads.append(node.lineno)
        self.generic_visit(node)

    def visit_Attribute(self, node):
        if node.attr == RULES_TEXT and isinstance(node.value, ast.Name) and \
                self.bound.get(node.value.id) == RULES_FORMAT:
            self.texts.append(node.lineno)
        self.generic_visit(node)


def read(mods):
    """{module: (Visitor, the module's string constants)}."""
    out = {}
    for name, path in mods.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        v = Visitor(name, mods)
        v.visit(tree)
        consts = {n.value for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        out[name] = (v, consts)
    return out


def graph(mods, seen):
    """{module: {imported module: first line}}, [(module, line, target)]
    of the imports inside functions, [(module, target)] that name no module."""
    edges, lazy, unknown = {}, [], []
    for name, (v, _) in seen.items():
        edges[name] = {}
        for t, line, inside in v.found:
            if inside:
                lazy.append((name, line, t))
            if t not in mods:
                unknown.append((name, t))   # generated (GENERATED)
            elif t != name:
                edges[name].setdefault(t, line)
    return edges, lazy, unknown


def by_name(mods, seen, edges):
    """{loader: {module}}: the modules each module that loads by name may
    load, the collx module names among the strings of it and of the
    modules it imports (commands.py's grammar for collx.cli)."""
    out = {}
    for name, (v, consts) in seen.items():
        if v.loads:
            names = set(consts)
            for t in edges[name]:
                names |= seen[t][1]
            out[name] = {n for n in names if n in mods and n not in (name, "collx")}
    return out


def cycles(nodes, edges):
    """The strongly connected components of more than one node (Tarjan),
    each as (a closed path through its first member, all its members)."""
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            connect(v)
    return [(circle(c, edges), c) for c in comps]


def circle(comp, edges):
    """A shortest circle through a component's first member (breadth
    first from it back to it)."""
    start, members = comp[0], set(comp)
    prev, todo = {start: None}, [start]
    while todo:
        v = todo.pop(0)
        for w in sorted(edges.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return path[::-1] + [start]
            if w in members and w not in prev:
                prev[w] = v
                todo.append(w)
    return comp


def group(name):
    """The package of a module for the package graph: collx.X for the
    modules of a subpackage, the module itself for collx's own modules."""
    return ".".join(name.split(".")[:2])


def layers(nodes, edges):
    """Layers of an acyclic graph: 0 imports nothing of it, n imports
    something of layer n - 1 at most."""
    level = {}

    def depth(v):
        if v not in level:
            level[v] = 0   # guards against a circle (reported elsewhere)
            level[v] = 1 + max((depth(w) for w in edges.get(v, ())), default=-1)
        return level[v]

    for v in nodes:
        depth(v)
    out = {}
    for v, n in level.items():
        out.setdefault(n, []).append(v)
    return [sorted(out[n]) for n in sorted(out)]


def main():
    mods = modules()
    if not mods:   # a wrong root would pass with nothing checked
        print(f"import_graph: no modules under {PKG_DIR}: give the repository's root")
        return 1
    seen = read(mods)
    edges, lazy, unknown = graph(mods, seen)
    loads = by_name(mods, seen, edges)
    full = {m: set(e) | loads.get(m, set()) for m, e in edges.items()}
    n_edges = sum(len(e) for e in edges.values())
    pkg_edges = {}
    for a, ts in full.items():
        for b in ts:
            if group(a) != group(b):
                pkg_edges.setdefault(group(a), set()).add(group(b))
    groups = sorted({group(m) for m in mods})
    if not QUIET:
        print("imports (module: the collx modules it imports; *: loads by name)")
        for m in sorted(mods):
            shown = sorted(edges[m]) + [f"*{t}" for t in sorted(loads.get(m, ()))]
            print(f"  {m}: {', '.join(shown) or '-'}")
        print("\npackages (package: the packages it imports)")
        for g in groups:
            print(f"  {g}: {', '.join(sorted(pkg_edges.get(g, ()))) or '-'}")
    mod_cycles = cycles(list(mods), full)
    pkg_cycles = cycles(groups, pkg_edges)
    if not QUIET and not mod_cycles and not pkg_cycles:
        print("\npackage layers (each imports only from the layers above it)")
        for i, layer in enumerate(layers(groups, pkg_edges)):
            print(f"  {i}: {' '.join(layer)}")
    problems = []
    for m, line, t in lazy:
        problems.append(f"{os.path.relpath(mods[m], ROOT)}:{line}: {m} imports {t} inside a "
                        "function: import it at the top of the module (and move what both "
                        "need into a module below them if that makes a circle)")
    for kind, found in (("module", mod_cycles), ("package", pkg_cycles)):
        for path, members in found:
            rest = sorted(set(members) - set(path))
            problems.append(f"{kind} circle: " + " -> ".join(path) +
                            (f" (tangled with {', '.join(rest)})" if rest else ""))
    for i, low in enumerate(LAYERS):
        for high in LAYERS[i + 1:]:
            for a in sorted(m for m in edges if group(m) == low):
                for b in sorted(t for t in edges[a] if group(t) == high):
                    problems.append(f"{a} imports {b}: {low} is below {high} "
                                    f"({' -> '.join(LAYERS)})")
    for m, (v, _) in sorted(seen.items()):
        if v.loads and m != LOADER:
            problems.append(f"{os.path.relpath(mods[m], ROOT)}:{v.loads[0]}: {m} loads modules "
                            f"by name; only {LOADER} may (the command line)")
        if LOADER in edges[m] and m not in LOADER_USERS:
            problems.append(f"{m} imports {LOADER}: the command line loads the commands' "
                            "modules; nothing below it may import it")
        if v.texts and m not in (RULES_WRITER, RULES_FORMAT):
            problems.append(f"{os.path.relpath(mods[m], ROOT)}:{v.texts[0]}: {m} writes a "
                            f"rules file ({RULES_FORMAT}.{RULES_TEXT}); only {RULES_WRITER} "
                            "does (its write, from_sweep)")
    print(f"\n{len(mods)} modules, {n_edges} imports between them "
          f"(and {sum(len(x) for x in loads.values())} loads by name), "
          f"{sum(len(e) for e in pkg_edges.values())} between {len(groups)} packages; "
          f"{len(mod_cycles)} module circles, {len(pkg_cycles)} package circles, "
          f"{len(lazy)} imports inside functions")
    for m, t in unknown:
        print(f"note: {m} imports {t}, which the build writes (not in python/collx)")
    for p in problems:
        print("FAIL " + p)
    print(f"FAILED: {len(problems)} problems" if problems else
          "OK: no circles, layers one way, every collx import at module level")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
