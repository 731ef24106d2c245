#!/usr/bin/python3
"""The tuner's pure parts (python/collx/tune), no MPI: the grid and its
held-out points, the ranges and their merging into rules, first-match
lookup, the noise rule (native unless faster by the margin beyond the
confidence intervals), the one-algorithm-per-size rule of the
v-collectives, the presumption that a failure at (q, m) extends to larger
points, and the cost model's fit.

    test_tune_units.py REPO_ROOT"""
import math
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "python"))
from collx.tune import grid, model, rules, target  # noqa: E402
from collx.tune.between import Between  # noqa: E402
from collx.tune.decide import Decider  # noqa: E402
from collx.tune.store import Store  # noqa: E402

failures = []


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


# ---------------------------------------------------------------- grid
qs = grid.comm_sizes(32, 8)
expect(qs == [32, 30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 3, 2],
       f"comm sizes of p=32, 8 per node: {qs}")
expect(all(q % 8 in (0, 2, 4, 6) for q in qs if q > 8),
       "above one node: whole nodes, and whole nodes and a quarter, half, three quarters")
expect([grid.partial_fills(k) for k in (2, 3, 4, 8, 16)] ==
       [[1], [1, 2], [1, 2, 3], [2, 4, 6], [4, 8, 12]],
       "partial fills of small nodes rounded and deduplicated")
held = grid.held_out_comm_sizes(32, 8)
expect(held == [29, 25, 23, 19, 13, 9, 7, 5] and not set(held) & set(qs),
       f"held-out comm sizes off the grid (across nodes k/8, 3k/8, 5k/8, 7k/8 past whole "
       f"nodes): {held}")
for p_, k_ in ((48, 16), (64, 8), (12, 2), (18, 3), (16, 4)):
    h_ = grid.held_out_comm_sizes(p_, k_)
    expect(not set(h_) & set(grid.comm_sizes(p_, k_)), f"p={p_}, k={k_}: held out {h_} off the grid")
held = grid.held_out_comm_sizes(64, 8)
expect({40, 56} <= set(held) and not set(held) & set(grid.comm_sizes(64, 8)),
       f"held-out: the whole-node sizes the grid skips too: {held}")
sizes = grid.msg_sizes(8, 4096)
hs = grid.held_out_sizes(8, 4096)
expect(hs[0] == 12 and not set(hs) & set(sizes) and all(8 < s < 4096 for s in hs),
       f"held-out sizes between grid sizes: {hs}")
expect(grid.bins([2, 4, 8], top=8) == [(None, 2), (3, 5), (6, 8)],
       f"bins split at geometric means: {grid.bins([2, 4, 8], top=8)}")
cb = grid.comm_bins([2, 3, 4, 6, 8, 16, 24, 32], top=32)
expect(cb == [(None, 2), (3, 3), (4, 4), (5, 7), (8, 11), (12, 16), (17, 31), (32, 32)],
       f"communicator sizes: a power of two beside a non-power serves only itself: {cb}")

# ---------------------------------------------------------------- partial nodes
# A communicator that ends in a part of a node is served by a grid size of
# the same layout, never by one of whole nodes (p=12 with 8 per node is not
# p=16), and a size of whole nodes never by one that ends in a part.
cr = grid.comm_ranges(qs, 8)
expect(cr == [(None, 2, 2), (3, 3, 3), (4, 4, 4), (5, 7, 6), (8, 8, 8), (9, 11, 10),
              (12, 13, 12), (14, 15, 14), (16, 16, 16), (17, 19, 18), (20, 21, 20),
              (22, 23, 22), (24, 24, 24), (25, 27, 26), (28, 29, 28), (30, 31, 30),
              (32, 32, 32)],
       f"ranges: whole-node sizes serve themselves, the sizes between them the partial "
       f"grid size of the same node count and nearest fill: {cr}")
# How full the last node is decides which partial grid size serves p.
for p_, k_, want in ((32, 8, {17: 18, 18: 18, 19: 18, 21: 20, 23: 22, 29: 28, 31: 30}),
                     (48, 16, {18: 20, 22: 20, 26: 24, 30: 28, 34: 36, 42: 40, 46: 44}),
                     (12, 2, {11: 9})):
    srv = {q: v for lo, hi, v in grid.comm_ranges(grid.comm_sizes(p_, k_), k_)
           for q in range(lo or 1, hi + 1)}
    got = {q: srv[q] for q in want}
    expect(got == want, f"p={p_}, {k_} per node: served by the nearest fill {got}")
