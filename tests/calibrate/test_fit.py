#!/usr/bin/python3
"""collx calibrate's pure parts, from recorded measurements (no MPI, no
SMPI; a second): the fit reproduces each route's ping-pong by SMPI's
formula, the overheads come from the sizes where a burst pipelines, SMPI's
section semantics are written right (an overhead section applies above its
start, a factor section from it), two routes share global factors, the
rates and the node's numbers come out of their rows, noisy or cut
measurements are refused with a message, a base platform's XML is read
and rewritten, and the check's summary counts what it says.

    test_fit.py [REPO_ROOT]"""
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tune", "units"))
import helpers  # noqa: E402  (puts python/ on the path)
from collx.calibrate import check, check_run, fit, measured, platform  # noqa: E402

FIX = os.path.join(HERE, "fixtures", "openmpi-2cores")


def recorded():
    return measured.Measured(measured.read_calibench(os.path.join(FIX, "calibench.csv")),
                             measured.read_node_sync(os.path.join(FIX, "node_sync.csv")))


def kinds(m, route="node"):
    return [{route: m.series(route, k)} for k in measured.KINDS]


def piece(option, size, per_byte_section_above=True):
    """The value SMPI takes from a piecewise option at size: overhead
    sections apply to sizes above their start, factor sections from it."""
    current = 0.0
    for sec in option.split(";"):
        parts = [float(v) for v in sec.split(":")]
        start = parts[0]
        inside = size > start if per_byte_section_above else size >= start
        if not inside:
            break
        current = parts[1] + (parts[2] * size if len(parts) > 2 else 0.0)
    return current


def test_recorded_measurements_fit():
    m = recorded()
    assert m.check() == ["node"], m.routes()
    F = fit.fit(*kinds(m))
    pp = m.series("node", "pingpong")
    for size in F.sizes:
        got = F.predict("node", size)
        assert abs(got / pp[size] - 1) < 1e-9, (size, got, pp[size])
    own = F.route_os["node"] + F.route_or["node"] + F.route_lf["node"]
    assert all(v >= 0 for v in F.o_s + F.o_r + own), "negative overheads or factors"
    assert all(b > 0 for b in F.route_bf["node"])


def test_overheads_come_from_the_pipelined_sizes():
    m = recorded()
    F = fit.fit(*kinds(m))
    i8 = F.sizes.index(8)
    send, recv = m.series("node", "send")[8], m.series("node", "recv")[8]
    assert abs(F.route_os["node"][i8] - send) < 1e-12, (F.route_os["node"][i8], send)
    assert abs(F.route_or["node"][i8] - recv) < 1e-12
    # above the eager limit a burst's gap is the transfer's: the overheads
    # stay those of the last pipelined size, not the microseconds of a copy
    mid = F.sizes.index(32768)
    assert F.route_os["node"][mid] < 0.05 * m.series("node", "pingpong")[32768]


def test_budget_leaves_the_transfer_a_tenth():
    s, r = fit.route_overheads(1.0, 0.8, 0.6)
    assert abs(s + r - 0.9) < 1e-12 and s == 0.8, (s, r)
    assert fit.route_overheads(1.0, 0.2, 0.3) == (0.2, 0.3)


def test_options_follow_smpi_sections():
    sizes, values = [1, 16, 4096], [1e-7, 2e-7, 1e-6]
    opt = fit.overhead_option(sizes, values)
    for size, want in zip(sizes, values):   # each measured size gets its own value
        assert abs(piece(opt, size) / want - 1) < 1e-5, (size, piece(opt, size), opt)
    mid = piece(opt, 2056)   # linear between 16 and 4096
    assert abs(mid / (2e-7 + (2056 - 16) * (8e-7 / 4080)) - 1) < 1e-5, mid
    fac = fit.factor_option(sizes, [1.0, 2.0, 3.0])
    assert [piece(fac, s, False) for s in (1, 15, 16, 4095, 4096, 10 ** 6)] == \
        [1.0, 1.0, 2.0, 2.0, 3.0, 3.0], fac


