"""The measurements calibrate fits: calibench, node_sync and the MPI's
8-B gather on the launch (or an earlier calibration's, --from; routes it
lacks from another's, --add), each the best of --launches, each launch
bracketed by probes of the machine's small ping-pong and taken again
where the machine is not in the state it was calibrated in (the check
uses the same probes)."""
import os
import re
import tempfile
import time

from collx.calibrate import check as checkmod, measured as meas
from collx.calibrate import platform as plat
from collx.calibrate.runs import RunFailed, Where, say
from collx.csvio import read_rows, write_rows
from collx.tune.target import cpu_model

# a call's own cost: the MPI's 8-B gather, a collective the check does not
# run (a barrier was tried first: MPICH 4.0's takes 1.4 us at p = 2, six
# times its gather, and charged every call that much); collx's, its
# binomial gather in the same launch (one message at p = 2, posted and
# waited for as every collx algorithm's are)
CALL_COLL, CALL_ITERS = "gather", 500
COLLX_CALL_ALG = "binomial"
REFERENCE_PROBES = 5   # quick ping-pongs that set the machine's state to calibrate in
DRIFT = checkmod.DRIFT   # the machine's ping-pong this far from the calibration's: said
WAIT_STEP = 5   # seconds between probes while the machine is not as calibrated


