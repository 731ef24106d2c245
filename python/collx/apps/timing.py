"""Faster, measured honestly: an application's wall time on the emulated
cluster with native (no collx), loaded (collx, nothing chosen), tuned (COLLX_RULES from the profile ->
tune -> run cycle), online (COLLX_TUNE_ONLINE=1) and the oracle (the best
single algorithm per collective, found by forcing each: correct.oracle),
interleaved in ABBA rounds (round i runs the configurations in order, the
next round in reverse), so that a drift of the machine falls on every
configuration alike.

Per configuration: min and median wall time over the rounds; the ratio to
native per round (both launched next to each other), its geometric mean,
95 % interval and the one-sided p of "slower than native" (validate's t
on logs), so a family of applications x placements can be tested at a
family-wise 5 % (Holm, as `collx validate` does)."""
import json
import os
import statistics
import subprocess
import sys

from collx import csvio, tools
from collx.apps import correct, launch, share
from collx.tune import validate

# loaded: collx loaded, nothing chosen (the interposer's own cost)
CONFIGS = ("native", "loaded", "tuned", "online", "oracle")
FIELDS = ("app", "where", "round", "config", "wall_seconds", "job_seconds", "rc", "dir")


def settings(config, rules=None, oracle=None):
    """The COLLX_ settings of a configuration (None: native, no collx)."""
    if config == "native":
        return None
    if config == "loaded":
        return {}
    if config == "tuned":
        return {"COLLX_RULES": rules}
    if config == "online":
        return {"COLLX_TUNE_ONLINE": "1"}
    if config == "oracle":
        return {f"COLLX_{c.upper()}_ALGORITHM": a for c, a in sorted((oracle or {}).items())}
    raise ValueError(config)


def tune(where, profile, outdir, budget, mpi="openmpi"):
    """The profile -> tune step: `collx tune --launch` in the application's
    own launch, measuring the profile's points. Returns the rules path."""
    rules = os.path.join(outdir, "rules.json")
    launcher = " ".join(where.launcher())
    cmd = [sys.executable, "-m", "collx", "tune", "--launch", launcher,
           "--ranks-per-node", str(where.rpn), "--profile", profile,
           "--budget", str(budget), "--out", rules, "--report", os.path.join(outdir, "tune")]
    correct.log(f"tune: {' '.join(cmd[2:])}")
    env = launch.clean_env({})
    env["PYTHONPATH"] = os.path.dirname(tools.PKG)
    env["COLLX_MPI"] = mpi
    with open(os.path.join(outdir, "tune.log"), "w") as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env).returncode
    if rc != 0 or not os.path.exists(rules):
        raise RuntimeError(f"tune failed (rc {rc}): {outdir}/tune.log")
    return rules


def abba(app, where, outdir, configs, rounds=5, timeout=900):
    """rounds ABBA rounds of the configurations {name: settings}; rows."""
    names = list(configs)
    rows = []
    for i in range(rounds):
        order = names if i % 2 == 0 else names[::-1]
        for name in order:
            wd = os.path.join(outdir, f"r{i}-{name}")
            os.makedirs(wd, exist_ok=True)
            program = app.prepare(wd, "time")
            r = launch.run(where, program, wd, collx=configs[name], stats=False,
                           timeout=timeout)
            rows.append({"app": app.name, "where": where.label(), "round": i, "config": name,
                         "wall_seconds": f"{r.seconds:.3f}", "job_seconds": "",
                         "rc": "timeout" if r.timed_out else r.rc, "dir": wd})
            correct.log(f"  round {i + 1}/{rounds} {name}: {r.seconds:.2f} s"
                        f"{'' if r.ok() else ' FAILED rc ' + str(r.rc)}")
    return rows


def served_runs(app, where, outdir, configs, timeout=900):
    """One more launch of each collx configuration, untimed, with
    COLLX_STATS: which algorithm served each collective (what the rules
    and online tuning chose) and the time in collectives. {config:
    {"coll_seconds", "job_seconds", "served": [[coll, alg, calls]]}};
    a folder that has its stats.json already is read, not run again."""
    out = {}
    for name, env in configs.items():
        if env is None:
            continue
        wd = os.path.join(outdir, name)
        path = os.path.join(wd, "stats.json")
        st = None
        if os.path.exists(path):
            with open(path) as f:
                st = json.load(f)
        else:
            os.makedirs(wd, exist_ok=True)
            r = launch.run(where, app.prepare(wd, "time"), wd, collx=env, stats=True,
                           timeout=timeout)
            st = r.stats
            correct.log(f"  {name} with COLLX_STATS: {r.seconds:.2f} s")
        if st:
            out[name] = {"coll_seconds": share.coll_seconds(st),
                         "job_seconds": share.job_seconds(st),
                         "served": [[x["collective"], x["algorithm"], x["calls"]]
                                    for x in st.get("served", [])]}
    return out


def summary(rows):
    """{config: {"n", "min", "median", "ratio": (geomean, lo, hi, p) of
    config/native per round}}."""
    out = {}
    by = {}
    for r in rows:
        if str(r["rc"]) == "0":
            by.setdefault(r["config"], {})[int(r["round"])] = float(r["wall_seconds"])
    nat = by.get("native", {})
    for c, t in by.items():
        vals = list(t.values())
        ratios = [t[k] / nat[k] for k in sorted(t) if k in nat and nat[k] > 0]
        out[c] = {"n": len(vals), "min": min(vals), "median": statistics.median(vals),
                  "ratio": validate.ratio_interval(ratios) if c != "native" else None}
    return out


def write(rows, path):
    csvio.write_rows(path, FIELDS, rows)


read_rows = csvio.read_rows
