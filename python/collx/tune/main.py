"""./run tune: measured automatic selection (python/collx/tune/README.md).

    ./run tune --platform ib-6x8 -n 32 --colls allreduce,bcast --budget 300 \\
               --out rules.json --report results/tune
    ./run tune --real -n 4 --sizes 8:64K --out rules.json
    ./run tune --launch "mpirun -np 64" --profile app-stats.json --budget 600
    ./run tune validate --rules rules.json --platform ib-6x8 -n 32 ...
"""
import argparse
import json
import os
import shlex
import signal
import sys
import time

from collx import mpifile, rulesfile, tools
from collx.csvio import write_rows
from collx.tune import grid as gridmod, mpialgs, mpitune
from collx.tune import profile as profmod
from collx.tune import report, rules as rulesmod
from collx.tune.between import Between
from collx.tune.decide import Decider
from collx.tune.labels import same_alg
from collx.tune.options import make_target, registry, target_args
from collx.tune.sampler import NothingMeasured, Sampler, grid_pairs, shown
from collx.tune.store import Store, save


# `collx tune --help`: for a user of an installed collx (issue 62: it named
# ./run tune and a README under python/, which an install does not have)
DESCRIPTION = """\
Measures collx's algorithms and the MPI's own (native) on your launch and
writes a rules file (COLLX_RULES) that picks an algorithm only where it beat
native beyond the noise, in every repeat; native everywhere else.

  collx tune --launch "mpirun -np 4" --colls allreduce,bcast --budget 60 \\
             --out rules.json --report tune-report
  collx tune --launch "mpirun -np 64 --hostfile hosts" --profile app.json \\
             --budget 600 --out rules.json     # app.json: COLLX_STATS=app.json
  collx rules check rules.json     # what it serves, how much rests on measurements
  collxrun --rules rules.json -- mpirun -np 4 ./app

--launch takes the launcher words you run the application with (Open MPI's
mpirun, MPICH's mpiexec, Slurm's srun); what the application's launch needs
goes into them (--oversubscribe with more ranks than cores, a hostfile, MCA
parameters). --budget: seconds to spend measuring (wall seconds on a real
MPI); a small budget measures less and writes fewer rules, not guesses.

Exit status: 0 rules written and loaded in collx as they say; 1 nothing could
be measured (every run failed, or the budget allowed none: no file written,
the first failed run's whole message shown), or the rules' check failed: a
check run failed or column ran disagrees with the rules (the file is
written; --no-check skips the check).

Manual: man collx-tune (installed with collx); collx validate --help for
measuring the rules at points the tuner did not."""


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="collx tune", description=DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    target_args(ap)
    ap.add_argument("--profile", help="the application's profile, the JSON COLLX_STATS="
                    "FILE.json writes: measure exactly its points (collectives, communicator "
                    "sizes, message sizes), weighted by its time there, the budget split by "
                    "that time (--colls, --sizes, --comm-sizes then unneeded; P defaults to "
                    "its job's ranks)")
    ap.add_argument("--sizes", help="MIN:MAX bytes per rank, powers of two between "
                    "(default 8:4194304)")
    ap.add_argument("--comm-sizes", help="communicator sizes, comma-separated (default: "
                    "P, P/2, ... and 3P/4, 3P/8, ..., whole nodes, each also with a quarter, "
                    "a half and three quarters of a node more; man collx-tune)")
    ap.add_argument("--budget", type=float, help="seconds of host CPU time (SMPI) or wall "
                    "time (real) to spend measuring; the best rules so far are written")
    ap.add_argument("--no-params", action="store_true",
                    help="leave out the algorithms' variants with per-call knobs set "
                    "(collx_info --vars: \"tuned\"), measure each algorithm as it is")
    ap.add_argument("--grid", action="store_true",
                    help="measure the whole grid (every algorithm everywhere), for comparison")
    ap.add_argument("--margin", type=float, default=0.02,
                    help="an algorithm replaces native only if faster by this fraction "
                    "beyond the noise (default 0.02)")
    ap.add_argument("--predictions", action="store_true",
                    help="on a real MPI, let the model's predictions replace native where "
                    "nothing was measured (default: only measurements, faster in every "
                    "repeat; in SMPI, whose runs repeat exactly, predictions always count)")
    ap.add_argument("--noise-floor", type=float,
                    help="smallest relative 95%% half-width assumed for a point "
                    "(default 0.005 SMPI, 0.01 real)")
    ap.add_argument("--out", default="rules.json", help="the rules file (default rules.json)")
    ap.add_argument("--report", help="folder for report.md, maps, measurements CSV/JSON")
    ap.add_argument("--from", dest="resume", help="start from the measurements of a "
                    "tune.json (a --report of an earlier run): its cost counts as spent")
    ap.add_argument("--decide-only", action="store_true",
                    help="with --from: measure nothing, write the rules (and report) from "
                    "its measurements (e.g. with another --margin)")
    ap.add_argument("--mpi-file", help="also tune the MPI itself (a real MPI: Open MPI or "
                    "MPICH): measure each of its own algorithms (read from it through "
                    "MPI_T), write its own tuning file here (Open MPI's dynamic rules, MPICH's "
                    "selection JSON: the MPI alone, no collx, runs its best there), and decide "
                    "collx's rules against native tuned by it; collxrun --rules applies both")
    ap.add_argument("--no-check", action="store_true",
                    help="skip loading the rules in collbench (--algs selected) at the end")
    return ap.parse_args(argv)


