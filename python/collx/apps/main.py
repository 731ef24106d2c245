"""collx apps: real applications from Debian, end to end.

  collx apps list                      the applications and their packages
  collx apps setup [--apps A,B]        apt-get install their packages (root)
  collx apps correct [options]         every algorithm of every collective
                                       an application calls, forced; its
                                       result against native's
  collx apps time [options]            on the emulated cluster: the profile,
                                       the oracle (each algorithm of the main
                                       collectives forced), the tuner in the
                                       application's launch, then native /
                                       tuned / online / oracle in ABBA rounds
  collx apps report DIR                DIR/report.md and one plot per app
  collx apps recheck DIR               the forced runs in DIR checked again
                                       with the tolerances as they are now
  collx apps quick                     CI's subset: LAMMPS, its alltoallv's
                                       algorithms, fake nodes (~1 min)

Results go to --out (default build/apps/<time>/): correct-<where>.csv,
time-<app>-<placement>/ (profile, oracle rows, rules, rounds), summary.json.
The emulated cluster must be up for --where cluster and for time
(./run cluster up 4x2 --switches 2 --uplink-rate 100mbit)."""
import argparse
import datetime
import glob
import json
import os
import subprocess
import sys

from collx import tools
from collx.apps import catalogue, correct, launch, report, share, timing


def out_dir(given):
    if given:
        return os.path.abspath(given)
    root = tools.checkout() or os.getcwd()
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return os.path.join(root, "build", "apps", stamp)


def apps_of(text):
    return [catalogue.get(a) for a in (text.split(",") if text else catalogue.APPS)]


def cmd_list(_a):
    for app in catalogue.APPS.values():
        print(f"{app.name:8} packages: {' '.join(app.packages)}\n{'':8} {app.about}\n"
              f"{'':8} tolerance: {app.why}\n")
    return 0


def installed(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True,
                       text=True)
    return "install ok installed" in r.stdout


def cmd_setup(a):
    missing = [p for app in apps_of(a.apps) for p in app.packages if not installed(p)]
    if not missing:
        correct.log("applications installed")
        return 0
    if os.geteuid() != 0:
        print(f"collx apps: install as root: apt-get install {' '.join(missing)}",
              file=sys.stderr)
        return 2
    correct.log(f"apt-get install {' '.join(missing)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], env=env, check=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + missing,
                   env=env, check=True, stdout=subprocess.DEVNULL)
    return 0


def where_of(a, placement=None):
    return launch.Where(a.where if placement is None else "cluster", a.np, a.rpn,
                        placement or a.placement, a.mpi)


