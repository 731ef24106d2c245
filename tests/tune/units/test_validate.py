#!/usr/bin/python3
"""validate.py: validation on a real MPI, selected and native paired per
launch; the ratio's interval and p; Holm's correction (from
tests/tune/test_tune_units.py's validate part); at a profile, the
algorithms' setups charged over its calls as the tuner charges them.

    test_validate.py [REPO_ROOT]"""
import contextlib
import csv
import io
import json
import os
import tempfile

import helpers
from collx.tune import validate
from collx.tune.decide import Decider
from collx.tune.store import Store


# validate on a real MPI: selected and native paired per launch
def test_paired():
    rows_sel = [{"launch": k, "median_us": v} for k, v in ((0, 10.0), (1, 12.0), (2, 11.0))]
    rows_nat = [{"launch": k, "median_us": v} for k, v in ((0, 10.0), (1, 10.0), (3, 9.0))]
    pr = validate.paired(rows_sel, rows_nat)
    assert pr == [1.0, 1.2], f"paired: only launches with both, selected / native each: {pr}"


def test_ratio_interval():
    iv = validate.ratio_interval([1.10, 1.12, 1.11, 1.09])
    assert iv and iv[1] > 1.0 and iv[0] < iv[2] < 1.14 and \
        validate.ratio_interval([0.8, 1.3])[1] < 1 and \
        validate.ratio_interval([1.2]) is None, \
        f"ratio interval: consistent 10 % slower launches are slower beyond noise " \
        f"({iv}); two launches that disagree are not; one launch has no interval"


def test_ratio_interval_p():
    iv = validate.ratio_interval([1.10, 1.12, 1.11, 1.09])
    assert len(iv) == 4 and iv[3] < 0.001, \
        f"ratio interval: consistent 10 % slower launches have a small p ({iv[3]:.2g})"


def test_holm():
    assert validate.holm([0.001, 0.02, 0.04, 0.5]) == 1 and \
        validate.holm([0.0001, 0.0002, 0.3]) == 2 and validate.holm([0.03] * 20) == 0, \
        "Holm: 0.001 of 4 rejected (< 0.0125), 0.02 not (> 0.0167); twenty points at 0.03 " \
        "are what chance gives (none rejected)"


def test_profile_points():
    # validate --profile: the profile's points, in the middle of each
    # message class (the tuner measured its bounds: tune --profile)
    fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                           "profile.json")
    a = type("A", (), {"profile": fixture, "colls": "all"})
    t = type("T", (), {"p": 32, "node": 8})
    plan, calls = validate.profile_plan(a, t, {"allreduce", "bcast", "allgather",
                                               "alltoall", "alltoallv", "barrier"})
    assert plan == {"allreduce": [(8, [12]), (32, [1536])], "bcast": [(16, [98304])],
                    "allgather-1ppn": [(4, [384])], "alltoallv": [(16, [24576])],
                    "barrier": [(32, [4])]}, \
        f"each measurable entry at its class's middle (3 * 2^(k-2)), a v-collective's " \
        f"too; one rank per node under the tuner's shaped key; the entries tune --profile " \
        f"sets aside left out: {plan}"
    # a profile of a collx that gave the v-collectives no class (msg_hi null)
    with tempfile.TemporaryDirectory() as d:
        a.profile = os.path.join(d, "old.json")
        with open(a.profile, "w") as f:
            json.dump({"profile": [{"collective": "alltoallv", "comm_size": 16, "msg_lo": 0,
                                    "msg_hi": None, "seconds": 0.3}]}, f)
        plan, _ = validate.profile_plan(a, t, {"alltoallv"})
    assert plan == {"alltoallv": [(16, [512, 32768])]}, \
        f"any sizes (an older profile) between profile.ANY_SIZES: {plan}"


