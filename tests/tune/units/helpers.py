"""Shared by the tuner's unit tests (tests/tune/units/test_<module>.py):
the path to python/collx, and the runner each file calls when run as a
script (CTest: tune.units.<module>).

    test_<module>.py REPO_ROOT

REPO_ROOT is optional: without it (pytest, or by hand) the repository is
the one this file is in."""
import os
import sys
import traceback

_here_root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
ROOT = (sys.argv[1] if len(sys.argv) > 1 and
        os.path.isdir(os.path.join(sys.argv[1], "python", "collx")) else _here_root)
if os.path.join(ROOT, "python") not in sys.path:
    sys.path.insert(0, os.path.join(ROOT, "python"))


def run_module(namespace):
    """Call every test_* function of a module in the order it defines
    them; print `ok NAME` or `FAIL NAME: message`; exit 1 on any
    failure."""
    tests = [(name, f) for name, f in namespace.items()
             if name.startswith("test_") and callable(f)]
    failed = []
    for name, f in tests:
        try:
            f()
        except AssertionError as e:
            failed.append(name)
            print(f"FAIL {name}: {e}")
        except Exception:  # an error in the test itself: say where
            failed.append(name)
            print(f"FAIL {name}: {traceback.format_exc().rstrip()}")
        else:
            print(f"ok {name}")
    print(f"{len(failed)} of {len(tests)} failed: {' '.join(failed)}" if failed
          else f"all {len(tests)} ok")
    sys.exit(1 if failed else 0)
