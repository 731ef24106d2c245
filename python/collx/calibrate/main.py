"""collx calibrate: measure the machine a launch runs on, fit an SMPI
platform to it, and (--check) run the same collectives real and simulated
to say how far the platform's predictions are off (docs/guide/calibrate.md).

    collx calibrate --launch "mpirun -n 2 --bind-to core" --out DIR [--check]
    collx calibrate --from DIR --out DIR2          (fit recorded measurements again)
    collx calibrate --check-only --platform DIR/NAME.xml --launch "..." --out DIR"""
import argparse
import os
import re
import sys
import tempfile
import time

from collx import tools
from collx._version import __version__
from collx.calibrate import check as checkmod, fit as fitmod, measured as meas
from collx.calibrate import platform as plat
from collx.calibrate.runs import RunFailed, Where
from collx.csvio import read_rows, write_rows
from collx.tune.target import cpu_model

DEFAULT_BASE = "fattree-256x16"
CHECK_COLLS = "bcast,allreduce,allgather,alltoall,reduce"
CHECK_SIZES = "8,64,512,4096,32768,262144,1048576"
T0 = time.time()
BASE_WEIGHT = 0.25   # a route taken from a base platform, in the factors' fit
# a call's own cost: the MPI's 8-B gather, a collective the check does not
# run (a barrier was tried first: MPICH 4.0's takes 1.4 us at p = 2, six
# times its gather, and charged every call that much)
CALL_COLL, CALL_ITERS = "gather", 500
REFERENCE_PROBES = 5   # quick ping-pongs that set the machine's state to calibrate in
CORRECTION_STEP = 0.6   # of a round's residual added to the next round's targets
DRIFT = checkmod.DRIFT   # the machine's ping-pong this far from the calibration's: said
WAIT_STEP = 5   # seconds between probes while the machine is not as calibrated


def say(msg):
    t = int(time.time() - T0)
    print(f"[calibrate {t // 60}:{t % 60:02d}] {msg}", flush=True)


