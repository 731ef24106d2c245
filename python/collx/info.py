"""What collx_info says, read once for every caller: its listing of the
registry (each collective on a line of its own, its algorithms indented
below it, an algorithm's requirements on an indented "needs:" line).
The sweep checker (sweep/check.py), the rules checker (rulesfile.py) and
the tuner (tune/target.py) read it here; nothing here runs a sweep or
knows a rules file."""
import os
import subprocess


def parse_info(text):
    """[(collective, [algorithms in registry order])] of collx_info's
    listing."""
    reg, coll = [], None
    for line in text.splitlines():
        if line.strip() and not line.startswith(" "):
            coll = (line.split()[0], [])
            reg.append(coll)
        elif coll and line.strip() and not line.strip().startswith("needs:"):
            coll[1].append(line.split()[0])
    return reg


def registry(info, env=None):
    """{collective: {algorithm, ...}} from running collx_info (path info,
    env added to this process's environment); CalledProcessError, OSError
    or TimeoutExpired when it does not answer."""
    out = subprocess.run([info], capture_output=True, text=True, timeout=120,
                         env={**os.environ, **(env or {})}, check=True).stdout
    return {coll: set(algs) for coll, algs in parse_info(out)}
