#!/usr/bin/python3
"""The SMPI interposer (issue 63): plain MPI programs built with
collx-smpicc / collx-smpif90, run under sim/run.

  run_interpose.py --sim-run sim/run --platform P --np N [--hostfile H]
                   --app PROGRAM [--native-app PROGRAM] --case CASE

c        plain_app.c (6 ranks on 3 nodes) with allreduce rabenseifner,
         alltoallv pairwise, bcast binomial forced: COLLX_VERBOSE names
         them for MPI_Allreduce, MPI_Ialltoallv, MPI_Iallreduce, MPI_Bcast,
         and native for MPI_Scan, MPI_Exscan (in SMPI Open MPI's chain,
         run by collx: SMPI's own is no MPI's) and MPI_Reduce (SMPI's
         own); the program's checks pass (a non-commutative operation:
         rabenseifner hands it to recursive_doubling; scans in order; an
         MPI_Waitall of 2(p-1) requests with statuses);
         the COLLX_STATS JSON counts each, the fallback with its reason,
         and a profile whose calls add up
fortran  plain_app.f90, the same through SMPI's Fortran bindings
         (MPI_IN_PLACE, MPI_WAITALL of a mixed array, MPI_WAIT), and its
         report written from MPI_FINALIZE
fallback allreduce hier with COLLX_SHM_MAX=64: every allreduce goes to
         SMPI's own, said under COLLX_VERBOSE and in the report
rules    a COLLX_RULES file picks the allreduce and bcast algorithms
nothing  cost_app built with collx-smpicc, nothing chosen, against the same
         program built with smpicc: the same simulated seconds, the
         program's and SimGrid's to the end; with COLLX_STATS the
         program's the same, and the report's own simulated time printed
         (the platform's calibrated node route and MPI call cost off: SMPI
         alone has neither; on, the program takes less: a node's messages
         cost less)
stats    cost_app (allreduce only) at 1024 ranks with COLLX_STATS: the
         report is written, with the job's ranks and nodes, in seconds of
         host time
scans    plain_app's scans alone at 1024 ranks with COLLX_STATS: native's
         stand-in (Open MPI's chain) serves them in seconds of host time
         (SMPI's own: minutes each), results right
alltoall plain_app's alltoalls (1 KiB blocks) at 256 ranks: native's
         stand-in (the same exchanges, 32 at a time) ends in seconds of
         host time where SMPI's own (all at once) takes over 30 minutes;
         with smpi/coll-selector:mpich SMPI's own serves (COLLX_VERBOSE
         says which), results right either way
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

FORCED = {"COLLX_ALLREDUCE_ALGORITHM": "rabenseifner",
          "COLLX_ALLTOALLV_ALGORITHM": "pairwise",
          "COLLX_BCAST_ALGORITHM": "binomial"}
# (collective, algorithm, mode) -> calls, of plain_app.c under FORCED
C_SERVED = {("allreduce", "rabenseifner", "blocking"): 3,
            ("allreduce", "recursive_doubling", "blocking"): 1,
            ("allreduce", "rabenseifner", "nonblocking"): 1,
            ("alltoallv", "pairwise", "nonblocking"): 2,
            ("bcast", "binomial", "blocking"): 1,
            ("scan", "native", "blocking"): 2,
            ("exscan", "native", "blocking"): 2,
            ("reduce", "native", "blocking"): 1}
C_SAID = ["MPI_Allreduce -> rabenseifner", "MPI_Allreduce -> recursive_doubling",
          "MPI_Ialltoallv -> pairwise", "MPI_Iallreduce -> rabenseifner",
          "MPI_Bcast -> binomial", "MPI_Scan -> native", "MPI_Exscan -> native",
          "MPI_Reduce -> native"]
F_SERVED = {("allreduce", "rabenseifner", "blocking"): 2,
            ("allreduce", "rabenseifner", "nonblocking"): 1,
            ("alltoallv", "pairwise", "nonblocking"): 2,
            ("bcast", "binomial", "blocking"): 1,
            ("reduce", "native", "blocking"): 1}
F_SAID = ["MPI_Allreduce -> rabenseifner", "MPI_Ialltoallv -> pairwise",
          "MPI_Iallreduce -> rabenseifner", "MPI_Bcast -> binomial", "MPI_Reduce -> native"]
RULES = {"version": 1, "rules": [
    {"collective": "allreduce", "algorithm": "recursive_doubling"},
    {"collective": "bcast", "algorithm": "binomial"}]}


def run(a, app, env, args=(), flags=""):
    """(exit code, stdout + stderr, host seconds) of app under sim/run."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("COLLX_")}
    e.update(env)
    if a.hostfile:
        e["SIM_HOSTFILE"] = a.hostfile
    if flags:
        e["SMPI_FLAGS"] = flags
    t = time.time()
    p = subprocess.run([a.sim_run, a.platform, str(a.np), "--", app, *args], env=e,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=110)
    return p.returncode, p.stdout, time.time() - t