def stop_on_sigterm():
    """SIGTERM ends the tuner like Ctrl-C: the run under way is killed
    with it (limits.run), nothing is left behind."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def main(argv):
    stop_on_sigterm()
    a = parse_args(argv)
    job, entries = read_profile(a)
    t = make_target(a)
    t0 = time.time()
    prof, algs, grids, comms, lo, hi = what_to_measure(a, t, job, entries)
    if max(comms) > t.p or min(comms) < 2:
        raise SystemExit(f"tune: communicator sizes must lie in 2..{t.p}")
    floor = a.noise_floor if a.noise_floor is not None else \
        (0.005 if t.kind != "real" else 0.01)
    if a.resume:
        with open(a.resume) as f:
            store = Store.from_json(json.load(f)["measurements"])
    else:
        store = Store(floor)
    # with a profile, the setups are charged to the points' calls (decide.py)
    dec = Decider(store, algs, a.margin, grids, t.node, calls=prof.calls() if prof else None,
                  measured_only=t.launches_vary and not a.predictions)
    s = Sampler(t, grids, algs, store, dec, a, weights=prof.weights() if prof else None)
    full = grid_pairs(grids, algs)
    say_start(s, t, a, algs, comms, lo, hi, full, prof)
    if a.decide_only and not a.resume:
        raise SystemExit("tune: --decide-only needs --from")
    mpi_meta = tune_mpi(t, a, argv, grids, algs, s) if a.mpi_file else None
    try:
        sample(s, a, prof)
    except NothingMeasured as e:
        return nothing_measured(s, a, f"the first {len(e.args[0])} runs failed before their "
                                "first case, so the tuner stopped")
    if not store.samples:
        return nothing_measured(s, a, f"all {len(s.failures)} runs failed" if s.failures
                                else "the budget allowed no run")
    choices, rules_of = decide_rules(dec, grids, t)
    all_rules = rulesmod.ordered(rules_of)
    bases = report.bases_of(store, dec, grids, choices)
    noise = report.noise_of(dec, grids, choices)
    points, between = report.rule_points(all_rules, grids, store, t.node)
    ev = report.evidence(all_rules, points, between, bases, store, len(store.batches),
                         len(s.failures), noise)
    rulesmod.write(a.out, all_rules, provenance(t, a, argv, grids, lo, hi, prof, ev,
                                                mpi_meta))
    n = f"{len(all_rules)} rule{'s' if len(all_rules) != 1 else ''}"
    say_written(s, a, store, full, n)
    check = None
    if not a.no_check and t.kind != "replay":
        check = check_rules(t, a, all_rules, grids, store, s)
    if a.report:
        os.makedirs(a.report, exist_ok=True)
        meta = report_meta(a, argv, t, t0, s, prof, algs, comms, lo, hi, full, check)
        save(store, os.path.join(a.report, "tune.json"), meta)
        report.write(a.report, meta, grids, store, dec, choices, all_rules, s, prof,
                     rules_of=rules_of, bases=bases, noise=noise)
        s.say(f"report: {os.path.join(a.report, 'report.md')}")
    # the last line: how sure the rules are, as `collx rules check` says it
    s.say(f"evidence: {n}; {rulesfile.evidence_text(ev, all_rules)} "
          f"(`collx rules check {a.out}` names the rules not wholly measured)")
    return 1 if check and (check["mismatches"] or check.get("failed")) else 0


def read_profile(a):
    """(the job, the entries) of --profile's file, or (None, None); P is
    the job's ranks unless -n says otherwise, and the profile says which
    sizes to measure."""
    if not a.profile:
        return None, None
    try:
        job, entries = profmod.read(a.profile)
    except profmod.ProfileError as e:
        raise SystemExit(f"tune: {e}")
    if a.p is None and job.get("ranks"):
        a.p = job["ranks"]   # the job's size, unless -n says otherwise
    for opt in ("sizes", "comm_sizes"):
        if getattr(a, opt):
            raise SystemExit(f"tune: --{opt.replace('_', '-')} with --profile: the "
                             "profile says which sizes to measure")
    return job, entries


def what_to_measure(a, t, job, entries):
    """(the profile or None, {key: algorithms}, {key: grid}, the
    communicator sizes, the smallest and largest message size): a
    profile's points, else the grid the options ask for."""
    prof = None
    if a.profile:
        every = registry(t, "all", params=False)
        prof = profmod.Profile(a.profile, job, entries, t.p, t.node, set(every))
        if not prof.points:
            raise SystemExit(f"tune: nothing to measure in {a.profile}: " + "; ".join(
                f"{e['collective']} p={e['comm_size']}: {why}" for e, why in prof.skipped[:5]))
        want = [c for c in prof.points
                if a.colls == "all" or gridmod.coll_of(c) in a.colls.split(",")]
        colls = list(dict.fromkeys(gridmod.coll_of(c) for c in want))
        by_coll = registry(t, ",".join(colls), params=not a.no_params, only=a.algs)
        algs = {c: by_coll[gridmod.coll_of(c)] for c in want}   # a shaped key: its coll's
        prof.points = {c: prof.points[c] for c in want}
        grids = prof.grids()
        comms = sorted({q for g in grids.values() for q in g.comms})
        lo = min(m for g in grids.values() for m in g.sizes)
        hi = max(m for g in grids.values() for m in g.sizes)
    else:
        algs = registry(t, a.colls, params=not a.no_params, only=a.algs)
        lo, hi = gridmod.parse_range(a.sizes or "8:4194304")
        comms = [int(x) for x in a.comm_sizes.split(",")] if a.comm_sizes else \
            gridmod.comm_sizes(t.p, t.node)
        grids = {c: gridmod.Grid(c, comms, gridmod.msg_sizes(lo, hi)) for c in algs}
    return prof, algs, grids, comms, lo, hi