# ---------------------------------------------------------------- setups
# proxy_app's bcast on ib-6x8 (bench/README.md): 24 ranks, 4-8 KiB, 4 calls.
# hier_ms is 2.9 times faster per call than native but sets up 850 us on a
# new communicator: over 4 calls native is faster, and the tuner chose it.
P, NODE, M = 24, 8, 6144   # the class 4096..8191's middle: what validate measures
TIMES = {"native": 20.0, "hier_ms": 6.9, "binomial": 25.0}
SETUPS = {"hier_ms": 850.0, "native": 0.5}


def validated(calls):
    """validate --replay --profile of a synthetic tune.json (TIMES, SETUPS
    at (P, M)) and a profile of one bcast entry with calls calls; rules
    that pick native. (validate.csv's rows, validate.md, validate.json)."""
    st = Store(0.005)
    for alg, us in TIMES.items():
        st.samples[("bcast", alg, P, M)], st.ran[("bcast", alg, P, M)] = [us], {alg}
    for alg, us in SETUPS.items():
        st.setups[("bcast", alg, P)] = [us]
    with tempfile.TemporaryDirectory() as d:
        tune, prof, rules, out = (os.path.join(d, x) for x in
                                  ("tune.json", "prof.json", "rules.json", "out"))
        with open(tune, "w") as f:
            json.dump({"p": P, "node": NODE, "algs": {"bcast": list(TIMES)},
                       "measurements": st.to_json()}, f)
        with open(prof, "w") as f:
            json.dump({"job": {"ranks": P, "nodes": 3, "ranks_per_node": NODE},
                       "profile": [{"collective": "bcast", "mode": "blocking",
                                    "comm_size": P, "ranks_per_node": NODE, "nodes": 3,
                                    "msg_lo": 4096, "msg_hi": 8191, "calls": calls,
                                    "ranks": P, "seconds": 1e-4}]}, f)
        with open(rules, "w") as f:
            json.dump({"rules": [{"collective": "bcast", "algorithm": "native"}]}, f)
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            rc = validate.main(["--replay", tune, "--profile", prof, "--rules", rules,
                                "--out", out])
        assert rc == 0, f"validate --replay --profile: exit status {rc}"
        with open(os.path.join(out, "validate.csv")) as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(out, "validate.md")) as f:
            md = f.read()
        with open(os.path.join(out, "validate.json")) as f:
            data = json.load(f)
    return rows, md, data


def test_setup_charged_over_few_calls():
    rows, md, data = validated(4)
    assert len(rows) == 1, f"one point (bcast p={P} at {M} B): {rows}"
    r = rows[0]
    # the tuner's own charge, from the setups validate measured (the
    # replay's first calls) and the profile's calls
    st = Store(0.0)
    for alg, us in SETUPS.items():
        st.add_setup("bcast", alg, P, us)
    dec = Decider(st, {"bcast": list(TIMES)}, 0.0, calls={("bcast", P, M): 4})
    want = {a: TIMES[a] + dec.charge("bcast", a, P, M) for a in TIMES}
    assert abs(want["hier_ms"] - (6.9 + 850 / 4)) < 1e-9, f"Decider.charge: {want}"
    assert (r["oracle"], r["steady_oracle"], r["calls"]) == ("native", "hier_ms", "4") and \
        abs(float(r["tuned_us"]) - want["native"]) < 1e-3 and \
        abs(float(r["oracle_us"]) - want["native"]) < 1e-3 and \
        float(r["tuned_over_oracle"]) == 1.0, \
        f"with hier_ms's 850 us setup over 4 calls native is the oracle (the tuner's " \
        f"choice: tuned/oracle 1): {r}"
    assert abs(float(r["steady_tuned_over_oracle"]) - 20.0 / 6.9) < 1e-3 and \
        float(r["tuned_setup_us"]) == SETUPS["native"], \
        f"beside it the steady state, hier_ms the oracle (tuned/oracle 2.9): {r}"
    assert "**(missed)**" not in md and "steady state" in md and \
        f"bcast p={P} {M} B, 4 calls" in md and "2.899" in md, \
        f"validate.md: no miss; the steady state beside; the point the setups changed:\n{md}"
    assert data["calls"] == [["bcast", P, M, 4]] and \
        {(x["alg"], x["us"][0]) for x in data["setups"]} == set(SETUPS.items()), \
        f"validate.json keeps the calls and the setups measured: {data['calls']}, " \
        f"{data['setups']}"