def cmd_correct(a):
    out = out_dir(a.out)
    w = where_of(a)
    rows = []
    for app in apps_of(a.apps):
        rows += correct.matrix(app, w, a.size, os.path.join(out, f"correct-{w.label()}",
                                                           app.name),
                               colls=a.colls.split(",") if a.colls else None,
                               algs=a.algs.split(",") if a.algs else None,
                               timeout=a.timeout, mpi=a.mpi)
    path = os.path.join(out, f"correct-{w.label()}.csv")
    correct.write(rows, path)
    bad = [r for r in rows if r["status"] in ("fail", "error", "timeout")]
    counts = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    correct.log(f"{path}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for r in bad:
        correct.log(f"  {r['status']}: {r['app']} {r['collective']}={r['algorithm']}: "
                    f"{r['worst']} ({r['dir']})")
    return 1 if bad else 0


def time_one(app, w, out, a):
    """profile + oracle + tune + ABBA for one application and placement."""
    wd = os.path.join(out, f"time-{app.name}-{w.placement}")
    os.makedirs(wd, exist_ok=True)
    correct.log(f"== {app.name} on {w.label()}: the profile and the oracle "
                f"(collectives with >= {a.oracle_share:.0%} of the collective time)")
    done = os.path.join(wd, "oracle.csv")
    if a.resume and os.path.exists(done):
        rows = correct.read_rows(done)
        correct.log(f"--resume: the oracle's {len(rows)} runs from {done}")
    else:
        rows = correct.matrix(app, w, "time", os.path.join(wd, "oracle"), timeout=a.timeout,
                              mpi=a.mpi, min_share=a.oracle_share)
        correct.write(rows, done)
    profile = os.path.join(rows[0]["dir"], "stats.json")
    with open(profile) as f:
        stats = json.load(f)
    best = correct.oracle(rows)
    timed = os.path.join(wd, "summary.json")
    if a.resume and os.path.exists(os.path.join(wd, "time.csv")) and os.path.exists(timed):
        with open(timed) as f:
            best = json.load(f)["oracle"]   # the oracle the timed rounds ran
    correct.log(f"f = {share.share(stats):.3f}; oracle: "
                + (", ".join(f"{c}={x}" for c, x in sorted(best.items())) or "native"))
    rules = os.path.join(wd, "rules.json")
    if not (a.resume and os.path.exists(rules)):
        rules = timing.tune(w, profile, wd, a.budget, a.mpi)
    configs = {c: timing.settings(c, rules, best) for c in timing.CONFIGS}
    done = os.path.join(wd, "time.csv")
    if a.resume and os.path.exists(done):
        trows = timing.read_rows(done)
        correct.log(f"--resume: {len(trows)} timed launches from {done}")
    else:
        correct.log(f"ABBA: {a.rounds} rounds of {', '.join(configs)}")
        trows = timing.abba(app, w, os.path.join(wd, "rounds"), configs, a.rounds, a.timeout)
        timing.write(trows, done)
    summ = timing.summary(trows)
    served = timing.served_runs(app, w, os.path.join(wd, "served"), configs, a.timeout)
    info = {"app": app.name, "where": w.label(), "placement": w.placement,
            "share": share.share(stats), "job_seconds": share.job_seconds(stats),
            "by_collective": share.by_collective(stats),
            "profile_top": share.top_points(stats), "oracle": best, "rules": rules,
            "configs": configs, "summary": summ, "served": served,
            "native_coll_seconds": share.coll_seconds(stats)}
    with open(os.path.join(wd, "summary.json"), "w") as f:
        json.dump(info, f, indent=1)
    nat = summ.get("native", {}).get("median")
    for c, s in summ.items():
        if c != "native" and nat:
            correct.log(f"  {c}: median {s['median']:.2f} s, native/{c} "
                        f"{nat / s['median']:.3f}")
    return info


def cmd_time(a):
    out = out_dir(a.out)
    for app in apps_of(a.apps):
        for placement in a.placements.split(","):
            time_one(app, where_of(a, placement), out, a)
    correct.log(f"results in {out}; collx apps report {out}")
    return 0


def cmd_recheck(a):
    """Every CSV of forced runs in DIR checked again with the tolerances
    as they are now, from the runs' saved outputs (no launch)."""
    total = 0
    for path in sorted(glob.glob(os.path.join(a.dir, "correct-*.csv"))
                       + glob.glob(os.path.join(a.dir, "time-*", "oracle.csv"))):
        rows = correct.read_rows(path)
        n = correct.recheck(rows)
        correct.write(rows, path)
        total += n
        correct.log(f"{path}: {n} row(s) changed status")
    return 0


def cmd_quick(a):
    a.apps, a.colls, a.where, a.size = "lammps", "alltoallv", "fake", "check"
    a.timeout = min(a.timeout, 180)   # a run takes 1-2 s: a hang ends soon
    return cmd_correct(a)


def parse(argv):
    ap = argparse.ArgumentParser(prog="collx apps", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=("list", "setup", "correct", "time", "report", "quick",
                                       "recheck"))
    ap.add_argument("dir", nargs="?", help="report: the results folder")
    ap.add_argument("--apps", default="", help="a,b (default all: "
                    + ",".join(catalogue.APPS) + ")")
    ap.add_argument("--where", default="fake", choices=("fake", "cluster"),
                    help="correct: fake nodes on this machine, or the emulated cluster")
    ap.add_argument("--np", type=int, default=8, help="ranks (default 8)")
    ap.add_argument("--rpn", type=int, default=2, help="ranks per node (default 2)")
    ap.add_argument("--placement", default="block", help="correct on the cluster")
    ap.add_argument("--placements", default="block,cyclic", help="time: placements")
    ap.add_argument("--size", default="check", choices=("check", "time"))
    ap.add_argument("--colls", default="", help="correct: only these collectives")
    ap.add_argument("--algs", default="", help="correct: only these algorithms")
    ap.add_argument("--rounds", type=int, default=5, help="time: ABBA rounds (default 5)")
    ap.add_argument("--budget", type=float, default=150, help="time: tuner budget, s")
    ap.add_argument("--oracle-share", type=float, default=0.05,
                    help="time: force the algorithms of collectives with at least this "
                    "share of the collective time (default 0.05)")
    ap.add_argument("--timeout", type=float, default=900, help="per launch, s")
    ap.add_argument("--mpi", default=tools.default_mpi())
    ap.add_argument("--out", default="", help="results folder")
    ap.add_argument("--resume", action="store_true",
                    help="time: keep the oracle runs and rules already in --out")
    return ap.parse_args(argv)


def main(argv=None):
    a = parse(sys.argv[1:] if argv is None else argv)
    try:
        if a.action in ("report", "recheck") and not a.dir:
            raise SystemExit(f"collx apps {a.action} DIR")
        if a.action == "report":
            return report.main(a.dir)
        return {"list": cmd_list, "setup": cmd_setup, "correct": cmd_correct,
                "time": cmd_time, "quick": cmd_quick, "recheck": cmd_recheck}[a.action](a)
    except (RuntimeError, tools.ToolNotFound, KeyError) as e:
        print(f"collx apps: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
