#!/usr/bin/python3
"""Every repository path a Markdown file cites must exist.

Looks at every *.md of the repository (outside build/ and results/) for
paths in backticks and in links that start with one of the repository's
top-level folders (src/, docs/, bench/ ...) or are relative links; a path
with a placeholder (<...>, *, $, OUT, NAME ...) is a pattern, not a file,
and is skipped, and so is a path outside the repository (the papers in
../shared/, which a clone elsewhere does not have). Paths are tried from the repository root and from the
Markdown file's folder. Prints every missing path; exit status 1 if any."""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))
TOP = ("src/", "docs/", "bench/", "sim/", "tests/", "python/", "include/",
       "apps/", "cmake/", ".ci/")
SKIP_DIRS = {"build", "results", ".git", "__pycache__"}
PLACEHOLDER = re.compile(r"[<>*$?{}|]|\b(OUT\d?|NAME|PLATFORM|DIR|FILE|coll|mpi)\b|\.\.\.")


def candidates(text):
    for m in re.finditer(r"`([^`\s]+)`", text):
        yield m.group(1)
    for m in re.finditer(r"\]\(([^)\s#]+)(#[^)]*)?\)", text):
        yield m.group(1)


def main():
    missing = []
    checked = 0
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith("build")]
        for f in files:
            if not f.endswith(".md"):
                continue
            md = os.path.join(d, f)
            text = open(md, encoding="utf-8").read()
            for raw in candidates(text):
                path = raw.rstrip(".,:;)")
                if path.startswith(("http://", "https://", "mailto:")):
                    continue
                if not (path.startswith(TOP) or path.startswith(("./", "../"))):
                    continue
                if PLACEHOLDER.search(path):
                    continue
                path = path.split(":")[0]   # file:line
                if all(not os.path.normpath(os.path.join(base, path)).startswith(ROOT + os.sep)
                       for base in (ROOT, d)):
                    continue   # outside the repository (../shared/...): not in a clone
                checked += 1
                if not (os.path.exists(os.path.join(ROOT, path)) or
                        os.path.exists(os.path.join(d, path))):
                    missing.append("%s: %s" % (os.path.relpath(md, ROOT), raw))
    for m in missing:
        print("MISSING", m)
    print("links: %d paths checked, %d missing: %s" %
          (checked, len(missing), "FAILED" if missing else "OK"))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
