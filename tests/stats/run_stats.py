#!/usr/bin/python3
"""COLLX_STATS test: runs stats_app (tests/stats/stats_app.c) under mpirun
with COLLX_ALLREDUCE_ALGORITHM=rabenseifner and reads what collx reported
at MPI_Finalize.

  run_stats.py --mpiexec M --npflag -n --flags "..." --launcher openmpi|mpich
               --np P --app PROGRAM [--preload libcollx_pmpi.so] [--linked]
               --form csv|json|table|stderr|off

csv, json, table: COLLX_STATS=<temporary file>.csv / .json / .txt;
stderr: COLLX_STATS=1 (rank 0 prints the table); off: COLLX_STATS unset,
and the program must print nothing but its "stats app: OK".

What the program calls (stats_app.c) and so what the report must say, p
ranks, bytes summed over ranks (each rank's send + receive payload):
  allreduce rabenseifner blocking     10 calls, 10 * p * 2 * 8000 bytes
  allreduce recursive_doubling blocking 2 calls (a non-commutative op:
            rabenseifner's fallback), 2 * p * 2 * 16 bytes
  bcast native blocking                3 calls, 3 * p * 400 bytes
  gatherv native blocking              2 calls, 2 * 2 * 8 * p(p+1)/2 bytes
                                       (every rank's send, the root's receive)
  reduce native blocking               1 call (its final check), 4p + 4 bytes
                                       (interposed only: linked, it calls MPI)
  linked only: allreduce rabenseifner nonblocking 4 calls, 4 * p * 16000,
               bcast native nonblocking 1 call, p * 400 bytes
  fallbacks: allreduce, rabenseifner -> recursive_doubling, blocking, 2
             calls, "needs a commutative operation"
With --solo (`stats_app solo`) rank 0 alone makes 5 allreduce of 1000
doubles on MPI_COMM_SELF and the other ranks no collective call at all
(no final reduce either): allreduce rabenseifner blocking 5 calls on 1
rank, 5 * 16000 bytes; nothing else, no fallback.

Every form also carries the job (ranks, nodes, ranks per node, wall time)
and the profile: per (collective, mode, communicator size, ranks per node,
nodes, class of message sizes) the calls (each call in one row: shared),
ranks
and time (expected_profile); the ranks of one machine are one node.

  run_stats.py ... --np 6 --app profile_app --profile fake|rules

runs profile_app.c (plain MPI, under the preload) and checks its JSON
profile row by row: "fake" under COLLX_FAKE_NODES=0,0,0,1,1,2 (the nodes
as the rules see them, by rank in MPI_COMM_WORLD: the split of ranks 4-5
is on two nodes) with nothing selected, every call native; "rules" on the real nodes with a rules file
for communicators of 4 ranks, which serves those of 6 and 2 as the
nearest rule: the calls beyond it counted per rule (member "beyond") and
said once per communicator size under COLLX_VERBOSE.

  run_stats.py --sim-run sim/run --platform ib-6x8 --hostfile H --np 6
               --app profile_app_smpi --profile smpi

the same profile under SimGrid's SMPI (profile_app.c built with collx
linked, its collectives CX_ calls; tests/smpi has plain programs through
the SMPI interposer), placed by the hostfile H
on 3 nodes of 2 ranks: the report is written at all (SMPI's MPI_Finalize
finalizes the rank before MPI_COMM_SELF's attributes go, collx's own
MPI_Finalize runs it first), every row as on a real MPI with these nodes,
and the tuner reads the file (collx.tune.profile): the points it measures
on 24 ranks of ib-6x8 and the one it sets aside.

  run_stats.py ... --np 3 --form partial|missing

COLLX_STATS set on every rank but rank 1 (partial), or collx loaded on
ranks 0-1 only (missing, COLLX_CHECK_TIMEOUT=2): the run must end (not
hang in MPI_Finalize), rank 0 must say why, and no report be written.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile


def expected(p, linked, solo):
    if solo:
        return {("allreduce", "rabenseifner", "blocking"): (5, 1, 5 * 16000)}
    rows = {
        ("allreduce", "rabenseifner", "blocking"): (10, 10 * p * 2 * 8000),
        ("allreduce", "recursive_doubling", "blocking"): (2, 2 * p * 2 * 16),
        ("bcast", "native", "blocking"): (3, 3 * p * 400),
        ("gatherv", "native", "blocking"): (2, 2 * 2 * 8 * p * (p + 1) // 2),
    }
    if linked:
        rows[("allreduce", "rabenseifner", "nonblocking")] = (4, 4 * p * 16000)
        rows[("bcast", "native", "nonblocking")] = (1, p * 400)
    else:
        rows[("reduce", "native", "blocking")] = (1, 4 * p + 4)
    return {key: (calls, p, nbytes) for key, (calls, nbytes) in rows.items()}


def size_class(nbytes):
    """(msg_lo, msg_hi) of the class of nbytes (cx_size_class)."""
    lo = 1 << (nbytes.bit_length() - 1) if nbytes > 0 else 0
    return lo, max(0, 2 * lo - 1)


def gatherv_classes(p):
    """{(msg_lo, msg_hi): ranks} of stats_app's gatherv (rank r sends r + 1
    doubles to rank 0) as each rank sees it (v_size.c): the root the mean
    block, 8 (p + 1) / 2 bytes, the others their own, 8 (r + 1): uneven
    counts, so ranks see the call in several classes, and the report
    shares its calls among them (shared)."""
    out = {}
    for r in range(p):
        c = size_class(8 * (p + 1) // 2 if r == 0 else 8 * (r + 1))
        out[c] = out.get(c, 0) + 1
    return out


def shared(calls, weights):
    """calls shared among classes (ascending) in proportion to weights, as
    profile_report.c does: floors, then one each to the largest
    remainders (the lowest class first among equal ones), so that every
    call is counted once."""
    total = sum(weights.values())
    out = {k: calls * w // total for k, w in weights.items()}
    rem = {k: calls * w % total for k, w in weights.items()}
    for _ in range(calls - sum(out.values())):
        k = max(sorted(rem), key=lambda c: rem[c])
        out[k] += 1
        rem[k] = -1
    return out


def expected_profile(p, linked, solo):
    """{(coll, mode, comm_size, ranks_per_node, nodes, msg_lo, msg_hi): (calls,
    ranks)} of stats_app: one node (the ranks of one machine)."""
    if solo:
        return {("allreduce", "blocking", 1, 1, 1, 4096, 8191): (5, 1)}
    rows = {("allreduce", "blocking", 4096, 8191): (10, p), ("allreduce", "blocking", 16, 31):
            (2, p), ("bcast", "blocking", 256, 511): (3, p)}
    classes = gatherv_classes(p)
    for (lo, hi), calls in shared(2, classes).items():
        rows[("gatherv", "blocking", lo, hi)] = (calls, classes[(lo, hi)])
    if linked:
        rows[("allreduce", "nonblocking", 4096, 8191)] = (4, p)
        rows[("bcast", "nonblocking", 256, 511)] = (1, p)
    else:
        rows[("reduce", "blocking", 4, 7)] = (1, p)
    return {(c, m, p, p, 1, lo, hi): counts for (c, m, lo, hi), counts in rows.items()}


# profile_app.c on 6 ranks: (coll, comm size) -> [(msg_lo, msg_hi, calls, ranks)]
PROFILE_APP = {
    ("allreduce", 6): [(64, 127, 3, 6), (4096, 8191, 2, 6)],
    ("barrier", 6): [(0, 0, 2, 6)],
    ("alltoallv", 6): [(4, 7, 1, 6)],   # one int per pair
    ("reduce", 6): [(4, 7, 1, 6)],
    ("allreduce", 4): [(64, 127, 5, 4), (4096, 8191, 1, 4)],
    ("allreduce", 2): [(64, 127, 6, 2), (4096, 8191, 1, 2)],
    ("bcast", 1): [(4, 7, 6, 6)],
}
# (ranks per node, nodes) of each communicator size: under
# COLLX_FAKE_NODES=0,0,0,1,1,2 by rank in MPI_COMM_WORLD (the split of
# ranks 4 and 5 spans nodes 1 and 2), else one node
FAKE_NODES = "0,0,0,1,1,2"
LAYOUT = {"fake": {6: (3, 3), 4: (3, 2), 2: (1, 2), 1: (1, 1)},
          "rules": {6: (6, 1), 4: (4, 1), 2: (2, 1), 1: (1, 1)},
          # SMPI, the hostfile's 3 nodes of 2: ranks 0-3 on two, 4-5 on one
          "smpi": {6: (2, 3), 4: (2, 2), 2: (2, 1), 1: (1, 1)}}
# The tuner on the SMPI profile, 24 ranks of ib-6x8 (3 nodes of 8): the
# points it measures, {key: {(q, bytes)}} (2 ranks per node on 3 or 2
# nodes: --comm-shape, a key of their own; each class's bounds in 4-byte
# elements, the alltoallv's too: one int per pair) and the entry it sets
# aside.
TUNER_P, TUNER_NODE = 24, 8
ALLREDUCE_SIZES = (64, 124, 4096, 8188)   # classes 64..127 and 4096..8191
TUNER_POINTS = {"allreduce-2ppn": {(q, m) for q in (6, 4) for m in ALLREDUCE_SIZES},
                "allreduce": {(2, m) for m in ALLREDUCE_SIZES},
                "barrier-2ppn": {(6, 4)}, "alltoallv-2ppn": {(6, 4)}, "reduce-2ppn": {(6, 4)}}
TUNER_SKIPPED = {("bcast", 1): "a communicator of one rank"}
# The rules of the "rules" case: 4 ranks only; 6 and 2 are beyond them.
PROFILE_RULES = {"rules": [
    {"collective": "allreduce", "algorithm": "recursive_doubling",
     "comm_size": {"min": 4, "max": 4}, "msg_size": {"max": 1024},
     "ranks_per_node": {"max": 8}},
    {"collective": "allreduce", "algorithm": "rabenseifner",
     "comm_size": {"min": 4, "max": 4}, "msg_size": {"min": 1025},
     "ranks_per_node": {"max": 8}}]}
# (coll, comm size, ranks per node, nodes, rule, algorithm) -> (calls, ranks)
PROFILE_BEYOND = {
    ("allreduce", 6, 6, 1, 0, "recursive_doubling"): (3, 6),
    ("allreduce", 6, 6, 1, 1, "rabenseifner"): (2, 6),
    ("allreduce", 2, 2, 1, 0, "recursive_doubling"): (6, 2),
    ("allreduce", 2, 2, 1, 1, "rabenseifner"): (1, 2),
}
PROFILE_SAID = [
    "collx: MPI_Allreduce p=6 (6 per node) is beyond the rules' communicator sizes (4): "
    "rules[0] (the nearest, p=4) picks recursive_doubling for 64 B",
    "collx: MPI_Allreduce p=2 (2 per node) is beyond the rules' communicator sizes (4): "
    "rules[0] (the nearest, p=4) picks recursive_doubling for 64 B",
]


FALLBACK = ("allreduce", "rabenseifner", "recursive_doubling", "blocking")
REASON = "needs a commutative operation"
REQUIREMENT = "a commutative operation"


def with_preload(a, env, collx=True):
    preload = a.preload if collx else ""
    if os.environ.get("LD_PRELOAD"):   # what the test run preloads (MPICH's yield helper)
        preload = ":".join(x for x in (preload, os.environ["LD_PRELOAD"]) if x)
    return dict(env, LD_PRELOAD=preload) if preload else env


def launch(a, env, segments=None):
    """The program on a.np ranks with env; or, segments given, an MPMD
    launch of [(ranks, env, collx preloaded?)] (each rank's own
    environment)."""
    if segments:
        cmd = [a.mpiexec] + a.flags.split()
        for i, (n, seg_env, preload) in enumerate(segments):
            seg_env = with_preload(a, seg_env, preload)
            cmd += ([":"] if i else []) + [a.npflag, str(n), "env"]
            cmd += [f"{k}={v}" for k, v in seg_env.items()] + [a.app]
    elif a.sim_run:   # SMPI: the ranks share smpirun's environment
        cmd = [a.sim_run, a.platform, str(a.np), "--", a.app]
        env = dict(env, SIM_HOSTFILE=a.hostfile) if a.hostfile else env
    else:
        cmd = [a.mpiexec, a.npflag, str(a.np)] + a.flags.split()
        for k, v in with_preload(a, env).items():
            cmd += ["-x", f"{k}={v}"] if a.launcher == "openmpi" else ["-genv", k, v]
        cmd.append(a.app)
    if a.solo:
        cmd.append("solo")
    print("+", " ".join(cmd), flush=True)
    # the launcher itself runs without the preload
    base = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and
            not k.startswith("COLLX_")}
    if a.sim_run:
        base.update(env)
    r = subprocess.run(cmd, env=base, capture_output=True, text=True, timeout=120)
    print(r.stdout + r.stderr)
    return r


def profile_key(coll, mode, p, ppn, nodes, lo, hi):
    return (coll, mode, int(p), int(ppn), int(nodes), int(lo), None if hi is None else int(hi))


def parse_table(text):
    """Rows of the human table: {(coll, alg, mode): (calls, ranks, bytes, s)},
    {(coll, asked, ran, mode): (calls, ranks, reason)}, the job (ranks,
    nodes, ranks per node, s) and the profile {profile_key: (calls, ranks,
    s, rank s)}."""
    served, fallbacks, profile, job, part = {}, {}, {}, None, None
    for line in text.splitlines():
        m = re.match(r"collx: the job: (\d+) ranks on (\d+) nodes? \(at most (\d+) per "
                     r"node\), ([\d.]+) s ", line)
        if m:
            job = (int(m[1]), int(m[2]), int(m[3]), float(m[4]))
        elif line.startswith("collx: COLLX_STATS"):
            part = "served"
        elif line.startswith("collx: fallbacks"):
            part = "fallbacks"
        elif line.startswith("collx: profile"):
            part = "profile"
        elif line.startswith("collx: "):
            part = None
        elif part == "served" and re.match(r"^[a-z_]+ +[a-z0-9_]+ +(blocking|nonblocking) ", line):
            f = line.split()
            served[(f[0], f[1], f[2])] = (int(f[3]), int(f[4]), int(f[5]), float(f[6]))
        elif part == "fallbacks" and re.match(r"^[a-z_]+ +[a-z0-9_]+ +[a-z0-9_?]+ +"
                                              r"(blocking|nonblocking) +\d", line):
            f = line.split(None, 6)
            fallbacks[(f[0], f[1], f[2], f[3])] = (int(f[4]), int(f[5]), f[6])
        elif part == "profile" and re.match(r"^[a-z_]+ +(blocking|nonblocking) +\d", line):
            f = line.split()
            lo, hi = (0, None) if f[5] == "any" else f[5].split("..")
            profile[profile_key(f[0], f[1], f[2], f[3], f[4], lo, hi)] = (
                int(f[6]), int(f[7]), float(f[8]), float(f[9]))
    return served, fallbacks, job, profile


def parse_csv(text):
    served, fallbacks, profile, job = {}, {}, {}, None
    rows = list(csv.DictReader(text.splitlines()))
    for r in rows:
        if None in r or None in r.values():
            raise ValueError(f"a row of another length than the header: {r}")
        if r["table"] == "served":
            served[(r["collective"], r["algorithm"], r["mode"])] = (
                int(r["calls"]), int(r["ranks"]), int(r["bytes"]), float(r["seconds"]))
        elif r["table"] == "fallback":
            fallbacks[(r["collective"], r["asked"], r["algorithm"], r["mode"])] = (
                int(r["calls"]), int(r["ranks"]), r["reason"], r["requirement"])
        elif r["table"] == "job":
            job = (int(r["ranks"]), int(r["nodes"]), int(r["ranks_per_node"]),
                   float(r["seconds"]))
        elif r["table"] == "profile":
            profile[profile_key(r["collective"], r["mode"], r["comm_size"], r["ranks_per_node"],
                                r["nodes"], r["msg_lo"], r["msg_hi"] or None)] = (
                int(r["calls"]), int(r["ranks"]), float(r["seconds"]), float(r["rank_seconds"]))
        elif r["table"] != "beyond":
            raise ValueError(f"unknown table {r['table']!r}")
    return served, fallbacks, job, profile


PROFILE_FIELDS = ["collective", "mode", "comm_size", "ranks_per_node", "nodes", "msg_lo",
                  "msg_hi", "calls", "ranks", "seconds", "rank_seconds", "share"]
BEYOND_FIELDS = ["collective", "comm_size", "ranks_per_node", "nodes", "rule", "algorithm",
                 "calls", "ranks"]


def parse_json(text, bad):
    d = json.loads(text)
    served = {(r["collective"], r["algorithm"], r["mode"]):
              (r["calls"], r["ranks"], r["bytes"], r["seconds"]) for r in d["served"]}
    fallbacks = {(r["collective"], r["asked"], r["ran"], r["mode"]):
                 (r["calls"], r["ranks"], r["reason"], r["requirement"])
                 for r in d["fallbacks"]}
    j = d.get("job", {})
    job = (j.get("ranks"), j.get("nodes"), j.get("ranks_per_node"), j.get("seconds"))
    profile = {}
    for r in d.get("profile", []):
        if list(r) != PROFILE_FIELDS:
            bad.append(f"profile row fields {list(r)}, want {PROFILE_FIELDS}")
        profile[profile_key(*(r[k] for k in PROFILE_FIELDS[:7]))] = (
            r["calls"], r["ranks"], r["seconds"], r["rank_seconds"])
    for r in d.get("beyond", []):
        if list(r) != BEYOND_FIELDS:
            bad.append(f"beyond row fields {list(r)}, want {BEYOND_FIELDS}")
    return served, fallbacks, job, profile, d


def check_job(a, job, bad, ranks_per_node=None, nodes=1):
    """ranks, nodes, ranks per node and a wall time of the job."""
    want = (a.np, nodes, a.np if ranks_per_node is None else ranks_per_node)
    if not job or tuple(job[:3]) != want or not job[3] > 0:
        bad.append(f"job {job}, want {want} and seconds > 0")


def check_profile(got, want, bad, timeless=()):
    """Rows exactly as wanted: calls and ranks; the slowest rank's time > 0
    (>= 0 for the communicator sizes timeless) and at most the sum over
    ranks."""
    for key, counts in want.items():
        row = got.get(key)
        least = 0 if key[2] in timeless else 1e-12
        if not row:
            bad.append(f"no profile row {key}")
        elif row[:2] != counts or not least <= row[2] <= row[3] + 1e-9:
            bad.append(f"profile {key}: calls, ranks, s, rank s = {row}, want {counts}")
    for key in got:
        if key not in want:
            bad.append(f"unexpected profile row {key}: {got[key]}")


def check_report(a, served, fallbacks, bad):
    want = expected(a.np, a.linked, a.solo)
    for key, counts in want.items():
        got = served.get(key)
        if not got:
            bad.append(f"no row {key}")
            continue
        if got[:3] != counts:
            bad.append(f"{key}: calls, ranks, bytes = {got[:3]}, want {counts}")
        if not got[3] > 0:
            bad.append(f"{key}: time {got[3]} s, want > 0")
    for key in served:
        if key not in want:
            bad.append(f"unexpected row {key}: {served[key]}")
    fb = fallbacks.get(FALLBACK)
    if a.solo:
        if fallbacks:
            bad.append(f"unexpected fallbacks {fallbacks}")
        return
    if not fb:
        bad.append(f"no fallback row {FALLBACK}")
    else:
        if fb[0] != 2 or fb[1] != a.np or fb[2] != REASON:
            bad.append(f"fallback {FALLBACK}: {fb[:3]}, want (2, {a.np}, {REASON!r})")
        if len(fb) > 3 and fb[3] != REQUIREMENT:
            bad.append(f"fallback requirement {fb[3]!r}, want {REQUIREMENT!r}")
    for key in fallbacks:
        if key != FALLBACK:
            bad.append(f"unexpected fallback {key}: {fallbacks[key]}")


def read_report(a, out, bad):
    """(served, fallbacks, job, profile) of the report file in a.form."""
    report = open(out).read()
    print(f"---- {out}\n{report}")
    if a.form == "csv":
        return parse_csv(report)
    if a.form == "json":
        served, fallbacks, job, profile, d = parse_json(report, bad)
        if d.get("ranks") != a.np:
            bad.append(f"json ranks {d.get('ranks')}, want {a.np}")
        return served, fallbacks, job, profile
    return parse_table(report)


def stats_app(a, tmp, bad):
    """stats_app in a.form: its rows, fallback, job and profile."""
    env = {"COLLX_ALLREDUCE_ALGORITHM": "rabenseifner"}
    out = os.path.join(tmp, "stats." + {"csv": "csv", "json": "json"}.get(a.form, "txt"))
    if a.form in ("csv", "json", "table"):
        env["COLLX_STATS"] = out
    elif a.form == "stderr":
        env["COLLX_STATS"] = "1"
    r = launch(a, env)
    text = r.stdout + r.stderr
    if r.returncode != 0 or "stats app: OK" not in r.stdout:
        bad.append(f"the program failed (exit code {r.returncode}) or printed no OK")
    if a.form == "off":
        extra = [l for l in text.splitlines() if l.strip() and l != "stats app: OK"]
        if extra:
            bad.append(f"COLLX_STATS unset, yet the run printed {extra[:5]}")
        return
    if a.form == "stderr":
        got = parse_table(r.stderr)
    else:
        if "collx" in text:
            bad.append("COLLX_STATS names a file, yet collx printed something")
        if not os.path.exists(out):
            bad.append(f"no {out}")
            return
        got = read_report(a, out, bad)
    served, fallbacks, job, profile = got
    check_report(a, served, fallbacks, bad)
    check_job(a, job, bad)
    check_profile(profile, expected_profile(a.np, a.linked, a.solo), bad)


def profile_app(a, tmp, bad):
    """profile_app.c's JSON profile, row by row (module docstring)."""
    out = os.path.join(tmp, "profile.json")
    env = {"COLLX_STATS": out}
    if a.profile == "fake":
        env["COLLX_FAKE_NODES"] = FAKE_NODES
    elif a.profile == "rules":
        rules = os.path.join(tmp, "rules.json")
        with open(rules, "w") as f:
            json.dump(PROFILE_RULES, f)
        env.update(COLLX_RULES=rules, COLLX_VERBOSE="1")
    r = launch(a, env)
    if r.returncode != 0 or "profile app: OK" not in r.stdout:
        bad.append(f"the program failed (exit code {r.returncode}) or printed no OK")
    if not os.path.exists(out):
        bad.append(f"no {out}")
        return
    report = open(out).read()
    print(f"---- {out}\n{report}")
    _, _, job, profile, d = parse_json(report, bad)
    layout = LAYOUT[a.profile]
    check_job(a, job, bad, *layout[a.np])
    want = {}
    for (coll, p), rows in PROFILE_APP.items():
        for lo, hi, calls, ranks in rows:
            want[profile_key(coll, "blocking", p, *layout[p], lo, hi)] = (calls, ranks)
    # SMPI: a call on one rank sends nothing and simulated time stands still
    check_profile(profile, want, bad, (1,) if a.sim_run else ())
    beyond = {(b["collective"], b["comm_size"], b["ranks_per_node"], b["nodes"], b["rule"],
               b["algorithm"]): (b["calls"], b["ranks"]) for b in d.get("beyond", [])}
    want = PROFILE_BEYOND if a.profile == "rules" else {}
    if beyond != want:
        bad.append(f"beyond {beyond}, want {want}")
    if a.profile == "rules":
        said = [l for l in r.stderr.splitlines() if " is beyond " in l]
        if sorted(said) != sorted(PROFILE_SAID):
            bad.append(f"COLLX_VERBOSE said {said}, want {PROFILE_SAID} (once each)")
    if a.profile == "smpi":
        tuner_reads(out, bad)