def test_two_routes_each_their_own():
    # a node (fast, little CPU per message) and a network (slow, much CPU):
    # each route's own overheads are its own and its ping-pong exact by the
    # formula; without collx the global overheads are one compromise between
    # them, nearer the node's in relative terms
    sizes = [1, 64, 4096, 65536, 1 << 20]
    node = {m: 1e-7 + m / 1e10 for m in sizes}
    net = {m: 8e-6 + m / 1e9 for m in sizes}
    send = {"node": {m: 3e-8 for m in sizes}, "net": {m: 3e-6 for m in sizes}}
    stream = {"node": {m: 3.5e-8 + m / 1e10 for m in sizes},
              "net": {m: 3e-6 + m / 1e9 for m in sizes}}
    F = fit.fit({"node": node, "net": net}, send, send, stream)
    i = sizes.index(64)
    assert F.route_os["node"][i] == 3e-8 and F.route_os["net"][i] == 3e-6, F.route_os
    for m in sizes:
        for r, want in (("node", node), ("net", net)):
            assert abs(F.predict(r, m) / want[m] - 1) < 1e-9, (r, m, F.predict(r, m), want[m])
    big = sizes.index(1 << 20)   # SMPI charges no overhead there: the transfer has it all
    assert F.route_os["net"][big] == 0 and F.route_or["net"][big] == 0
    assert 6e-8 - 1e-12 <= F.o_s[i] + F.o_r[i] < 6e-6, (F.o_s[i], F.o_r[i])


def test_rates_and_node_sync():
    m = recorded()
    copy = fit.rate_through_origin(m.series("node", "xcopy"))
    assert 1e9 < copy < 1e12, copy
    sync, rank, call, estimated = fit.sync_values(m.sync)
    assert sync == m.sync["exchange"][2] and call == m.sync["call"]
    assert estimated == ["sync_rank"] and rank == 3e-8
    wide = {"exchange": {2: 1e-7, 4: 2e-7, 16: 8e-7}, "call": 1e-7}
    assert fit.sync_values(wide)[1:4] == (5e-8, 1e-7, [])


def test_noisy_measurements_are_refused():
    m = recorded()
    rows = measured.read_calibench(os.path.join(FIX, "calibench.csv"))
    for r in rows:   # every second point disturbed: median far above its minimum
        if r["route"] == "node" and int(r["bytes"]) % 4 == 0:
            r["median_s"] = str(3 * float(r["min_s"]))
    try:
        measured.Measured(rows, m.sync).check()
    except measured.NotFittable as e:
        assert "too noisy" in str(e) and "--bind-to core" in str(e), e
    else:
        raise AssertionError("a noisy route was fitted")


def test_cut_or_foreign_csv_is_refused():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "x.csv")
        with open(path, "w") as f:
            f.write("coll,alg,median_us\nbcast,native,1\n")
        try:
            measured.read_calibench(path)
        except measured.NotFittable as e:
            assert "not calibench's CSV" in str(e), e
        else:
            raise AssertionError("collbench's CSV taken for calibench's")
        with open(path, "w") as f:
            f.write("route,kind,bytes,median_s,min_s,iters\nnode,pingpong,8,1e-7,1e-7,5\n")
        try:
            measured.Measured(measured.read_calibench(path)).check()
        except measured.NotFittable as e:
            assert "lacks send, recv, stream" in str(e) and "cut" in str(e), e
        else:
            raise AssertionError("one kind of one size fitted")