def parser():
    ap = argparse.ArgumentParser(
        prog="collx calibrate", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__)
    ap.add_argument("--launch", help='the words that start the ranks, as you run MPI '
                    'programs: "mpirun -n 2 --bind-to core" (two ranks of one node), '
                    '"mpirun -n 4 --map-by ppr:2:node --bind-to core" (two nodes), srun ...')
    ap.add_argument("--from", dest="from_dir", metavar="DIR",
                    help="fit the measurements an earlier calibrate wrote into DIR "
                    "(calibench.csv, node_sync.csv, layout.txt) instead of measuring")
    ap.add_argument("--add", action="append", metavar="DIR",
                    help="routes an earlier calibrate measured (its --out DIR) that these "
                    "measurements lack, fitted with them: the node's from a launch of two "
                    "ranks on one node, the network's from one rank per node (repeatable)")
    ap.add_argument("--out", required=True, metavar="DIR", help="where the platform goes")
    ap.add_argument("--name", default="calibrated", help="the platform's name (calibrated)")
    ap.add_argument("--base", help="the platform whose network between nodes to take "
                    f"where the launch spans one node (default {DEFAULT_BASE})")
    ap.add_argument("--nodes", type=int, default=16,
                    help="nodes of the written platform when it is not a base's (16)")
    ap.add_argument("--cores", type=int,
                    help="cores per node of the written platform (default: this machine's)")
    ap.add_argument("--sizes", default="1:4M", help="calibench's message sizes (1:4M)")
    ap.add_argument("--reps", type=int, default=7, help="calibench's batches per point (7)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="fits corrected by simulating the platform (3)")
    ap.add_argument("--check", action="store_true",
                    help="after the fit, run the collectives real and simulated")
    ap.add_argument("--check-only", action="store_true",
                    help="only the check, of --platform (an earlier calibration)")
    ap.add_argument("--platform", help="with --check-only: the calibrated platform's XML")
    ap.add_argument("--colls", default=CHECK_COLLS, help=f"the check's ({CHECK_COLLS})")
    ap.add_argument("--algs", help="the check's algorithms (default: every one of each "
                    "collective, native included)")
    ap.add_argument("--check-sizes", default=CHECK_SIZES,
                    help=f"the check's bytes per rank ({CHECK_SIZES})")
    ap.add_argument("--iters", type=int, default=200, help="the check's repetitions (200)")
    ap.add_argument("--wait", type=int, default=60,
                    help="seconds each collective of the check may wait in all for a machine "
                    "that is not as it was calibrated (its small ping-pong, probed before and "
                    "after each launch, off by a quarter: a VM's cores moved); a launch "
                    "between such probes is done again (60)")
    ap.add_argument("--launches", type=int, default=5,
                    help="real launches of each measurement (calibench, node_sync, the "
                    "check's collectives); per point the best counts (5): a machine whose "
                    "cores move (a VM) can take half again as long in one launch")
    return ap


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


def hostfile(hosts, nodes, slots, directory):
    """A hostfile of the first nodes of hosts ('name:slots' lines), slots
    each; its path (in directory)."""
    names = [h.partition(":")[0] for h in hosts[:nodes]]
    if len(names) < nodes:
        raise ValueError(f"the platform has {len(hosts)} nodes, {nodes} wanted")
    path = os.path.join(directory, f"{nodes}x{slots}.hostfile")
    with open(path, "w") as f:
        f.writelines(f"{n}:{slots}\n" for n in names)
    return path


def resolve_platform(name):
    """The XML path of a platform name (sim/platforms) or path."""
    if name.endswith(".xml") or os.sep in name:
        return os.path.abspath(name if name.endswith(".xml") else name + ".xml")
    root = tools.checkout()
    if not root:
        raise plat.BadPlatform(f"platform '{name}': give its XML's path (sim/platforms is "
                               "in a collx checkout)")
    return os.path.join(root, "sim", "platforms", name + ".xml")


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
        call, m = m.call, meas.Measured(m.rows, sync)
        m.call = call
        say(f"--add {d}: routes {', '.join(routes)} from its measurements")
    if args.add:
        write_rows(os.path.join(out, "calibench.fitted.csv"), list(m.rows[0]), m.rows)
    return m, layout, about


def measure_one(args, out):
    """Runs calibench and node_sync on the launch (or reads --from);
    returns (Measured, Layout, what ran)."""
    if args.from_dir:
        src = args.from_dir
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
            m.call = float(read_rows(call)[0]["median_us"]) * 1e-6
        return m, layout, about
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
        CALL_COLL, ["native"], [8], CALL_ITERS, CALL_ITERS // 10))
    rows = meas.best_rows(bars, ("coll", "alg"), "median_us")
    write_rows(os.path.join(out, "call.csv"), list(rows[0]), rows)
    about = {"launch": args.launch, "mpi": where.target.mpi_version() or where.mpi,
             "host": os.uname().nodename, "cpu": cpu_model(), "date": plat.today()}
    with open(os.path.join(out, "about.txt"), "w") as f:
        f.writelines(f"{k}={v}\n" for k, v in about.items())
    m = meas.Measured(meas.read_calibench(csv), sync)
    m.call = float(rows[0]["median_us"]) * 1e-6
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


def simulate_calibench(xml, hosts, sizes, reps, directory, nodes=2, slots=2, routes=True):
    """calibench's rows simulated on the platform: slots ranks on each of
    its first nodes (both routes: rank 1 on rank 0's node, rank slots on
    the next); routes=False: without the routes' own overheads (what a
    program that does not link collx gets)."""
    hf = hostfile(hosts, nodes, slots, directory)
    where = Where(platform=xml, p=nodes * slots, hostfile=hf)
    csv = os.path.join(directory, "sim-calibench.csv")
    where.calibench(csv, sizes, reps=1, env=None if routes else {"COLLX_SMPI_ROUTES": "0"})
    return meas.Measured(meas.read_calibench(csv))


class Model:
    """What the fit needs besides the measurements: the network (measured
    or a base's), the platform's size."""

    def __init__(self, args, m, work):
        self.base = None
        self.kinds = {k: {r: m.series(r, k) for r in m.routes()}
                      for k in meas.KINDS + ("exchange",)}
        if "net" not in m.routes():
            self.base = plat.Base(resolve_platform(args.base or DEFAULT_BASE))
            say(f"one node measured: the network between nodes is {self.base.name}'s "
                "(simulated calibench between two of its nodes)")
            sim = simulate_calibench(resolve_platform(args.base or DEFAULT_BASE),
                                     self.base.hosts, args.sizes, 1, work, slots=1)
            for k in self.kinds:
                self.kinds[k]["net"] = sim.series("net", k)
        for r in m.routes():
            sus = fitmod.sustained(self.kinds["pingpong"][r], self.kinds["stream"][r])
            if sus:
                say(f"route {r}: a burst is slower than a lone message at "
                    f"{min(sus)}-{max(sus)} B (a shaper's bucket, a busy link): the "
                    "sustained rate is fitted there")
                self.kinds["pingpong"][r] = {**self.kinds["pingpong"][r], **sus}
        self.geo = {"net": (None, self.base.route[1])} if self.base else {}
        # what was measured outweighs a base's guess where the two disagree
        self.weights = {"net": BASE_WEIGHT} if self.base else {}

    def fit(self, corrections):
        return fitmod.fit(self.kinds["pingpong"], self.kinds["send"], self.kinds["recv"],
                          self.kinds["stream"], corrections, self.geo,
                          self.weights)


def platform_files(args, model, F, m, layout, about, residuals=None, mpi_call=0.0):
    """(xml text, hostfile lines, cfg text, record); mpi_call: seconds of a
    collective call's own work (collx:mpi_call)."""
    node = F.geo.get("node") or (2e-7, 8e9)
    net = F.geo["net"] if "net" in F.geo else None
    # a node phase copies what another core wrote: its rate, else one core's own
    copies = m.series("node", "xcopy") or m.local("copy")
    reduces = m.series("node", "xreduce") or m.local("reduce")
    rates = (fitmod.rate_through_origin(copies) or 1e10,
             fitmod.rate_through_origin(reduces) or 1e10)
    estimated = [] if copies else ["copy_bw", "reduce_bw"]
    if m.sync:
        sync, sync_rank, call, est = fitmod.sync_values(m.sync)
        estimated += est
    else:
        sync, sync_rank, call = 2.2e-7, 3e-8, 1.5e-7
        estimated += ["sync", "sync_rank", "call"]
    routes = {"node": "measured" if "node" in m.routes() else "not measured (default)",
              "net": "measured" if "net" in m.routes() else f"from {model.base.name}"}
    if model.base:
        xml = model.base.text(node, net[0] / model.base.route[0])
        hosts = model.base.hosts
    else:
        cores = args.cores or os.cpu_count() or 1
        xml = plat.cluster_text(args.name, max(args.nodes, layout.nodes), cores, node,
                                net or (2e-6, 1.25e9), f"collx calibrate {about.get('date')}")
        hosts = [f"{args.name}-{i}:{cores}" for i in range(max(args.nodes, layout.nodes))]
    record = {"name": args.name, "collx": __version__, "measured": about, "routes": routes,
              "layout": {"p": layout.p, "ppn": layout.ppn, "nodes": layout.nodes},
              "native": f"SMPI's {selector(about)} selector",
              "estimated": estimated, "fit": residuals or {}, "check": None,
              "probe": probe_of(m, layout),
              "parameters": {"node": node, "net": net, "copy_bw": rates[0],
                             "reduce_bw": rates[1], "sync": sync, "sync_rank": sync_rank,
                             "call": call, "mpi_call": mpi_call}}
    # native: the calibrated MPI's own algorithms as SMPI's selector for it
    # picks them (over sim/run's Open MPI selector and its tree barrier,
    # chosen for host time at hundreds of ranks); not bcast, which stays
    # sim/run's binomial tree: the ompi selector's split binary tree at p = 2
    # sends two halves at once through a node's loopback, which SimGrid does
    # not share, and took 17 us for a 1-MiB bcast that takes Open MPI 68.
    # SimGrid's options, what every program gets: factors 1 (network model
    # CM02 with SMPI's weight-S, as SimGrid refuses factor options beside
    # the routes' factor callbacks), the overheads' compromise
    sel = selector(about)
    options = [("smpi/coll-selector", sel), ("smpi/barrier", sel),
               ("network/model", "CM02"), ("network/weight-S", "8775"),
               ("smpi/send-is-detached-thresh", str(fitmod.DETACHED)),
               ("smpi/os", fitmod.overhead_option(F.sizes, F.o_s)),
               ("smpi/ois", fitmod.overhead_option(F.sizes, F.o_s)),
               ("smpi/or", fitmod.overhead_option(F.sizes, F.o_r))]
    collx = [("copy_bw", rates[0]), ("reduce_bw", rates[1]), ("sync", sync),
             ("sync_rank", sync_rank), ("call", call), ("mpi_call", mpi_call)]
    # each route's own costs, what a program linked with collx gets (sim/run:
    # COLLX_SMPI_ROUTE_NODE/_NET; src/core/util/smpi_routes.cpp)
    for r in sorted(F.route_os):
        collx.append((f"route_{r}", "|".join((
            "os=" + fitmod.overhead_option(F.sizes, F.route_os[r]),
            "or=" + fitmod.overhead_option(F.sizes, F.route_or[r]),
            "lat=" + fitmod.factor_option(F.sizes, F.route_lf[r]),
            "bw=" + fitmod.factor_option(F.sizes, F.route_bf[r])))))
    return xml, hosts, plat.cfg_text(header(record), options, collx), record


def selector(about):
    """SMPI's collective selector for the MPI the launch ran: its native
    algorithms are that MPI's (ompi, mpich, impi; ompi where unknown)."""
    mpi = about.get("mpi", "")
    return "mpich" if "MPICH" in mpi else "impi" if "Intel" in mpi else "ompi"


def cfg_body(cfg):
    """(options, collx lines) of a .cfg's text (its comments dropped)."""
    options, collx = [], []
    for line in cfg.splitlines():
        if line.startswith("--cfg="):
            k, _, v = line[len("--cfg="):].partition(":")
            options.append((k, v))
        elif line.startswith("collx:"):
            k, _, v = line[len("collx:"):].partition("=")
            collx.append((k, v))
    return options, collx


def header(record):
    """The .cfg's comment lines: what it was calibrated against, the fit's
    and the check's errors."""
    about = record["measured"]
    out = [f"calibrated by collx calibrate {record['collx']} on {about.get('date')}: "
           f"{about.get('launch')}",
           f"  MPI: {about.get('mpi', '?')}; host {about.get('host', '?')}, "
           f"{about.get('cpu', '?')}",
           "  routes: " + ", ".join(f"{k} {v}" for k, v in record["routes"].items()),
           "  estimated, not measured: " + (", ".join(record["estimated"]) or "nothing")]
    for key, who in (("fit", "with collx linked (the routes' own overheads)"),
                     ("fit_without_collx", "without collx (the global compromise)")):
        for route, s in sorted((record.get(key) or {}).items()):
            out.append(f"  fit {who}, {route}: " + "; ".join(
                f"{k} median |error| {100 * v[0]:.1f} %, worst {100 * v[1]:.1f} %"
                for k, v in sorted(s.items())))
    chk = record.get("check")
    out.append("  check: " + (f"{chk['against']}: {checkmod.line(chk['summary'])}"
                              if chk else "none yet (collx calibrate --check)"))
    return out


def residuals(m, model, sim):
    """{route: {kind: (median |error|, worst |error|)}} and the rows of
    the simulated calibench against the measured (or the base's)."""
    out, rows = {}, []
    for r in sim.routes():
        if r not in model.kinds["pingpong"]:
            continue
        out[r] = {}
        for k in ("pingpong", "stream", "exchange"):
            want, got = model.kinds.get(k, {}).get(r, {}), sim.series(r, k)
            errs = []
            for b in sorted(set(want) & set(got)):
                e = got[b] / want[b] - 1
                errs.append(abs(e))
                rows.append({"route": r, "kind": k, "bytes": b, "target_s": want[b],
                             "simulated_s": got[b], "error": e})
            if errs:
                errs.sort()
                out[r][k] = (errs[len(errs) // 2], errs[-1])
    return out, rows


def call_cost(m, xml, hosts, layout, work):
    """Seconds a collective call costs on this machine beyond its messages
    (the MPI's entry, its progress, the benchmark loop's clocks), which SMPI
    does not see: the real 8-B gather's median less the platform's without
    it (collx:mpi_call 0), not below 0; None where it was not measured."""
    if getattr(m, "call", None) is None:
        return None
    sim = Where(platform=xml, p=layout.p, hostfile=hostfile(hosts, layout.nodes, layout.ppn,
                                                            work))
    rows = sim.collbench(CALL_COLL, ["native"], [8], 5, 1)
    simulated = float(rows[0]["median_us"]) * 1e-6
    cost = max(m.call - simulated, 0.0)
    say(f"a collective call's own cost: 8-B {CALL_COLL} {m.call * 1e6:.3f} us real, "
        f"{simulated * 1e6:.3f} us simulated: collx:mpi_call={cost * 1e6:.3f} us")
    return cost


def score(res, weights):
    """One number for a round's ping-pong residuals (lower is better):
    each route's mean of its median and worst |error|, weighted."""
    return sum(weights.get(r, 1.0) * (v["pingpong"][0] + v["pingpong"][1]) / 2
               for r, v in res.items() if "pingpong" in v)


def calibrate(args, out):
    """Measures (or reads), fits, corrects the fit by simulating it and
    writes the best round's platform into out."""
    m, layout, about = measure(args, out)
    m.check()
    with tempfile.TemporaryDirectory(prefix="collx-calibrate.") as work:
        model = Model(args, m, work)
        corrections, best = {}, None
        for rnd in range(max(args.rounds, 0) + 1):
            F = model.fit(corrections)
            xml, hosts, cfg, record = platform_files(args, model, F, m, layout, about)
            path = plat.write(work, args.name, xml, hosts, cfg, record)
            sim = simulate_calibench(path, hosts, args.sizes, 1, work)
            res, rows = residuals(m, model, sim)
            say(f"fit round {rnd}: " + "; ".join(
                f"{r} ping-pong median |error| {100 * v['pingpong'][0]:.1f} %, worst "
                f"{100 * v['pingpong'][1]:.1f} %" for r, v in res.items()))
            if best is None or score(res, model.weights) < best[0]:
                best = (score(res, model.weights), rnd, F, res, rows)
            # what SMPI does besides the formula, added to the targets (damped:
            # where the routes pull apart, the corrections must not chase each other)
            for r in set(sim.routes()) & set(model.kinds["pingpong"]):
                c = corrections.setdefault(r, {})
                got = sim.series(r, "pingpong")
                for b, want in model.kinds["pingpong"][r].items():
                    if b in got:
                        c[b] = c.get(b, 0.0) + CORRECTION_STEP * (want - got[b])
        _, rnd, F, res, rows = best
        xml, hosts, cfg, record = platform_files(args, model, F, m, layout, about, res)
        path = plat.write(work, args.name, xml, hosts, cfg, record)
        mpi_call = call_cost(m, path, hosts, layout, work)
        xml, hosts, cfg, record = platform_files(args, model, F, m, layout, about, res,
                                                 mpi_call or 0.0)
        if mpi_call is None:
            record["estimated"].append("mpi_call")
        path = plat.write(work, args.name, xml, hosts, cfg, record)
        bare, _ = residuals(m, model, simulate_calibench(path, hosts, args.sizes, 1, work,
                                                         routes=False))
        say("without collx (SimGrid's global overheads, the compromise): " + "; ".join(
            f"{r} ping-pong median |error| {100 * v['pingpong'][0]:.1f} %, worst "
            f"{100 * v['pingpong'][1]:.1f} %" for r, v in bare.items()))
        record["fit_without_collx"] = bare
        cfg = plat.cfg_text(header(record), *cfg_body(cfg))
    path = plat.write(out, args.name, xml, hosts, cfg, record)
    write_rows(os.path.join(out, "fit.csv"), ["route", "kind", "bytes", "target_s",
                                              "simulated_s", "error"], rows)
    say(f"kept round {rnd}; wrote {path} (+ .hostfile, .cfg, .calibration.json), fit.csv")
    return path, layout


def probe_of(m, layout):
    """What the check compares the machine with before each collective:
    the launch's own route's one-way 8-B ping-pong when calibrated."""
    route = "node" if layout.on_node > 0 else "net"
    pp = m.series(route, "pingpong")
    size = min((b for b in pp if b >= 8), default=None)
    return {"route": route, "bytes": size, "seconds": pp[size]} if size else None


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


def run_check(args, xml, layout, out):
    """The check: collbench on the launch and on the platform, side by
    side; writes check.csv and check.md and the record's check."""
    real = Where(launch=args.launch)
    hosts = [h for h in open(plat.files_of(xml)[1]).read().split() if h]
    with tempfile.TemporaryDirectory(prefix="collx-calibrate.") as work:
        hf = hostfile(hosts, layout.nodes, layout.ppn, work)
        sim = Where(platform=xml, p=layout.p, hostfile=hf)
        reg_real = dict(real.target.registry())
        reg_sim = dict(sim.target.registry())
        points, drifts = [], {}
        probe = (plat.read_record(xml) or {}).get("probe")
        for coll in args.colls.split(","):
            algs = args.algs.split(",") if args.algs else \
                [a for a in reg_real.get(coll, []) if a in reg_sim.get(coll, [])]
            if not algs:
                raise ValueError(f"no algorithm of '{coll}' on both sides")
            sizes = [int(s) for s in args.check_sizes.split(",")]
            say(f"check {coll}: {len(algs)} algorithms x {len(sizes)} sizes, real "
                f"({args.launches} launches)")
            launches, ratio = steady_launches(
                real, probe, args, max(args.launches, 1),
                lambda: real.collbench(coll, algs, sizes, args.iters, max(args.iters // 10, 2)))
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
            sim_rows = sim.collbench(coll, algs, sizes, 3, 1)
            got = checkmod.pair(real_rows, sim_rows)
            say(f"check {coll}: " + checkmod.line(checkmod.summary(got)))
            points += got
    against = f"{args.launch} ({real.target.mpi_version() or real.mpi})"
    checkmod.write(points, os.path.join(out, "check.csv"), os.path.join(out, "check.md"),
                   against, os.path.basename(xml), drifts)
    rec = plat.read_record(xml)
    if rec is None:   # a platform never calibrated: its check stays in out
        say("check: " + checkmod.line(checkmod.summary(points)))
        say(f"wrote {os.path.join(out, 'check.md')}, check.csv")
        return
    steady = [p for p in points if abs(drifts.get(p["coll"], 1.0) - 1) <= DRIFT]
    rec["check"] = {"against": against, "date": plat.today(), "drift": drifts,
                    "summary": checkmod.summary(points), "per_coll": checkmod.per_coll(points),
                    "steady_summary": checkmod.summary(steady) if steady else {"cases": 0}}
    plat.write_record(xml, {k: v for k, v in rec.items() if k != "schema"})
    rewrite_header(xml, rec)
    say("check: " + checkmod.line(rec["check"]["summary"]))
    if len(steady) < len(points):
        say("check, the collectives run with the machine as calibrated: "
            + (checkmod.line(rec["check"]["steady_summary"]) if steady else
               "none (calibrate again when the machine is steady)"))
    say(f"wrote {os.path.join(out, 'check.md')}, check.csv")


def rewrite_header(xml, record):
    """The .cfg's comment lines again, from the record (the check added)."""
    cfg = plat.files_of(xml)[2]
    with open(cfg) as f:
        body = [line for line in f if not line.startswith("#")]
    with open(cfg, "w") as f:
        f.write("".join(f"# {h}\n" for h in header(record)) + "".join(body))


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        if args.check_only:
            if not (args.platform and args.launch):
                raise ValueError("--check-only needs --platform XML and --launch")
            xml = resolve_platform(args.platform)
            for f in plat.files_of(xml):
                if not os.path.exists(f):
                    raise ValueError(f"platform {args.platform}: {f} missing")
            rec = plat.read_record(xml)
            os.makedirs(args.out, exist_ok=True)
            if rec is None:   # any platform, as it is: the layout from the launch
                say(f"{os.path.basename(xml)} has no calibration record: checked as it is "
                    "(no drift probes; the record is not written)")
                with tempfile.TemporaryDirectory(prefix="collx-calibrate.") as d:
                    layout = Layout(Where(launch=args.launch).calibench(
                        os.path.join(d, "probe.csv"), "8:8", reps=1))
            else:
                lay = rec["layout"]
                layout = Layout(f"calibench: {lay['p']} ranks; partner on rank 0's node: "
                                f"{1 if lay['ppn'] > 1 else -1}, on another node: "
                                f"{lay['ppn'] if lay['nodes'] > 1 else -1}")
            run_check(args, xml, layout, args.out)
            return 0
        if not (args.launch or args.from_dir):
            raise ValueError("give --launch (measure) or --from DIR (recorded measurements)")
        if args.check and not args.launch:
            raise ValueError("--check runs the collectives on the launch: give --launch")
        os.makedirs(args.out, exist_ok=True)
        xml, layout = calibrate(args, args.out)
        if args.check:
            run_check(args, xml, layout, args.out)
        return 0
    except (ValueError, RunFailed, OSError, tools.ToolNotFound) as e:
        sys.stderr.write(f"collx calibrate: {e}\n")
        return 1
