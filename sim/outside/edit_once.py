"""Patches a fetched program's sources: python3 edit_once.py ROOT < EDITS.

EDITS is Python that calls edit(path, old, new) with paths relative to
ROOT (a file or a folder; "" for ROOT itself when it is a file): each old
text must occur exactly once, so an upstream change fails loudly rather
than leaving a patch unapplied. Used by fetch_build.sh."""
import os
import sys

root = sys.argv[1]


def edit(rel, old, new):
    p = os.path.join(root, rel) if rel else root
    with open(p) as f:
        s = f.read()
    assert s.count(old) == 1, (p, old)
    with open(p, "w") as f:
        f.write(s.replace(old, new))


exec(compile(sys.stdin.read(), "<fetch_build.sh edits>", "exec"), {"edit": edit})