class Layout:
    """Ranks, ranks per node (block placement) and nodes of the launch, as
    calibench saw it ('# calibench: P ranks; partner on rank 0's node: A,
    on another node: B')."""

    def __init__(self, text):
        m = re.search(r"calibench: (\d+) ranks; partner on rank 0's node: (-?\d+), "
                      r"on another node: (-?\d+)", text)
        if not m:
            raise RunFailed("calibench did not say the launch's layout:\n" + text[-2000:])
        self.p, self.on_node, self.off_node = (int(g) for g in m.groups())
        self.ppn = self.off_node if self.off_node > 0 else self.p
        self.nodes = -(-self.p // self.ppn)

    def line(self):
        return (f"# calibench: {self.p} ranks; partner on rank 0's node: {self.on_node}, "
                f"on another node: {self.off_node}")


def measure(args, out):
    """The measurements (measured here, or --from), with the routes --add
    brings that they lack; returns (Measured, Layout, what ran)."""
    m, layout, about = measure_one(args, out)
    for d in args.add or ():
        rows = meas.read_calibench(os.path.join(d, "calibench.csv"))
        have = {r["route"] for r in m.rows}
        new = [r for r in rows if r["route"] not in have]
        if not new:
            raise ValueError(f"--add {d}: no route these measurements lack")
        m.rows += new
        ns = os.path.join(d, "node_sync.csv")
        sync = m.sync or (meas.read_node_sync(ns) if os.path.exists(ns) else {})
        routes = sorted({r["route"] for r in new})
        about[f"added ({', '.join(routes)})"] = read_about(d).get("launch", d)
        calls, m = (m.call, m.collx_call), meas.Measured(m.rows, sync)
        m.call, m.collx_call = calls
        say(f"--add {d}: routes {', '.join(routes)} from its measurements")
    if args.add:
        write_rows(os.path.join(out, "calibench.fitted.csv"), list(m.rows[0]), m.rows)
    return m, layout, about


def read_one(src, out):
    """measure_one's --from: the measurements recorded in src (copied
    into out beside what is fitted from them)."""
    with open(os.path.join(src, "layout.txt")) as f:
        layout = Layout(f.read())
    rows = meas.read_calibench(os.path.join(src, "calibench.csv"))
    ns = os.path.join(src, "node_sync.csv")
    sync = meas.read_node_sync(ns) if os.path.exists(ns) else {}
    about = read_about(src)
    for name in ("calibench.csv", "node_sync.csv", "call.csv", "layout.txt",
                 "about.txt"):   # the inputs
        s, d = os.path.join(src, name), os.path.join(out, name)
        if os.path.exists(s) and os.path.abspath(s) != os.path.abspath(d):
            with open(s) as fi, open(d, "w") as fo:
                fo.write(fi.read())
    m = meas.Measured(rows, sync)
    call = os.path.join(src, "call.csv")
    if os.path.exists(call):
        set_calls(m, read_rows(call))
    return m, layout, about


def set_calls(m, rows):
    """m.call (the MPI's 8-B gather) and m.collx_call (collx's binomial
    gather, None in a calibration older than its measurement) from
    call.csv's rows, median r in seconds."""
    by = {r["alg"]: float(r["median_us"]) * 1e-6 for r in rows}
    m.call = by.get("native", float(rows[0]["median_us"]) * 1e-6)
    m.collx_call = by.get(COLLX_CALL_ALG)


def measure_one(args, out):
    """Runs calibench and node_sync on the launch (or reads --from);
    returns (Measured, Layout, what ran)."""
    if args.from_dir:
        return read_one(args.from_dir, out)
    where = Where(launch=args.launch)
    n = max(args.launches, 1)
    layout, probe = reference(where, out)
    say(f"messages, copies: calibench -m {args.sizes} on {where.describe()}, {n} launches")
    csv = os.path.join(out, "calibench.csv")
    count = iter(range(1, 1000))

    def calibench():
        path = os.path.join(out, f"calibench.{next(count)}.csv")
        where.calibench(path, args.sizes, args.reps)
        return meas.read_calibench(path)
    runs, _ = steady_launches(where, probe, args, n, calibench)
    write_rows(csv, list(runs[0][0]), meas.best_rows(runs))
    sync = {}
    if layout.on_node > 0:
        say(f"the node's flags, collx's work per call: node_sync, {n} launches")
        ns = os.path.join(out, "node_sync.csv")
        count = iter(range(1, 1000))

        def node_sync():
            path = os.path.join(out, f"node_sync.{next(count)}.csv")
            where.node_sync(path)
            return read_rows(path)
        syncs, _ = steady_launches(where, probe, args, n, node_sync)
        write_rows(ns, list(syncs[0][0]), meas.best_rows(syncs, ("metric", "ranks"),
                                                          "seconds"))
        sync = meas.read_node_sync(ns)
    say(f"a collective call's own cost: collbench --coll {CALL_COLL} -m 8, {n} launches")
    bars, _ = steady_launches(where, probe, args, n, lambda: where.collbench(
        CALL_COLL, ["native", COLLX_CALL_ALG], [8], CALL_ITERS, CALL_ITERS // 10))
    rows = meas.best_rows(bars, ("coll", "alg"), "median_us")
    write_rows(os.path.join(out, "call.csv"), list(rows[0]), rows)
    about = {"launch": args.launch, "mpi": where.target.mpi_version() or where.mpi,
             "host": os.uname().nodename, "cpu": cpu_model(), "date": plat.today()}
    with open(os.path.join(out, "about.txt"), "w") as f:
        f.writelines(f"{k}={v}\n" for k, v in about.items())
    m = meas.Measured(meas.read_calibench(csv), sync)
    set_calls(m, rows)
    return m, layout, about


def reference(where, out):
    """(Layout, probe): the launch's layout and the machine's state every
    measurement is taken in: the fastest small ping-pong of REFERENCE_PROBES
    quick launches a second apart. This VM's two cores sit, for seconds to
    minutes (Open MPI) or launch by launch (MPICH), where a small message
    takes three to five times as long: every measurement is the best of
    --launches, each bracketed by probes and done again outside a quarter
    of the fastest, as long as --wait allows."""
    seen = []
    for k in range(REFERENCE_PROBES):
        if k:
            time.sleep(1)
        path = os.path.join(out, "probe.csv")
        layout = Layout(where.calibench(path, "8:8", reps=5))
        route = "node" if layout.on_node > 0 else "net"
        got = meas.Measured(meas.read_calibench(path)).series(route, "pingpong").get(8)
        if got:
            seen.append(got)
    os.remove(os.path.join(out, "probe.csv"))
    with open(os.path.join(out, "layout.txt"), "w") as f:
        f.write(layout.line() + "\n")
    if not seen:
        return layout, None
    seen.sort()
    probe = {"route": route, "bytes": 8, "seconds": seen[0]}
    say(f"the machine's state: {route} 8-B ping-pong {probe['seconds'] * 1e6:.3f} us, the "
        f"fastest of {len(seen)} probes ({', '.join(f'{v * 1e6:.3f}' for v in seen)}); "
        "measurements off it by a quarter are taken again")
    return layout, probe


def read_about(d):
    path = os.path.join(d, "about.txt")
    if not os.path.exists(path):
        return {"launch": "(recorded measurements)", "date": plat.today()}
    with open(path) as f:
        return dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)


def drift(real, probe):
    """The machine's ping-pong now against the calibration's (a ratio), or
    None where there is nothing to compare: a VM whose cores moved, a
    loaded machine, another MPI setting since the platform was fitted."""
    if not probe:
        return None
    with tempfile.TemporaryDirectory(prefix="collx-calibrate.") as work:
        csv = os.path.join(work, "probe.csv")
        real.run("calibench", ["-m", f"{probe['bytes']}:{probe['bytes']}", "--reps", "5",
                               "--csv", csv, "-q"])
        now = meas.Measured(meas.read_calibench(csv)).series(probe["route"], "pingpong")
    return now[probe["bytes"]] / probe["seconds"] if probe["bytes"] in now else None


def steady_launches(real, probe, args, n, launch):
    """n results of launch(), each between two probes of the machine; a
    launch whose probes are off the calibration by more than DRIFT is
    done again (a VM's cores can move in seconds), waiting up to
    args.wait seconds in all. Returns (results, the worst probe ratio of
    the results kept, None without a probe)."""
    kept, worst, waited = [], None, 0

    def off(r):
        return r is not None and abs(r - 1) > DRIFT
    while len(kept) < n:
        before = drift(real, probe)
        if off(before) and waited < args.wait:
            time.sleep(WAIT_STEP)
            waited += WAIT_STEP
            continue
        got = launch()
        after = drift(real, probe)
        if (off(before) or off(after)) and waited < args.wait:
            waited += WAIT_STEP   # done again, once the machine is back
            time.sleep(WAIT_STEP)
            continue
        kept.append(got)
        for r in (before, after):
            if r is not None and (worst is None or abs(r - 1) > abs(worst - 1)):
                worst = r
    return kept, worst
