"""The check run: collbench on the launch (the best of --launches, each
between probes of the machine) and on the platform with the launch's
layout, side by side; check.csv and check.md written, the record's
check and the .cfg's header updated (check.py is the arithmetic)."""
import os
import tempfile

from collx.calibrate import check as checkmod, measured as meas
from collx.calibrate import platform as plat
from collx.calibrate.measure import DRIFT, steady_launches
from collx.calibrate.model import header
from collx.calibrate.runs import Where, say

CHECK_COLLS = "bcast,allreduce,allgather,alltoall,reduce"
CHECK_SIZES = "8,64,512,4096,32768,262144,1048576"


def run_check(args, xml, layout, out):
    """The check: collbench on the launch and on the platform, side by
    side; writes check.csv and check.md and the record's check."""
    real = Where(launch=args.launch)
    hosts = [h for h in open(plat.files_of(xml)[1]).read().split() if h]
    with tempfile.TemporaryDirectory(prefix="collx-calibrate.") as work:
        hf = plat.hostfile(hosts, layout.nodes, layout.ppn, work)
        sim = Where(platform=xml, p=layout.p, hostfile=hf)
        reg_real = dict(real.target.registry())
        reg_sim = dict(sim.target.registry())
        points, drifts = [], {}
        probe = (plat.read_record(xml) or {}).get("probe")
        for coll in args.colls.split(","):
            points += check_coll(coll, args, real, sim, reg_real, reg_sim, probe, drifts)
    against = f"{args.launch} ({real.target.mpi_version() or real.mpi})"
    checkmod.write(points, os.path.join(out, "check.csv"), os.path.join(out, "check.md"),
                   against, os.path.basename(xml), drifts)
    rec = plat.read_record(xml)
    scope = check_scope(args)
    kept = kept_check(scope, rec.get("check")) if rec is not None else ""
    if rec is None or kept:   # its check stays in out
        say("check: " + checkmod.line(checkmod.summary(points)))
        if rec is not None:
            say(f"{kept}: the record of {os.path.basename(xml)} keeps its own check")
        say(f"wrote {os.path.join(out, 'check.md')}, check.csv")
        return
    steady = [p for p in points if abs(drifts.get(p["coll"], 1.0) - 1) <= DRIFT]
    rec["check"] = {"against": against, "date": plat.today(), "drift": drifts, "scope": scope,
                    "summary": checkmod.summary(points), "per_coll": checkmod.per_coll(points),
                    "steady_summary": checkmod.summary(steady) if steady else {"cases": 0}}
    plat.write_record(xml, {k: v for k, v in rec.items() if k != "schema"})
    if "node_from" not in rec:   # a published platform's header is gen_platforms.py's
        rewrite_header(xml, rec)
    say("check: " + checkmod.line(rec["check"]["summary"]))
    if len(steady) < len(points):
        say("check, the collectives run with the machine as calibrated: "
            + (checkmod.line(rec["check"]["steady_summary"]) if steady else
               "none (calibrate again when the machine is steady)"))
    say(f"wrote {os.path.join(out, 'check.md')}, check.csv")


def check_scope(args):
    """What a check covers: its collectives, its algorithms (None: all)."""
    return {"colls": sorted(args.colls.split(",")),
            "algs": sorted(args.algs.split(",")) if args.algs else None}


def kept_check(scope, old):
    """Why a record's check old stays rather than give way to a check of
    scope: old covers collectives or algorithms that scope does not (a
    recheck of bcast once replaced a check of five collectives, which
    collx predict quotes); '' when scope covers all of old's (a record
    without a check, or whose check says no scope: a full one). Fewer
    sizes still count: an oversubscribed cluster may not afford them."""
    if not old:
        return ""
    was = old.get("scope") or {"colls": CHECK_COLLS.split(","), "algs": None}
    missing = set(was["colls"]) - set(scope["colls"])
    if missing:
        return "a check without " + ", ".join(sorted(missing))
    if scope["algs"] is not None and (was["algs"] is None or
                                      set(was["algs"]) - set(scope["algs"])):
        return "a check of fewer algorithms (--algs)"
    return ""


def check_coll(coll, args, real, sim, reg_real, reg_sim, probe, drifts):
    """run_check's points of one collective: its algorithms on both sides
    (reg_real, reg_sim: the registries), real in steady launches (its
    drift from the calibration into drifts), then simulated."""
    algs = args.algs.split(",") if args.algs else \
        [a for a in reg_real.get(coll, []) if a in reg_sim.get(coll, [])]
    if not algs:
        raise ValueError(f"no algorithm of '{coll}' on both sides")
    env = None
    if args.rules:   # the tuned rules, as "selected", beside native
        algs = [a for a in algs if a != "selected"] + ["selected"]
        env = {"COLLX_RULES": os.path.abspath(args.rules)}
    sizes = [int(s) for s in args.check_sizes.split(",")]
    say(f"check {coll}: {len(algs)} algorithms x {len(sizes)} sizes, real "
        f"({args.launches} launches)")
    launches, ratio = steady_launches(
        real, probe, args, max(args.launches, 1),
        lambda: real.collbench(coll, algs, sizes, args.iters, max(args.iters // 10, 2),
                               env=env))
    if ratio is not None:
        drifts[coll] = ratio
        if abs(ratio - 1) > DRIFT:
            say(f"check {coll}: the machine is not as it was calibrated: its "
                f"{probe['bytes']}-B ping-pong ({probe['route']}) took {ratio:.2f}x "
                f"what was fitted around these runs (after {args.wait} s of waiting); "
                "this collective's errors are the machine's too (calibrate again, "
                "then check at once)")
    real_rows = meas.best_rows(launches, ("coll", "alg", "size_bytes"), "median_us")
    say(f"check {coll}: simulated")
    sim_rows = sim.collbench(coll, algs, sizes, 3, 1, env=env)
    got = checkmod.pair(real_rows, sim_rows)
    say(f"check {coll}: " + checkmod.line(checkmod.summary(got)))
    return got


def rewrite_header(xml, record):
    """The .cfg's comment lines again, from the record (the check added)."""
    cfg = plat.files_of(xml)[2]
    with open(cfg) as f:
        body = [line for line in f if not line.startswith("#")]
    with open(cfg, "w") as f:
        f.write("".join(f"# {h}\n" for h in header(record)) + "".join(body))