for p_, k_ in ((32, 8), (48, 16), (64, 8), (64, 16), (36, 16)):
    g_ = grid.comm_sizes(p_, k_)
    served = {q: v for lo, hi, v in grid.comm_ranges(g_, k_) for q in range(lo or 1, hi + 1)}
    expect(sorted(served) == list(range(1, p_ + 1)) and
           all(grid.layout(v, k_) == grid.layout(q, k_) for q, v in served.items()) and
           all(v // k_ == q // k_ for q, v in served.items()
               if grid.layout(q, k_) == 2 and any(u // k_ == q // k_ for u in g_ if u % k_)),
           f"p={p_}, {k_} per node: every size served once, by its own layout (and a "
           f"partial one by a grid size with as many whole nodes if there is one)")
cr = grid.comm_ranges(grid.comm_sizes(64, 8), 8)
expect((40, 40, 48) in cr and (41, 43, 50) in cr and (44, 45, 52) in cr and
       (46, 47, 54) in cr and (56, 56, 48) in cr,
       f"5 whole nodes: the nearest whole-node grid size (a power of two beside a non-power "
       f"serves only itself); 5 nodes and a part: the nearest partial count, then the "
       f"nearest fill of the last node: {cr}")
expect(grid.comm_ranges([2, 4, 8], 4) == [(None, 2, 2), (3, 4, 4), (5, 8, 8)] and
       grid.comm_ranges([2, 4, 8], 4, open_below=False)[0] == (2, 2, 2),
       "a grid without partial sizes: the partial sizes go to the whole-node ones")
pg = grid.Grid("allreduce", [4, 8, 12, 16], [64])
pr = rules.build("allreduce", pg, {(4, 64): "native", (8, 64): "native",
                                    (12, 64): "hier", (16, 64): "native"}, node=8)
expect([rules.match(pr, "allreduce", q, 64, min(q, 8)) for q in (8, 9, 12, 15, 16)] ==
       ["native", "hier", "hier", "hier", "native"] and len(pr) == 3,
       f"rules: 9..15 ranks (one node and a part) apart from 16: {pr}")
expect(Decider(Store(0), {"allreduce": ["native"]}, 0.02, node=8).domain(12) == 2 and
       Decider(Store(0), {"allreduce": ["native"]}, 0.02, node=8).domain(16) == 1,
       "decider: a communicator that ends in a part of a node is a layout of its own")
pts = [(q, m, 100.0) for q in (16, 32, 48) for m in (8, 64, 512)] + \
      [(q, m, 50.0) for q in (20, 28) for m in (8, 64, 512)]
near = model.AlgModel(pts).predict([(24, 64)])[0]
apart = model.AlgModel(pts, layout=lambda q: grid.layout(q, 8)).predict([(24, 64)])[0]
expect(apart > near, f"model: partial-node neighbours correct a whole-node prediction less "
       f"({math.exp(apart):.0f} vs {math.exp(near):.0f} us at 24 ranks; whole nodes "
       f"measured 100, partial 50)")

# ---------------------------------------------------------------- runs
got = target.runs(["native", "binomial", "rma_linear", "hier", "rma_binomial"])
expect(got == [["native", "binomial", "hier"], ["rma_linear"], ["rma_binomial"]],
       f"an algorithm that leaves work behind (RMA bcast) runs alone: {got}")

# ---------------------------------------------------------------- merging
g = grid.Grid("allreduce", [2, 4, 8], [8, 16, 32, 64])
ch = {}
for q in (2, 4, 8):
    for m in (8, 16, 32, 64):
        ch[(q, m)] = "ring" if m <= 16 else "native"
ch[(8, 64)] = "rabenseifner"
rs = rules.build("allreduce", g, ch, node=4)
want = [
    {"collective": "allreduce", "algorithm": "ring", "comm_size": {"max": 4},
     "msg_size": {"max": 22}, "ranks_per_node": {"min": 1, "max": 4}},
    {"collective": "allreduce", "algorithm": "native", "comm_size": {"max": 4},
     "msg_size": {"min": 23, "max": 64}, "ranks_per_node": {"min": 1, "max": 4}},
    {"collective": "allreduce", "algorithm": "ring", "comm_size": {"min": 5, "max": 8},
     "msg_size": {"max": 22}, "ranks_per_node": {"min": 4, "max": 4}},
    {"collective": "allreduce", "algorithm": "native", "comm_size": {"min": 5, "max": 8},
     "msg_size": {"min": 23, "max": 45}, "ranks_per_node": {"min": 4, "max": 4}},
    {"collective": "allreduce", "algorithm": "rabenseifner", "comm_size": {"min": 5, "max": 8},
     "msg_size": {"min": 46, "max": 64}, "ranks_per_node": {"min": 4, "max": 4}}]
expect(rs == want, "equal neighbours merge (sizes, then communicator sizes):\n  " +
       "\n  ".join(map(str, rs)))
expect(rules.match(rs, "allreduce", 3, 20, 3) == "ring" and
       rules.match(rs, "allreduce", 7, 50, 4) == "rabenseifner" and
       rules.match(rs, "allreduce", 7, 50, 2) is None and
       rules.match(rs, "allreduce", 9, 8, 4) is None and
       rules.match(rs, "allreduce", 8, 65, 4) is None,
       "match: sizes between grid points served, nothing beyond the grid or at another "
       "ranks per node")
every = {k: "native" for k in ch}
one = rules.build("allreduce", g, every)
expect(one == [{"collective": "allreduce", "algorithm": "native", "comm_size": {"max": 8},
                "msg_size": {"max": 64}}], f"nothing faster: one native rule: {one}")
gv = rules.build("gatherv", grid.Grid("gatherv", [2, 4], [8, 16]),
                 {(2, 8): "tuw", (2, 16): "tuw", (4, 8): "linear", (4, 16): "linear"})
expect(all("msg_size" not in r for r in gv) and len(gv) == 2,
       f"v-collectives: no msg_size: {gv}")
close = {(q, m): {} for q in (2, 4, 8) for m in (8, 16, 32, 64)}
close[(2, 8)] = {"native": 1.2, "recursive_doubling": 1.05}
close[(4, 16)] = {"native": 1.3, "rabenseifner": 1.08, "recursive_doubling": 1.02}
close[(8, 64)] = {"native": 1.01, "ring": 1.04}
rc = rules.build("allreduce", g, ch, node=4, close=close)
expect([r.get("candidates") for r in rc] ==
       [["native", "recursive_doubling", "rabenseifner"], None, None, None, ["native", "ring"]] and
       [{k: v for k, v in r.items() if k != "candidates"} for r in rc] == want,
       "candidates: native first where another is chosen, then those close at the most "
       "grid points the rule covers; the ranges unchanged:\n  " + "\n  ".join(map(str, rc)))
expect(rules.rule_of("bcast", ("binomial", {"segment": 8192}))["params"] == {"segment": 8192},
       "a choice with params gives a rule with params")

# ---------------------------------------------------------------- noise rule


def decider(samples, coll="allreduce", margin=0.02, floor=0.0):
    st = Store(floor)
    algs = sorted({a for a, _, _ in samples} | {"native"})
    for a, m, xs in samples:
        st.samples[(coll, a, 8, m)] = list(xs)
        st.ran[(coll, a, 8, m)] = {a}
    return Decider(st, {coll: algs}, margin)


d = decider([("native", 64, [100, 101, 99]), ("close", 64, [97, 98, 96]),
             ("clear", 64, [90, 90.5, 89.5])])
expect(d.choose_cell("allreduce", 8, 64) == "clear",
       "faster beyond both confidence intervals: chosen")
d = decider([("native", 64, [100, 101, 99]), ("close", 64, [97, 98, 96])])
expect(d.choose_cell("allreduce", 8, 64) == "native",
       "3 % faster but the intervals overlap: native")
d = decider([("native", 64, [100, 100]), ("slight", 64, [99, 99])])
expect(d.choose_cell("allreduce", 8, 64) == "native",
       "1 % faster without noise, below the 2 % margin: native")
d = decider([("native", 64, [100]), ("fast", 64, [80])], floor=0.005)
expect(d.choose_cell("allreduce", 8, 64) == "fast", "one sample each, clear gain: chosen")
d = decider([("native", 64, [100]), ("fast", 64, [80])])
d.store.ran[("allreduce", "fast", 8, 64)] = {"native"}
expect(d.choose_cell("allreduce", 8, 64) == "native",
       "an algorithm that fell back (column ran) is never chosen")

# a prediction with nothing around it to say how wrong it is is no evidence
d = decider([("native", 64, [100.0]), ("fast", 128, [3.0])])
d.refit("allreduce", cells=[(8, 64), (8, 128)])
from collx.tune.decide import Est, IGNORANT  # noqa: E402
far = Est(math.log(3.0))   # predicted 33 times faster, no support: sigma IGNORANT
expect(d.diff_sigma("allreduce", "fast", far, "native", Est(math.log(100.0), 0.01), 8, 64)
       >= IGNORANT and not d.evidence("allreduce", "fast", far, Est(math.log(100.0), 0.01),
                                      8, 64),
       "an unknown difference is no evidence, however large (33 times predicted)")
# ... nor a regret: fast measured on 2 ranks only, predicted 31 times faster
# than native on 8
st = Store(0.005)
for a_, q_, m_, us_ in ([("fast", 2, m, 3.0) for m in (64, 128, 256, 512)] +
                        [("native", 2, m, 50.0) for m in (64, 128, 256, 512)] +
                        [("native", 8, 64, 100.0)]):
    st.samples[("allreduce", a_, q_, m_)] = [us_]
    st.ran[("allreduce", a_, q_, m_)] = {a_}
g = grid.Grid("allreduce", [2, 8], [64, 128, 256, 512])
d = Decider(st, {"allreduce": ["fast", "native"]}, 0.02, {"allreduce": g})
d.refit("allreduce")
est = d.estimates("allreduce", 8, 64)
pr = d.predicted_regret("allreduce", 8, 64, "native")
expect("fast" in est and est["fast"].us < 10 and pr == 1.0,
       f"predicted regret leaves a prediction of unknown error out (fast predicted "
       f"{est['fast'].us if 'fast' in est else None:.1f} us on 8 ranks): {pr}")

# candidates for online tuning: measured runners-up within 10 %, native if not chosen
d = decider([("native", 64, [100.0]), ("clear", 64, [80.0]), ("near", 64, [86.0]),
             ("far", 64, [95.0])], floor=0.005)
ru = d.runners_up("allreduce", 8, 64, "clear")
expect(sorted(ru) == ["native", "near"] and abs(ru["near"] - 86 / 80) < 1e-9,
       f"runners-up of clear (80 us): near (86, within 10 %) and native, not far (95): {ru}")
d = decider([("native", 64, [100.0]), ("near", 64, [104.0]), ("far", 64, [120.0])])
expect(list(d.runners_up("allreduce", 8, 64, "native")) == ["near"],
       "native chosen: the measured algorithms within 10 % of it")
expect(d.candidates("gatherv", grid.Grid("gatherv", [8], [64]), {(8, 64): "native"}) == {},
       "no candidates where online tuning does not tune (v-collectives)")

# ---------------------------------------------------------------- between grid points


def between_rules(times, qs, ms, node=None):
    """Rules of allreduce from {alg: {(q, m): us}} measured on qs x ms."""
    st = Store(0.005)
    for a, pts in times.items():
        for (q, m), us in pts.items():
            st.samples[("allreduce", a, q, m)] = [us]
            st.ran[("allreduce", a, q, m)] = {a}
    g = grid.Grid("allreduce", qs, ms)
    d = Decider(st, {"allreduce": sorted(times)}, 0.02, {"allreduce": g}, node)
    ch = d.choices("allreduce", g)
    return rules.build("allreduce", g, ch, node, row=Between(d, "allreduce", g, ch, node).row)


def picks(rs, q, ms):
    return [rules.match(rs, "allreduce", q, m, q) for m in ms]


# a wins at 8 B, b at 1 KiB: they cross at 156 B (lines in log m), not halfway (90 B)
nat = {(8, 8): 1000.0, (8, 1024): 1000.0}
rs = between_rules({"native": nat, "a": {(8, 8): 100.0, (8, 1024): 400.0},
                    "b": {(8, 8): 300.0, (8, 1024): 200.0}}, [8], [8, 1024])
expect(picks(rs, 8, [8, 120, 150, 165, 1024]) == ["a", "a", "a", "b", "b"],
       f"between two grid sizes: the switch where the times' lines cross (156 B), not "
       f"halfway: {picks(rs, 8, [8, 120, 150, 165, 1024])}")
rs = between_rules({"native": nat, "a": {(8, 8): 100.0, (8, 1024): 400.0},
                    "b": {(8, 8): 300.0, (8, 1024): 200.0},
                    "c": {(8, 8): 110.0, (8, 1024): 210.0}}, [8], [8, 1024])
expect(picks(rs, 8, [8, 90, 1024]) == ["a", "c", "b"],
       f"a third algorithm, faster than native at both ends, takes the middle: "
       f"{picks(rs, 8, [8, 90, 1024])}")
# an algorithm measured slower than native at one end does not serve towards
# it, however its line crosses native's (times step: the emulated cluster)
rs = between_rules({"native": {(8, 8): 100.0, (8, 1024): 400.0},
                    "a": {(8, 8): 130.0, (8, 1024): 200.0}}, [8], [8, 1024])
expect(picks(rs, 8, [8, 64, 500, 1023, 1024]) == ["native"] * 4 + ["a"],
       f"native and a cross between two grid sizes: native up to a's grid size: "
       f"{picks(rs, 8, [8, 64, 500, 1023, 1024])}")
rs = between_rules({"native": {(8, 8): 100.0, (8, 1024): 400.0},
                    "a": {(8, 8): 50.0, (8, 1024): 200.0},
                    "b": {(8, 8): 60.0, (8, 1024): 150.0}}, [8], [8, 1024])
expect(set(picks(rs, 8, [8, 64, 500, 1024])) == {"a", "b"},
       f"two algorithms faster than native at both ends: their lines decide: "
       f"{picks(rs, 8, [8, 64, 500, 1024])}")
# communicator sizes off the grid: flat is 100 us at 4 and 8 ranks, jumpy 120
# and 80; at 6 ranks jumpy's line (95 us) counts near its slower end (116)
flat = {(q, 64): 100.0 for q in (4, 8)}
jumpy = {(4, 64): 120.0, (8, 64): 80.0}
rs = between_rules({"native": {(q, 64): 1000.0 for q in (4, 8)}, "flat": flat,
                    "jumpy": jumpy}, [4, 8], [64])
got = [rules.match(rs, "allreduce", q, 64, q) for q in (4, 5, 6, 7, 8)]
expect(got == ["flat", "flat", "flat", "jumpy", "jumpy"],
       f"off the grid, an algorithm whose time moves between the grid sizes around counts "
       f"nearer its slower one: {got}")
expect(grid.brackets([10, 12, 14, 16, 18], 8, 13) == (12, 14, 0.5) and
       grid.brackets([10, 12, 14, 16, 18], 8, 17) is None and
       grid.brackets([10, 12, 14, 16, 18], 8, 12) is None,
       "brackets: the fill between two grid sizes of the same whole nodes; none below the "
       "smallest fill or on the grid")

# v-collectives: one algorithm for every size, never 5 % slower anywhere
vs = [("native", m, [100.0]) for m in (8, 16, 32)]
d = decider(vs + [("tuw", 8, [50.0]), ("tuw", 16, [50.0]), ("tuw", 32, [108.0])],
            coll="gatherv", floor=0.005)
expect(d.choose_bin("gatherv", 8, [8, 16, 32]) == "native",
       "v-collective: 8 % slower at one size: native")
d = decider(vs + [("tuw", 8, [50.0]), ("tuw", 16, [50.0]), ("tuw", 32, [101.0])],
            coll="gatherv", floor=0.005)
expect(d.choose_bin("gatherv", 8, [8, 16, 32]) == "tuw",
       "v-collective: faster in geometric mean, at most 1 % slower anywhere: chosen")

# ---------------------------------------------------------------- failures
st = Store(0)
st.fail("bcast", "hier", 16, 1024, "memory: 9.0 GiB resident > limit 7.8 GiB")
expect(st.cannot("bcast", "hier", 32, 4096) and not st.cannot("bcast", "hier", 8, 4096) and
       not st.cannot("bcast", "hier", 32, 512),
       "out of memory at (q, m): presumed at larger q and m only")
st.fail("alltoallv", "native", 3, 8, "exit 134: Aborted")
expect(st.cannot("alltoallv", "native", 3, 8) and not st.cannot("alltoallv", "native", 4, 8),
       "a crash at (q, m): that point only")

# ---------------------------------------------------------------- model
pts = [(q, m, 5 + 2 * math.log2(q) + 0.001 * m * q)
       for q in (2, 4, 8, 16) for m in (8, 1024, 65536)]
mdl = model.AlgModel(pts)
got = mdl.predict([(32, 4096)])[0]
true = math.log(5 + 2 * 5 + 0.001 * 4096 * 32)
expect(abs(got - true) < 0.02, f"model: recovers a + b log2 q + f m q ({math.exp(got):.1f} "
       f"vs {math.exp(true):.1f} us at q=32, 4 KiB)")
expect(all(c >= 0 for c in mdl.coef), "model: coefficients >= 0")
# across nodes, terms of their own added to the shared ones (SMPI ib-qdr-36x16
# allgather, Bruck at 1 MiB: linear in q inside a node, 7-40 times that
# across; one fit put 16 ranks at 1.65 times its time)
inside = [(q, m, 3 + 0.0025 * m * q) for q in (2, 3, 4, 6, 8, 12) for m in (65536, 262144, 1048576)]
across = [(q, m, 20 * (3 + 0.0025 * m * q)) for q in (20, 24, 32, 48) for m in (65536, 262144, 1048576)]
on16 = lambda q: grid.layout(q, 16)   # noqa: E731
got = math.exp(model.AlgModel(inside + across, layout=on16).predict([(16, 1048576)])[0])
true = 3 + 0.0025 * 1048576 * 16
expect(abs(got / true - 1) < 0.05, f"model: across nodes, terms of their own: a node's times "
       f"not pulled up by them ({got:.0f} vs {true:.0f} us at 16 ranks, 1 MiB)")
# ... and the shape in q shared: measured inside a node at 2 and 16 ranks
# only (SMPI fattree-256x16 linear bcast), 8 ranks follows the q term the
# nodes show (a node's fit of its own put it 1.22 times too slow)
lin = lambda q, m: 1.5 + 0.43 * q + 0.0002 * m * q
inside = [(q, m, lin(q, m)) for q in (2, 16) for m in (8, 512, 1024, 2048, 16384)]
across = [(q, m, 2 * lin(q, m) + 3) for q in (20, 24, 32, 40, 48) for m in (8, 512, 16384)]
got = math.exp(model.AlgModel(inside + across, layout=on16).predict([(8, 1024)])[0])
expect(abs(got / lin(8, 1024) - 1) < 0.05, f"model: the shape in q shared by a node's inside and "
       f"the nodes ({got:.2f} vs {lin(8, 1024):.2f} us at 8 ranks)")

# ---------------------------------------------------------------- launch order
seq = target.interleaved(["selected", "native", "x"], 3)
expect(seq == ["selected", "native", "x", "x", "native", "selected",
               "selected", "native", "x"] and
       target.interleaved(["a", "b"], 1, turn=1) == ["b", "a"],
       f"the labels' order alternates (ABBA: a drift within a launch cancels): {seq}")

# ---------------------------------------------------------------- variants (params)
lab = target.label_of("pipeline_chain", {"COLLX_BCAST_SEGMENTS": "32"})
expect(lab == "pipeline_chain@COLLX_BCAST_SEGMENTS=32" and
       target.split_label(lab) == ("pipeline_chain", {"COLLX_BCAST_SEGMENTS": "32"}) and
       target.split_label("binomial") == ("binomial", {}),
       f"a variant's label and back: {lab}")
got = target.runs(["native", "pipeline_chain", lab, "pipeline_binary@COLLX_BCAST_SEGMENTS=32",
                   "pipeline_chain@COLLX_BCAST_SEGMENTS=2", "rma_linear"])
expect(got == [["native", "pipeline_chain"],
               [lab, "pipeline_binary@COLLX_BCAST_SEGMENTS=32"],
               ["pipeline_chain@COLLX_BCAST_SEGMENTS=2"], ["rma_linear"]],
       f"runs: one per set of params (the knobs go to the run's environment): {got}")
seen = {}


def fake_run(args, env):
    seen["args"], seen["env"] = args, env
    algs = args[args.index("--algs") + 1].split(",")
    return [{"alg": a, "ran": a if a != "pipeline_binary" else "binomial"} for a in algs], None


rows, _ = target.with_params(["--coll", "bcast", "--algs", lab + ",pipeline_binary@"
                              "COLLX_BCAST_SEGMENTS=32", "-m", "8"], {"COLLX_X": "1"}, fake_run)
expect(seen["args"][3] == "pipeline_chain,pipeline_binary" and
       seen["env"] == {"COLLX_X": "1", "COLLX_BCAST_SEGMENTS": "32"} and
       [(r["alg"], r["ran"]) for r in rows] ==
       [(lab, lab), ("pipeline_binary@COLLX_BCAST_SEGMENTS=32", "binomial")],
       f"collbench gets names and the knobs in its environment, rows come back under the "
       f"labels (ran too where the algorithm itself served): {seen} {rows}")
r = rules.rule_of("bcast", lab)
expect(r == {"collective": "bcast", "algorithm": "pipeline_chain",
             "params": {"COLLX_BCAST_SEGMENTS": 32}} and
       rules.match([r], "bcast", 8, 64, 8) == lab,
       f"a variant chosen becomes a rule with params, and matches back as its label: {r}")
expect(rules.pick_candidates("binomial", [(8, 64)], {(8, 64): {lab: 1.01, "native": 1.05}}) ==
       ["native"], "variants are never candidates (online tuning tries names)")

# a variant is predicted as its algorithm plus its offset (model.Offset)
VQ, VM = (8, 16, 32), (64, 256, 1024, 4096)


def variant_decider(fast_at, slow_alg_factor=3.0, offset=0.8):
    """native 100 us, tree 3x slower, hier 90 us everywhere; hier@K=1 and
    tree@K=1 measured only at fast_at, offset times their algorithm."""
    st = Store(0.005)
    algs = ["native", "tree", "tree@K=1", "hier", "hier@K=1"]
    for q in VQ:
        for m in VM:
            for a, t in (("native", 100.0), ("tree", 100.0 * slow_alg_factor), ("hier", 90.0)):
                st.samples[("bcast", a, q, m)] = [t]
                st.ran[("bcast", a, q, m)] = {a}
    for q, m in fast_at:
        for a, t in (("hier@K=1", 90.0 * offset), ("tree@K=1", 100.0 * slow_alg_factor * offset)):
            st.samples[("bcast", a, q, m)] = [t]
            st.ran[("bcast", a, q, m)] = {a}
    g = grid.Grid("bcast", VQ, VM)
    d = Decider(st, {"bcast": algs}, 0.02, grids={"bcast": g})
    d.refit("bcast")
    return d


d = variant_decider([(8, 64), (16, 256)])
e = d.estimate("bcast", "hier@K=1", 32, 4096)
expect(e is not None and not e.measured and e.via and e.via[0] == "hier" and
       math.exp(e.ln) < 90.0 and e.via[2] > 0.01,
       f"an unmeasured variant: its algorithm's time plus the offset seen where both ran "
       f"({math.exp(e.ln):.1f} us, hier 90, sigma {e.via[2]:.3f})")
risk = {a: p for a, p, _ in d.comparisons("bcast", 32, 4096, "hier")}
expect(risk.get("hier@K=1", 0) > 0.05 and risk.get("tree@K=1", 1) < 0.05,
       f"a variant is at risk where its algorithm contends (hier@K=1 {risk.get('hier@K=1')}), "
       f"not where its algorithm is 3 times slower (tree@K=1 {risk.get('tree@K=1')})")
d0 = variant_decider([], offset=1.0)
e0 = d0.estimate("bcast", "hier@K=1", 32, 4096)
expect(e0 is not None and abs(math.exp(e0.ln) - 90.0) < 1e-6 and
       abs(e0.via[2] - model.SPREAD) < 1e-9 and "hier@K=1" not in
       {k[1] for k in d0.store.samples},
       f"never measured: its algorithm's time, the prior spread ({e0.via[2]:.3f})")
same = variant_decider([(q, m) for q in VQ for m in VM[:3]], offset=1.0)
off = same.offsets[("bcast", "hier@K=1")][1]
expect(off.spread < 0.5 * model.SPREAD,
       f"a knob that changed nothing where measured: its spread shrinks ({off.spread:.3f})")

# ---------------------------------------------------------------- budget split


class Synthetic(target.Target):
    """A target whose collbench answers from formulas: allreduce cheap to
    simulate (1 ms a case), bcast dear (0.3 s a case), launch 0.05 s."""
    kind, clock = "smpi", "host CPU seconds"
    case_s = {"allreduce": 0.001, "bcast": 0.3}

    def __init__(self, case_s=None):
        super().__init__(8, None, None, None)
        self.case_s = case_s or self.case_s

    def run_collbench(self, q, args, env=None, timeout=300.0, mem_limit=None):
        opt = {args[i]: args[i + 1] for i in range(len(args) - 1) if args[i].startswith("-")}
        coll, algs = opt["--coll"], opt["--algs"].split(",")
        rows, cost = [], 0.05
        for m in map(int, opt["-m"].split(",")):
            for a in algs:
                us = 10 + (1 + len(a) % 3) * math.log2(q) + m * 1e-3 * (1 + algs.index(a) % 2)
                c = self.case_s[coll]
                c = c(q) if callable(c) else c
                rows.append({"alg": a, "size_bytes": str(m), "median_us": str(us), "ran": a,
                             "ppn": str(q), "host_s": str(c)})
                cost += c
        return rows, target.limits.Outcome(0, "", cost, cost, 0, "")


def split_run(budget, case_s=None, natives=False):
    from collx.tune.sampler import Sampler
    algs = {"allreduce": ["native", "ring", "recursive_doubling"],
            "bcast": ["native", "binomial", "linear"]}
    grids = {c: grid.Grid(c, [2, 3, 4, 6, 8], grid.msg_sizes(8, 1024)) for c in algs}
    st = Store(0.005)
    opts = type("O", (), {"budget": budget, "reps": 1, "iters": 3, "warmup": 1,
                          "timeout": 60, "mem_limit": None})
    smp = Sampler(Synthetic(case_s), grids, algs, st, Decider(st, algs, 0.02, grids, None), opts,
                  stream=open(os.devnull, "w"))
    smp.initial()
    before = {c: sum(k[0] == c for k in st.samples) for c in algs}
    smp.whole()
    if natives:
        smp.natives()
        return st, grids
    return {c: (before[c], sum(k[0] == c for k in st.samples),
                len(grids[c].cells()) * len(algs[c])) for c in algs}, smp.spent()


got, spent = split_run(20.0)
expect(got["allreduce"][1] == got["allreduce"][2] and got["bcast"][1] == got["bcast"][0] and
       spent <= 20.0 + 1,
       f"budget split: allreduce's cheap grid measured whole, bcast's dear one left to the "
       f"guided rounds (measured/grid pairs {got}; spent {spent:.1f} of 20 s)")
got, _ = split_run(20.0, {"allreduce": 0.2, "bcast": 0.3})
expect(all(got[c][1] == got[c][0] < got[c][2] for c in got),
       f"budget split: two grids dearer than an even share each are both left to the "
       f"guided rounds ({got})")

got, spent = split_run(20.0, {"allreduce": lambda q: 0.001 if q <= 4 else 0.1, "bcast": 0.3})
expect(got["allreduce"][0] < got["allreduce"][1] < got["allreduce"][2] and spent <= 20.0 + 2,
       f"budget split: a grid that turns dear past the sizes measured stops being measured "
       f"whole once a run no longer fits its share; the rest is sampled ({got}, spent "
       f"{spent:.1f} of 20 s)")

st, grids = split_run(40.0, {"allreduce": 0.2, "bcast": 0.3}, natives=True)
missing = [(c, q, m) for c, g in grids.items() for q, m in g.cells()
           if not st.usable(c, "native", q, m)]
others = {k[1] for k in st.samples if k[1] != "native"}
expect(not missing and others, f"native measured at every grid point after the initial "
       f"design, before the rounds (missing: {missing})")

# validate on a real MPI: selected and native paired per launch
from collx.tune import validate  # noqa: E402
rows_sel = [{"launch": k, "median_us": v} for k, v in ((0, 10.0), (1, 12.0), (2, 11.0))]
rows_nat = [{"launch": k, "median_us": v} for k, v in ((0, 10.0), (1, 10.0), (3, 9.0))]
pr = validate.paired(rows_sel, rows_nat)
expect(pr == [1.0, 1.2], f"paired: only launches with both, selected / native each: {pr}")
iv = validate.ratio_interval([1.10, 1.12, 1.11, 1.09])
expect(iv and iv[1] > 1.0 and iv[0] < iv[2] < 1.14 and
       validate.ratio_interval([0.8, 1.3])[1] < 1 and validate.ratio_interval([1.2]) is None,
       f"ratio interval: consistent 10 % slower launches are slower beyond noise "
       f"({iv}); two launches that disagree are not; one launch has no interval")

from collx.tune.store import t_upper  # noqa: E402
expect(abs(t_upper(2.365, 7) - 0.025) < 2e-4 and abs(t_upper(3.0, 2) - 0.0477) < 2e-4 and
       abs(t_upper(-1.0, 1) - 0.75) < 1e-9 and t_upper(0.0, 4) == 0.5,
       "Student's t upper tail (df 7 at 2.365, df 2 at 3.0, df 1 at -1, 0)")
iv = validate.ratio_interval([1.10, 1.12, 1.11, 1.09])
expect(len(iv) == 4 and iv[3] < 0.001,
       f"ratio interval: consistent 10 % slower launches have a small p ({iv[3]:.2g})")
expect(validate.holm([0.001, 0.02, 0.04, 0.5]) == 1 and
       validate.holm([0.0001, 0.0002, 0.3]) == 2 and validate.holm([0.03] * 20) == 0,
       "Holm: 0.001 of 4 rejected (< 0.0125), 0.02 not (> 0.0167); twenty points at 0.03 "
       "are what chance gives (none rejected)")

print(f"{len(failures)} failures" if failures else "all ok")
sys.exit(1 if failures else 0)