def say_start(s, t, a, algs, comms, lo, hi, full, prof):
    """The first lines: the target, the grid, the budget; what --launch
    leaves out; the profile."""
    s.say(f"{t.describe()}; {len(algs)} collectives, communicator sizes "
          f"{','.join(map(str, sorted(comms)))}, sizes {lo}..{hi} B; grid {full} "
          f"(algorithm, point) pairs; "
          f"budget {a.budget or 'none'}")
    if t.unset:
        s.say("--launch: left out of the runs' environment, as ./run exported them "
              "(this repository's test settings, bench/mpi_env.sh): " + ", ".join(t.unset))
    if prof:
        say_profile(s, prof, t)


def decide_rules(dec, grids, t):
    """({key: {(q, m): choice}}, {key: its rules}) from what was measured."""
    rules_of, choices = {}, {}
    for c, g in grids.items():
        dec.refit(c)
        choices[c] = dec.choices(c, g)
        rules_of[c] = rulesmod.build(c, g, choices[c], t.node,
                                     close=dec.candidates(c, g, choices[c]),
                                     row=Between(dec, c, g, choices[c],
                                                 gridmod.node_of(c, t.node)).row)
    return choices, rules_of


def say_written(s, a, store, full, n):
    """The lines after the rules file is written (n: "3 rules"): what was
    measured, the runs that failed, the collectives given up."""
    s.say(f"wrote {a.out}: {n}; measured {store.pairs()} of the grid's "
          f"{full} (algorithm, point) pairs ({100 * store.pairs() / full:.0f} %); "
          f"{s.budget_text()}")
    if s.failures:
        s.say(s.failures_text())
    for c, why in s.given_up.items():
        s.say(f"{c}: not measured: its runs kept failing the same way ({why}); its rules "
              "say native for want of a comparison")