def said(out, lines, bad):
    for s in lines:
        if not re.search(r"^collx: " + re.escape(s) + r" \(p=", out, re.M):
            bad.append(f"COLLX_VERBOSE did not say '{s}'")


def checks_passed(out, rc, bad, what="plain_app"):
    if rc != 0 or not re.search(rf"^{what}: \d+ ranks, 0 failed checks$", out, re.M):
        bad.append(f"the program's own checks: exit {rc}, no '{what}: ... 0 failed checks'")


def report(path, bad):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        bad.append(f"no COLLX_STATS report: {e}")
        return {}


def served_is(st, want, bad):
    got = {(r["collective"], r["algorithm"], r["mode"]): r["calls"]
           for r in st.get("served", [])}
    if got != want:
        bad.append(f"served {sorted(got.items())}, want {sorted(want.items())}")
    if any(r["ranks"] != st.get("ranks") for r in st.get("served", [])):
        bad.append("a served row without every rank")


def profile_adds_up(st, bad):
    """Each call in one row: a (collective, mode)'s calls over its size
    classes are the served rows' calls (one communicator here); the
    shares add up to at most the whole job."""
    served, rows = {}, {}
    for r in st.get("served", []):
        k = (r["collective"], r["mode"])
        served[k] = served.get(k, 0) + r["calls"]
    for r in st.get("profile", []):
        k = (r["collective"], r["mode"])
        rows[k] = rows.get(k, 0) + r["calls"]
    if rows != served:
        bad.append(f"profile calls {sorted(rows.items())} do not add up to the served "
                   f"{sorted(served.items())}")
    total = sum(r.get("share", 0) for r in st.get("profile", []))
    if not 0 < total <= 1:
        bad.append(f"profile shares add up to {total}")


def case_served(a, bad, served, lines, what):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "stats.json")
        rc, out, _ = run(a, a.app, {**FORCED, "COLLX_VERBOSE": "1", "COLLX_STATS": path})
        print(out)
        checks_passed(out, rc, bad, what)
        said(out, lines, bad)
        st = report(path, bad)
    served_is(st, served, bad)
    fb = [(r["collective"], r["asked"], r["ran"], r["mode"], r["calls"])
          for r in st.get("fallbacks", [])]
    want = [("allreduce", "rabenseifner", "recursive_doubling", "blocking", 1)] \
        if what == "plain_app" else []
    if fb != want:
        bad.append(f"fallbacks {fb}, want {want}")
    profile_adds_up(st, bad)


def case_fallback(a, bad):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "stats.json")
        rc, out, _ = run(a, a.app, {"COLLX_ALLREDUCE_ALGORITHM": "hier", "COLLX_SHM_MAX": "64",
                                    "COLLX_VERBOSE": "1", "COLLX_STATS": path})
        print(out)
        checks_passed(out, rc, bad)
        if not re.search(r"^collx: MPI_Allreduce: hier needs \d+ bytes of node-shared memory, "
                         r"above COLLX_SHM_MAX=64; running native$", out, re.M):
            bad.append("COLLX_VERBOSE did not say why hier handed the allreduce to SMPI")
        said(out, ["MPI_Allreduce -> native", "MPI_Iallreduce -> native"], bad)
        st = report(path, bad)
    fb = {(r["asked"], r["ran"], r["mode"]): r["calls"] for r in st.get("fallbacks", [])
          if r["collective"] == "allreduce"}
    if fb != {("hier", "native", "blocking"): 4, ("hier", "native", "nonblocking"): 1}:
        bad.append(f"allreduce fallbacks {fb}")


def case_rules(a, bad):
    with tempfile.TemporaryDirectory() as d:
        rules, path = os.path.join(d, "rules.json"), os.path.join(d, "stats.json")
        with open(rules, "w") as f:
            json.dump(RULES, f)
        rc, out, _ = run(a, a.app, {"COLLX_RULES": rules, "COLLX_VERBOSE": "1",
                                    "COLLX_STATS": path})
        print(out)
        checks_passed(out, rc, bad)
        said(out, ["MPI_Allreduce -> recursive_doubling", "MPI_Iallreduce -> recursive_doubling",
                   "MPI_Bcast -> binomial", "MPI_Ialltoallv -> native"], bad)
        st = report(path, bad)
    if (st.get("rules") or {}).get("file") != rules:
        bad.append(f"the report names rules {st.get('rules')}")


def seconds(out):
    """(the program's simulated seconds, SimGrid's to the end)."""
    mine = re.search(r"^cost_app: .*: ([\d.]+) s simulated$", out, re.M)
    total = re.search(r"Simulated time: ([\d.e+-]+) seconds", out)
    return (float(mine[1]) if mine else None), (float(total[1]) if total else None)


