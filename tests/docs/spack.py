"""The Spack recipe (packaging/spack/packages/collx/package.py) offers the
CMake build's options one to one: every option() and cache setting of
the CMake files is a variant's define_from_variant or named in the
recipe's NOT_VARIANTS with a reason, every variant reaches CMake, and
every name the recipe defines exists in CMake. Text only: Spack itself
is not needed.   usage: spack.py SOURCE_DIR"""
import ast
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
cmake_files = [p for p in root.rglob("*") if p.is_file()
               and (p.name == "CMakeLists.txt" or p.suffix == ".cmake")
               and not any(part in ("build", ".git") for part in p.relative_to(root).parts)]
options = set()
for f in cmake_files:
    text = f.read_text()
    options |= set(re.findall(r"^\s*option\(\s*(COLLX_[A-Z0-9_]+)", text, re.M))
    options |= set(re.findall(r"set\(\s*(COLLX_[A-Z0-9_]+)\s[^)]*\bCACHE\b", text))

recipe_path = root / "packaging/spack/packages/collx/package.py"
recipe = recipe_path.read_text()
tree = ast.parse(recipe)
variants, mapped, defined, not_variants = set(), {}, set(), {}
for node in ast.walk(tree):
    if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
        name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        args = [a.value for a in node.args if isinstance(a, ast.Constant)]
        if name == "variant" and args:
            variants.add(args[0])
        elif name == "define_from_variant" and len(args) >= 2:
            mapped[args[0]] = args[1]
        elif name == "define" and args:
            defined.add(args[0])
    if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "NOT_VARIANTS"
                                            for t in node.targets):
        not_variants = ast.literal_eval(node.value)

problems = []
for o in sorted(options):
    if o not in mapped and o not in not_variants:
        problems.append(f"CMake option {o} is neither a variant (define_from_variant) nor in "
                        f"NOT_VARIANTS with a reason: add one to {recipe_path.relative_to(root)}")
for o, v in sorted(mapped.items()):
    if o not in options:
        problems.append(f"the recipe sets {o}, which no CMake file declares")
    if v not in variants:
        problems.append(f"define_from_variant({o!r}, {v!r}): no variant {v!r}")
for v in sorted(variants - set(mapped.values())):
    problems.append(f"variant {v!r} reaches no CMake option")
for o in sorted(set(not_variants) - options):
    problems.append(f"NOT_VARIANTS names {o}, which no CMake file declares")
for o in sorted(defined - options):
    problems.append(f"the recipe defines {o}, which no CMake file declares")
for p in problems:
    print("spack recipe:", p)
print(f"spack recipe: {len(options)} CMake options, {len(mapped)} variants, "
      f"{len(not_variants)} not variants: {'FAIL' if problems else 'OK'}")
sys.exit(1 if problems else 0)