def report_meta(a, argv, t, t0, s, prof, algs, comms, lo, hi, full, check):
    """tune.json's and report.md's "meta": the run's options, target and
    outcome."""
    return {"target": t.describe(), "kind": t.kind, "p": t.p, "node": t.node,
            "colls": list(algs), "algs": algs, "comm_sizes": sorted(comms),
            "sizes": [lo, hi], "budget": a.budget,
            "mode": "decide-only" if a.decide_only else "grid" if a.grid else
            "profile" if prof else "guided",
            "margin": a.margin, "reps": a.reps, "iters": a.iters, "warmup": a.warmup,
            "rules": a.out, "stopped": s.stopped,
            "wall_s": time.time() - t0, "grid_pairs": full, "check": check,
            "failures": failures_meta(s),
            "spent_s": s.spent(), "own_cpu_s": s.own_cpu(),
            "command": ("./run tune " if tools.checkout() else "collx tune ") +
            shlex.join(argv),
            "profile": prof and {"path": a.profile, "job": prof.job,
                                 "seconds": prof.seconds, "entries": prof.entries,
                                 "skipped": [[e, why] for e, why in prof.skipped]}}


def sample(s, a, prof):
    """Measures what the mode asks for (nothing with --decide-only)."""
    if a.decide_only:
        return
    if a.grid:
        s.exhaustive()
    elif prof:
        s.natives()
        s.profiled()
        s.guided()
    elif s.initial():
        s.whole()
        s.natives()
        s.guided()


def nothing_measured(s, a, why):
    """Says that nothing could be measured, with the first failed run's
    whole message, and writes nothing: a file of native rules would say
    nothing of this machine, and `collx rules check` would pass it
    (issue 62). Returns the exit status, 1."""
    kept = os.path.exists(a.out)
    lines = [f"tune: nothing could be measured: {why}. No rules written ({a.out} " +
             ("is left as it was" if kept else "not created") + ")."]
    if s.failures:
        first = s.failures[0]
        lines += [f"The first failed run ({first['coll']} p={first['q']}):",
                  shown(first["report"])]
        others = list(dict.fromkeys(f["why"] for f in s.failures if f["why"] != first["why"]))
        lines += [f"Other failures: {w}" for w in others[:3]]
    sys.stderr.write("\n".join(lines) + "\n")
    return 1


def failures_meta(s):
    """The failed runs for the report (report.failures_section): how many
    of how many, the first one's whole message, the other kinds' gists."""
    if not s.failures:
        return {"runs": 0}
    first = s.failures[0]
    return {"runs": len(s.failures), "of": len(s.store.batches), "first": first["report"],
            "first_where": f"{first['coll']} p={first['q']}",
            "others": list(dict.fromkeys(f["why"] for f in s.failures
                                         if f["why"] != first["why"]))}