def case_nothing(a, bad):
    flags = "--cfg=smpi/display-timing:yes --log=smpi_utils.thres:info"
    # The platform's node route (collx:route_node, calibrated) and the MPI
    # call's own cost (collx:mpi_call) are what a program linked with collx
    # adds to SMPI's model; SMPI alone cannot: off here.
    off = {"COLLX_SMPI_ROUTES": "0", "COLLX_SMPI_MPI_CALL": "0"}
    rc0, out0, h0 = run(a, a.native_app, {}, flags=flags)
    rc1, out1, h1 = run(a, a.app, off, flags=flags)
    with tempfile.TemporaryDirectory() as d:
        rc2, out2, h2 = run(a, a.app, {"COLLX_STATS": os.path.join(d, "s.json"), **off},
                            flags=flags)
    rc3, out3, h3 = run(a, a.app, {}, flags=flags)
    (p0, t0), (p1, t1), (p2, t2) = seconds(out0), seconds(out1), seconds(out2)
    p3, _ = seconds(out3)
    print(f"... the node route on:       program {p3} s ({h3:.1f} s host)")
    if rc3 or p3 is None or p0 is None or not p3 < p0:
        bad.append(f"the platform's node route: the program took {p3} s simulated (exit "
                   f"{rc3}), SMPI alone {p0} s: a node's messages should cost less")
    print(f"SMPI alone:                  program {p0} s, to the end {t0} s ({h0:.1f} s host)")
    print(f"collx, nothing chosen:       program {p1} s, to the end {t1} s ({h1:.1f} s host)")
    print(f"... and COLLX_STATS:         program {p2} s, to the end {t2} s ({h2:.1f} s host)")
    if rc0 or rc1 or rc2 or None in (p0, t0, p1, t1, p2, t2):
        bad.append(f"runs failed: exit {rc0}, {rc1}, {rc2}\n{out0}\n{out1}\n{out2}")
    elif p1 != p0 or t1 != t0:
        bad.append(f"nothing chosen: {p1} s / {t1} s simulated, SMPI alone {p0} s / {t0} s")
    elif p2 != p0:
        bad.append(f"COLLX_STATS: the program took {p2} s simulated, SMPI alone {p0} s")
    else:
        print(f"the report at MPI_Finalize: {(t2 - t0) * 1e6:.1f} us simulated")


def case_stats(a, bad):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "stats.json")
        rc, out, host = run(a, a.app, {"COLLX_STATS": path}, args=("5", "0"))
        print(out)
        print(f"{a.np} ranks with COLLX_STATS: {host:.1f} s of host time")
        st = report(path, bad)
    job = st.get("job") or {}
    if rc != 0 or job.get("ranks") != a.np or not job.get("nodes"):
        bad.append(f"exit {rc}, job {job}")
    served_is(st, {("allreduce", "native", "blocking"): 5,
                   ("barrier", "native", "blocking"): 1}, bad)
    profile_adds_up(st, bad)


def case_scans(a, bad):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "stats.json")
        rc, out, host = run(a, a.app, {"COLLX_STATS": path}, args=("scans",))
        print(out)
        print(f"{a.np} ranks, four scans: {host:.1f} s of host time")
        checks_passed(out, rc, bad)
        st = report(path, bad)
    served_is(st, {("scan", "native", "blocking"): 2, ("exscan", "native", "blocking"): 2,
                   ("reduce", "native", "blocking"): 1}, bad)


def case_alltoall(a, bad):
    for selector, took in (("ompi", "scattered"), ("mpich", "SMPI's own")):
        rc, out, host = run(a, a.app, {"COLLX_VERBOSE": "2"}, args=("alltoall",),
                            flags=f"--cfg=smpi/coll-selector:{selector}")
        print(f"{selector}: {a.np} ranks, two alltoalls: {host:.1f} s of host time")
        checks_passed(out, rc, bad)
        said = f"collx: MPI_Alltoall: native in SMPI runs {took}"
        if out.count(said) != 2:
            bad.append(f"{selector}: COLLX_VERBOSE did not say '{said}' for both calls")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim-run", required=True)
    ap.add_argument("--platform", required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--hostfile")
    ap.add_argument("--app", required=True)
    ap.add_argument("--native-app")
    ap.add_argument("--case", required=True,
                    choices=["c", "fortran", "fallback", "rules", "nothing", "stats", "scans",
                             "alltoall"])
    a = ap.parse_args()
    bad = []
    if a.case == "c":
        case_served(a, bad, C_SERVED, C_SAID, "plain_app")
    elif a.case == "fortran":
        case_served(a, bad, F_SERVED, F_SAID, "plain_app_f")
    else:
        globals()["case_" + a.case](a, bad)
    for b in bad:
        print("FAIL:", b)
    print("FAIL" if bad else "OK")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