def tuner_reads(path, bad, p=TUNER_P, node=TUNER_NODE, points=None, skipped_want=None):
    """`collx tune --profile` takes the file for a target of p ranks, node
    per node: its points and what it sets aside (by default TUNER_POINTS,
    TUNER_SKIPPED: the "reason" each must contain)."""
    points = TUNER_POINTS if points is None else points
    skipped_want = TUNER_SKIPPED if skipped_want is None else skipped_want
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "python"))
    from collx.tune import profile
    try:
        job, entries = profile.read(path)
    except profile.ProfileError as e:
        bad.append(f"the tuner refuses the profile: {e}")
        return
    known = {e["collective"] for e in entries}
    prof = profile.Profile(path, job, entries, p, node, known)
    got = {key: set(pts) for key, pts in prof.points.items()}
    if got != points:
        bad.append(f"the tuner measures {got}, want {points}")
    skipped = {(e["collective"], e["comm_size"]): why for e, why in prof.skipped}
    if set(skipped) != set(skipped_want) or any(
            skipped_want[k] not in why for k, why in skipped.items()):
        bad.append(f"the tuner sets aside {skipped}, want {skipped_want}")


def partial(a, tmp, bad):
    """A rank without COLLX_STATS, or without collx: no hang, no report,
    rank 0 says why."""
    out = os.path.join(tmp, "stats.json")
    stats = {"COLLX_STATS": out}
    if a.form == "partial":
        segments = [(1, stats, True), (1, {}, True), (a.np - 2, stats, True)]
        said = "COLLX_STATS is not set on rank 1: no statistics at MPI_Finalize"
    else:
        segments = [(a.np - 1, dict(stats, COLLX_CHECK_TIMEOUT="2"), True), (1, stats, False)]
        said = f"rank {a.np - 1} did not answer collx's settings check"
    r = launch(a, {}, segments)
    if r.returncode != 0 or "stats app: OK" not in r.stdout:
        bad.append(f"the program failed (exit code {r.returncode}) or printed no OK")
    for want in (said, "collx: COLLX_STATS: no report: not every rank has it"):
        if want not in r.stderr:
            bad.append(f"rank 0 did not say {want!r}")
    if os.path.exists(out):
        bad.append(f"{out} written, though not every rank took part")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True)
    for opt in ("--mpiexec", "--npflag", "--launcher"):   # a real MPI's launch
        ap.add_argument(opt)
    # or SMPI: sim/run PLATFORM NP -- app, placed by SIM_HOSTFILE=hostfile
    ap.add_argument("--sim-run")
    ap.add_argument("--platform")
    ap.add_argument("--hostfile")
    ap.add_argument("--form", default="json")
    ap.add_argument("--flags", default="")
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--preload", default="")
    ap.add_argument("--linked", action="store_true")
    ap.add_argument("--solo", action="store_true")
    ap.add_argument("--profile", choices=("fake", "rules", "smpi"))
    a = ap.parse_args()
    if not (a.sim_run and a.platform) and not (a.mpiexec and a.npflag and a.launcher):
        ap.error("give --mpiexec, --npflag and --launcher, or --sim-run and --platform")
    bad = []
    with tempfile.TemporaryDirectory(prefix="collx_stats_") as tmp:
        try:
            if a.profile:
                profile_app(a, tmp, bad)
            elif a.form in ("partial", "missing"):
                partial(a, tmp, bad)
            else:
                stats_app(a, tmp, bad)
        except subprocess.TimeoutExpired:
            bad.append("the run did not end within 120 s (a hang)")
    if bad:
        print("run_stats: FAILED\n  " + "\n  ".join(bad))
        return 1
    what = f"profile {a.profile}" if a.profile else a.form
    print(f"run_stats: OK ({what}, p={a.np}{', linked' if a.linked else ''}"
          f"{', solo' if a.solo else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