def say_profile(s, prof, t):
    """What of the profile is measured, and what is set aside (and why)."""
    share = prof.measured_seconds() / prof.seconds if prof.seconds else 0.0
    npts = sum(len(v) for v in prof.points.values())
    s.say(f"profile {prof.path}: {len(prof.entries)} entries, {prof.seconds:.3g} s in "
          f"collectives (the mean rank's); measuring {npts} points "
          f"({100 * share:.0f} % of that time)")
    for c in (c for c in prof.points if gridmod.per_node_of(c)):
        qs = ",".join(map(str, sorted({q for q, _ in prof.points[c]})))
        s.say(f"profile: {gridmod.coll_of(c)} p={qs} with {gridmod.per_node_of(c)} rank(s) "
              f"per node, not ranks 0..q-1: measured as {c} (collbench --comm-shape)")
    for e, why in prof.skipped:
        msgs = f"{e['msg_lo']}..{e['msg_hi']} B" if e["msg_hi"] is not None else "any size"
        s.say(f"profile: {e['collective']} p={e['comm_size']} {msgs} ({e['time']:.3g} s) "
              f"not measured: {why}")
    rpn = prof.job.get("ranks_per_node")
    if rpn and (t.node or t.p) != rpn and t.kind != "replay":
        s.say(f"profile: the job ran {rpn} ranks per node, the target has "
              f"{t.node or t.p}: its rules' ranks_per_node will not match the job's calls")


def tune_mpi(t, a, argv, grids, algs, s):
    """The MPI's own algorithms measured and its tuning file written
    (mpitune.py); the runs after it then have that file in their
    environment, so collx's algorithms are decided against native as
    the file tunes it. Returns the rules file's "mpi_tuning"."""
    if t.kind not in ("real", "smpi"):
        raise SystemExit("tune: --mpi-file measures a real MPI (--launch or --real) or SMPI "
                         "(--platform)")
    colls = list(dict.fromkeys(gridmod.coll_of(c) for c in grids))
    try:
        mpi = mpialgs.read_smpi(mpialgs.smpi_runner(t), colls, t.mpi_version()) \
            if t.kind == "smpi" else mpialgs.read(t.info, colls, t.mpi_version(),
                                                  one_node=not t.node or t.node >= t.p,
                                                  alone_on_nodes=t.node == 1)
    except (ValueError, RuntimeError, OSError) as e:
        raise SystemExit(f"tune: --mpi-file: {e}")
    for c in colls:
        s.say(f"mpi: {mpi.version or mpi.kind}: {c}: " +
              (", ".join(f"{n} ({i})" for n, i in mpi.algs[c]) if c in mpi.algs else
               "no algorithm named through MPI_T"))
    if mpi.unconfirmed:
        s.say("mpi: names the MPI did not confirm (left out): " + ", ".join(mpi.unconfirmed))
    if mpi.defaults:
        s.say("mpi: SMPI's defaults (sim/run's): " +
              ", ".join(f"{c} {n}" for c, n in mpi.defaults.items()))
    mt = mpitune.MpiTune(t, a, mpi, grids, algs, say=s.say, weights=s.profile)
    for c in mt.skipped:
        s.say(f"mpi: {c}: not tuned ({mpi.kind}'s file cannot key it by message size, or "
              "the MPI names no algorithm for it)")
    if not mt.grids:
        raise SystemExit("tune: --mpi-file: none of these collectives can be tuned in the "
                         "MPI's own file")
    start = time.time()
    mt.run()
    # not counted in --budget: on a real MPI the budget is wall time since
    # the sampler started (the emulated cluster, 8 ranks: the MPI's 184 s
    # left collx's 120 s nothing)
    s.uncounted += time.time() - start
    choices = mt.choices()
    try:
        env = mt.write(a.mpi_file, choices, mpitune.header(mpi, t, argv))
    except ValueError as e:
        raise SystemExit(f"tune: --mpi-file: {e}")
    kind, probs, _ = mpifile.check(a.mpi_file)
    if probs:
        raise SystemExit(f"tune: {a.mpi_file}: " + "; ".join(probs))
    picked = sum(x != "native" for by_q in choices.values() for v in by_q.values() for x in v)
    points = sum(len(v) for by_q in choices.values() for v in by_q.values())
    s.say(f"wrote {a.mpi_file}: the MPI's own choice replaced at {picked} of {points} grid "
          f"points; {mt.launches} launches, {mt.cost:.0f} s (not counted in --budget, "
          "which is collx's algorithms'). collx's algorithms are now measured against "
          "native tuned by it")
    t.extra_env = env
    if a.report:
        mpitune.write_report(a.report, mt, choices)
        rows = mt.table(choices)
        cols = list(dict.fromkeys(k for r in rows for k in r))
        write_rows(os.path.join(a.report, "mpi_decisions.csv"), cols, rows)
    return {"file": os.path.abspath(a.mpi_file), "mpi": kind, "env": env,
            "version": mpi.version, "algorithms": mpi.to_json()["algorithms"],
            "yardstick": mt.ref}