def test_base_platform_read_and_rewritten():
    xml = os.path.join(helpers.ROOT, "sim", "platforms", "fattree-256x16.xml")
    base = platform.Base(xml)
    assert base.route == (1e-6, 12e9) and base.cores == 16 and len(base.hosts) == 256
    text = base.text((5e-8, 2e10), 2.0)
    assert 'lat="1e-06s"' in text and 'loopback_lat="5e-08s"' in text, text
    assert 'loopback_bw="2e+10Bps"' in text
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "bad.xml")
        with open(bad, "w") as f:
            f.write("<platform><zone/></platform>\n")
        with open(os.path.join(d, "bad.hostfile"), "w") as f:
            f.write("a:1\n")
        try:
            platform.Base(bad)
        except platform.BadPlatform as e:
            assert "no <cluster>" in str(e), e
        else:
            raise AssertionError("a platform without a cluster was taken")
    try:
        platform.parse_value("3 parsecs", platform.UNITS_TIME)
    except platform.BadPlatform as e:
        assert "parsecs" in str(e)
    else:
        raise AssertionError("a unit SimGrid does not know was read")


def test_check_summary():
    pts = [{"coll": "bcast", "alg": a, "bytes": 8, "measured_us": meas, "predicted_us": pred,
            "error": pred / meas - 1}
           for a, meas, pred in (("native", 1.0, 1.1), ("binomial", 1.2, 1.0),
                                 ("hier", 2.0, 3.0))]
    s = check.summary(pts)
    assert s["cases"] == 3 and abs(s["median_abs_error"] - 0.1667) < 1e-3, s
    assert abs(s["worst_abs_error"] - 0.5) < 1e-12 and s["worst_case"] == "bcast hier 8 B"
    # predicted fastest: binomial (1.0), measured 1.2 against native's 1.0: 20 % off
    assert (s["fastest_right"], s["fastest_cases"]) == (0, 1), s
    assert "predicted fastest within 5 %" in check.line(s)
    # a check of fewer collectives or algorithms does not replace the
    # record's (a recheck of bcast once overwrote a check of five)
    from argparse import Namespace

    def scope(colls, algs=None):
        return check_run.check_scope(Namespace(colls=colls, algs=algs))
    full = scope(check_run.CHECK_COLLS)
    assert check_run.kept_check(full, None) == ""
    assert check_run.kept_check(full, {"summary": {}}) == ""   # no scope: a full check
    assert check_run.kept_check(scope(check_run.CHECK_COLLS + ",scan"), {"scope": full}) == ""
    assert "without allgather" in check_run.kept_check(scope("bcast,allreduce"), {"summary": {}})
    assert "without allgather" in check_run.kept_check(scope("bcast,allreduce"), {"scope": full})
    assert "--algs" in check_run.kept_check(scope(check_run.CHECK_COLLS, "native,hier"), {"summary": {}})
    small = scope("allreduce", "native,hier")   # a quick check replaces a quick check
    assert check_run.kept_check(small, {"scope": small}) == ""
    assert check_run.kept_check(scope("allreduce"), {"scope": small}) == ""


def test_published_platforms_say_what_is_calibrated():
    """The published platforms for predictions at scale take their node from
    a calibration (sim/gen_platforms.py): collx predict says which, with
    its error, and that the network is not validated; a paper's platform
    says it is not validated at all."""
    root = os.path.join(HERE, "..", "..")
    fat = os.path.join(root, "sim", "platforms", "fattree-256x16.xml")
    line = platform.validation(fat)
    rec = platform.read_record(fat)
    src = os.path.join(root, rec["node_from"]["dir"], "calibrated.calibration.json")
    assert os.path.exists(src), f"the node's calibration is committed: {src}"
    with open(src) as f:
        median = json.load(f)["check"]["summary"]["median_abs_error"]
    assert "one node's costs from collx calibrate" in line and \
        "never compared with a real network" in line and "%.0f %%" % (100 * median) in line, \
        (line, median)
    with open(os.path.join(root, "sim", "platforms", "fattree-256x16.cfg")) as f:
        cfg = f.read()
    assert "collx:route_node=" in cfg and "network/model:CM02" in cfg and \
        "smpi/lat-factor" not in cfg, "node route beside factor callbacks: no factor options"
    paper = platform.validation(os.path.join(root, "sim", "platforms", "ib-qdr-36x16.xml"))
    assert paper.startswith("not validated"), paper


if __name__ == "__main__":
    helpers.run_module(dict(globals()))