def test_setup_over_many_calls_still_missed():
    # over 4000 calls hier_ms's setup is 0.2 us a call: it is the oracle,
    # and native (the rules' choice) is a miss, as it is in steady state
    rows, md, _ = validated(4000)
    r = rows[0]
    assert r["oracle"] == r["steady_oracle"] == "hier_ms" and \
        float(r["tuned_over_oracle"]) > 2.8 and "**(missed)**" in md, \
        f"4000 calls: hier_ms the oracle with its setup too, tuned/oracle > 2.8: {r}"


def test_setup_of_the_rules_variant():
    # the rules pick a variant (params); collbench's column ran names its
    # algorithm alone: tuned pays the variant's setup, not the algorithm's
    # (proxy_app's vector allreduce: tuned/oracle 0.954 with the wrong one)
    var = "hier_ms@COLLX_HIER_SENDERS=8"
    d = {"algs": {"allreduce": ["native", "hier_ms", var]}, "problems": [],
         "points": [{"coll": "allreduce", "p": P, "ppn": NODE, "size_bytes": 12288,
                     "forced": {"native": [90.0, "native"], "hier_ms": [45.8, "hier_ms"],
                                var: [43.2, var]}}],
         "selected": {"r.json": {f"allreduce {P} 12288": [43.2, "hier_ms"]}},
         "setups": [{"coll": "allreduce", "alg": "hier_ms", "p": P, "us": [216.0]},
                    {"coll": "allreduce", "alg": var, "p": P, "us": [300.0]}],
         "calls": [["allreduce", P, 12288, 20]]}
    rules = validate.rulesmod.Rules([{"collective": "allreduce", "algorithm": "hier_ms",
                                      "params": {"COLLX_HIER_SENDERS": 8}}])
    rows, problems = validate.evaluate(d, {"r.json": rules})
    r = rows[0]
    assert not problems and r["rule"] == var and r["tuned_setup_us"] == "300.0" and \
        abs(float(r["tuned_us"]) - (43.2 + 300 / 20)) < 1e-3 and r["oracle"] == "hier_ms" \
        and float(r["tuned_over_oracle"]) >= 1.0, \
        f"tuned ran the rules' variant and pays its setup; the oracle with its own " \
        f"(hier_ms, 45.8 + 216 / 20) is no slower: {r}, {problems}"


def test_no_calls_no_charge():
    # a validate.json from before the setups (no "calls", no "setups"), or
    # held-out points without a profile: steady state, both columns alike
    d = {"algs": {"bcast": list(TIMES)}, "problems": [], "selected": {},
         "points": [{"coll": "bcast", "p": P, "ppn": NODE, "size_bytes": M,
                     "forced": {a: [us, a] for a, us in TIMES.items()}}]}
    rows, problems = validate.evaluate(d, {"r.json": validate.rulesmod.Rules(
        [{"collective": "bcast", "algorithm": "native"}])})
    r = rows[0]
    assert not problems and r["calls"] == "" and r["oracle"] == r["steady_oracle"] == \
        "hier_ms" and r["tuned_over_oracle"] == r["steady_tuned_over_oracle"], \
        f"no calls: nothing charged: {r}, {problems}"
    s = validate.summarize(rows, ["bcast"])[0]
    assert s["charged"] == 0 and s["geo_o"] == s["steady_geo_o"], f"summary: {s}"


if __name__ == "__main__":
    helpers.run_module(globals())
