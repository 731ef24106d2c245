"""The fit run to its end: the network where none was measured (a base
platform's, simulated), the fit corrected by simulating calibench on the
platform it gives, a collective call's own cost, and the platform's
files with their record (fit.py is the arithmetic, platform.py the
files)."""
import os
import tempfile

from collx._version import __version__
from collx.calibrate import check as checkmod, fit as fitmod, measured as meas
from collx.calibrate import platform as plat
from collx.calibrate.measure import CALL_COLL, COLLX_CALL_ALG, measure
from collx.calibrate.runs import Where, say
from collx.csvio import write_rows

DEFAULT_BASE = "fattree-256x16"
BASE_WEIGHT = 0.25   # a route taken from a base platform, in the factors' fit
CORRECTION_STEP = 0.6   # of a round's residual added to the next round's targets


def simulate_calibench(xml, hosts, sizes, reps, directory, nodes=2, slots=2, routes=True):
    """calibench's rows simulated on the platform: slots ranks on each of
    its first nodes (both routes: rank 1 on rank 0's node, rank slots on
    the next); routes=False: without the routes' own overheads (what a
    program that does not link collx gets)."""
    hf = plat.hostfile(hosts, nodes, slots, directory)
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
            self.base = plat.Base(plat.resolve_platform(args.base or DEFAULT_BASE))
            say(f"one node measured: the network between nodes is {self.base.name}'s "
                "(simulated calibench between two of its nodes)")
            sim = simulate_calibench(plat.resolve_platform(args.base or DEFAULT_BASE),
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


def platform_files(args, model, F, m, layout, about, residuals=None, mpi_call=0.0,
                   collx_call=None):
    """(xml text, hostfile lines, cfg text, record); mpi_call: seconds of a
    collective call's own work (collx:mpi_call); collx_call: of collx's
    (collx:call; None: node_sync's, a call without messages at p = 1)."""
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
        estimated += ["sync", "sync_rank"] + (["call"] if collx_call is None else [])
    if collx_call is not None:
        call = collx_call
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
    options, collx = cfg_options(about, F, rates, sync, sync_rank, call, mpi_call)
    return xml, hosts, plat.cfg_text(header(record), options, collx), record


def cfg_options(about, F, rates, sync, sync_rank, call, mpi_call):
    """The .cfg's SimGrid options and collx's (platform_files): the
    selector, the overheads, the node's rates and each route's costs."""
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
    return options, collx


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


def call_costs(m, xml, hosts, layout, work):
    """(mpi_call, collx_call): seconds a collective call costs on this
    machine beyond its messages (the call's entry, its requests, its
    progress, the benchmark loop's clocks), which SMPI does not see: the
    real 8-B gather's median less the platform's without it (xml with
    collx:mpi_call and collx:call 0), the MPI's (native) and collx's
    (binomial: one message at p = 2, posted as every collx algorithm
    posts its messages); not below 0, None where it was not measured."""
    if getattr(m, "call", None) is None:
        return None, None
    algs = [("native", m.call)]
    if getattr(m, "collx_call", None) is not None:
        algs.append((COLLX_CALL_ALG, m.collx_call))
    sim = Where(platform=xml, p=layout.p, hostfile=plat.hostfile(hosts, layout.nodes, layout.ppn,
                                                            work))
    rows = sim.collbench(CALL_COLL, [a for a, _ in algs], [8], 5, 1)
    simulated = {r["alg"]: float(r["median_us"]) * 1e-6 for r in rows}
    costs = {}
    for (alg, real), name in zip(algs, ("collx:mpi_call", "collx:call")):
        costs[alg] = max(real - simulated[alg], 0.0)
        say(f"a collective call's own cost: 8-B {CALL_COLL} {alg} {real * 1e6:.3f} us real, "
            f"{simulated[alg] * 1e6:.3f} us simulated: {name}={costs[alg] * 1e6:.3f} us")
    return costs["native"], costs.get(COLLX_CALL_ALG)


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
        measured_call = getattr(m, "collx_call", None) is not None
        xml, hosts, cfg, record = platform_files(args, model, F, m, layout, about, res,
                                                 0.0, 0.0 if measured_call else None)
        path = plat.write(work, args.name, xml, hosts, cfg, record)
        mpi_call, collx_call = call_costs(m, path, hosts, layout, work)
        xml, hosts, cfg, record = platform_files(args, model, F, m, layout, about, res,
                                                 mpi_call or 0.0, collx_call)
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