def provenance(t, a, argv, grids, lo, hi, prof=None, evidence=None, mpi_tuning=None):
    """The rules file's "provenance" (share/collx/rules/rules.schema.json):
    what was measured, where, with what, when, and what each rule rests
    on (evidence: report.evidence)."""
    comms = sorted({q for g in grids.values() for q in g.comms})
    return rulesmod.provenance(
        "collx tune " + shlex.join(argv), target=t.describe(), kind=t.kind,
        platform=getattr(t, "name", None) if t.kind == "smpi" else None,
        mpi=t.mpi_version(), machine=t.machine(), ranks=t.p, ranks_per_node=t.node,
        collectives=list(dict.fromkeys(gridmod.coll_of(c) for c in grids)),
        comm_size={"min": comms[0], "max": comms[-1]},
        msg_size={"min": lo, "max": hi}, budget=a.budget, budget_clock=t.clock,
        mode="decide-only" if a.decide_only else "grid" if a.grid else
        "profile" if prof else "guided",
        margin=a.margin, profile=prof and os.path.abspath(prof.path), evidence=evidence,
        mpi_tuning=mpi_tuning)


def check_rules(t, a, all_rules, grids, store, s):
    """Loads the rules in collx: collbench --algs selected with COLLX_RULES
    at the smallest communicator size and, with nodes, the smallest across
    nodes, at a size for every distinct choice there; column ran must say
    what the rules say."""
    path = os.path.abspath(a.out)
    res = {"points": 0, "mismatches": []}
    for c, g in grids.items():
        node, coll = gridmod.node_of(c, t.node), gridmod.coll_of(c)
        qs = {g.comms[0]} | ({min(q for q in g.comms if q > node)}
                            if node and g.comms[-1] > node else set())
        for q in sorted(qs):
            rpn = store.ppn.get((c, q), min(q, node or q))
            picks = {}   # a size per distinct choice, measured there if there is one
            for m in sorted(g.sizes, key=lambda m: not store.usable(
                    c, rulesmod.match(all_rules, coll, q, m, rpn) or "native", q, m)):
                choice = rulesmod.match(all_rules, coll, q, m, rpn)
                # not where the choice ran out of memory or time while
                # sampling: the check would too, and say nothing of the rules
                if not store.cannot(c, choice or "native", q, m):
                    picks.setdefault(choice, m)
            sizes = sorted(picks.values())[:4]
            if not sizes:
                continue
            rows, out = t.run_collbench(q, gridmod.comm_args(c, q) + [
                "--algs", "selected", "-m", ",".join(map(str, sizes)), "-i", "1", "-x", "0"],
                env={"COLLX_RULES": path}, timeout=a.timeout, mem_limit=a.mem_limit)
            if not out.ok:   # not the rules' fault: said, not counted against them
                s.say(f"check: {c} p={q}: collbench failed: {out.why()}")
                res.setdefault("failed", []).append(f"{c} p={q}: {out.why()}")
            for r in rows:
                m = int(r["size_bytes"])
                want = rulesmod.match(all_rules, coll, q, m, int(r["ppn"])) or "native"
                res["points"] += 1
                if not same_alg(r["ran"], want):
                    res["mismatches"].append(f"{c} p={q} {m} B: rules say {want}, "
                                             f"ran {r['ran']}")
    for msg in res["mismatches"]:
        s.say(f"CHECK FAILED: {msg}")
    if res.get("failed"):   # issue 62: said, then "the rules load in collx" and exit 0
        s.say(f"CHECK FAILED: {len(res['failed'])} check run(s) failed, so the rules were "
              f"not confirmed to load in collx (column ran agrees at {res['points']} "
              f"points); the file is written; exit status 1")
    elif res["mismatches"]:
        s.say(f"check: {len(res['mismatches'])} disagreements of {res['points']} points")
    else:
        s.say(f"check: the rules load in collx; column ran agrees at {res['points']} points")
    return res


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
