#!/usr/bin/python3
"""rules.py: the ranges merged into rules, first-match lookup, candidates
for online tuning, rules with params. From tests/tune/test_tune_units.py's
sections partial nodes, merging and variants (params).

    test_rules.py [REPO_ROOT]"""
import json
import os
import tempfile

import helpers
from collx import rulesfile
from collx.tune import grid, labels, rules


# ---------------------------------------------------------------- partial nodes
def test_partial_nodes_rules():
    pg = grid.Grid("allreduce", [4, 8, 12, 16], [64])
    pr = rules.build("allreduce", pg, {(4, 64): "native", (8, 64): "native",
                                        (12, 64): "hier", (16, 64): "native"}, node=8)
    assert [rules.match(pr, "allreduce", q, 64, min(q, 8)) for q in (8, 9, 12, 15, 16)] == \
        ["native", "hier", "hier", "hier", "native"] and len(pr) == 3, \
        f"rules: 9..15 ranks (one node and a part) apart from 16: {pr}"


def test_shaped_rules():
    # a profile's nodes' leaders (4 and 8 ranks, one per node) beside the
    # collective's own grid on 8 per node: their rules hold one rank per
    # node from 4 ranks on, and come first (the own lowest range holds 1)
    key = grid.shaped("alltoallv", 1)
    sg, og = grid.Grid(key, [4, 8], [64]), grid.Grid("alltoallv", [2, 8, 16], [64])
    sr = rules.build(key, sg, {(4, 64): "pairwise", (8, 64): "native"}, node=8)
    own = rules.build("alltoallv", og, {(q, 64): "native" for q in (2, 8, 16)}, node=8)
    assert all(r["collective"] == "alltoallv" and r["ranks_per_node"] == {"min": 1, "max": 1}
               for r in sr) and sr[0]["comm_size"]["min"] == 4, \
        f"shaped rules: the collective's name, one rank per node, none below 4 ranks: {sr}"
    both = rules.ordered({"alltoallv": own, key: sr})
    assert both[:len(sr)] == sr and \
        [rules.match(both, "alltoallv", q, 64, rpn) for q, rpn in
         ((4, 1), (8, 1), (2, 1), (2, 2), (8, 8))] == \
        ["pairwise", "native", "native", "native", "native"] and \
        rules.match(both, "alltoallv", 4, 64, 4) != "pairwise", \
        f"first match: 4 ranks one per node take the leaders' rule, 4 on one node not: {both}"


# ---------------------------------------------------------------- merging
def merging_choices():
    """The grid, the choices at its points and the rules they merge into."""
    g = grid.Grid("allreduce", [2, 4, 8], [8, 16, 32, 64])
    ch = {}
    for q in (2, 4, 8):
        for m in (8, 16, 32, 64):
            ch[(q, m)] = "ring" if m <= 16 else "native"
    ch[(8, 64)] = "rabenseifner"
    want = [
        {"collective": "allreduce", "algorithm": "ring", "comm_size": {"max": 4},
         "msg_size": {"max": 22}, "ranks_per_node": {"min": 1, "max": 4}},
        {"collective": "allreduce", "algorithm": "native", "comm_size": {"max": 4},
         "msg_size": {"min": 23, "max": 64}, "ranks_per_node": {"min": 1, "max": 4}},
        {"collective": "allreduce", "algorithm": "ring", "comm_size": {"min": 5, "max": 8},
         "msg_size": {"max": 22}, "ranks_per_node": {"min": 4, "max": 4}},
        {"collective": "allreduce", "algorithm": "native", "comm_size": {"min": 5, "max": 8},
         "msg_size": {"min": 23, "max": 45}, "ranks_per_node": {"min": 4, "max": 4}},
        {"collective": "allreduce", "algorithm": "rabenseifner",
         "comm_size": {"min": 5, "max": 8},
         "msg_size": {"min": 46, "max": 64}, "ranks_per_node": {"min": 4, "max": 4}}]
    return g, ch, want


def test_merging_equal_neighbours():
    g, ch, want = merging_choices()
    rs = rules.build("allreduce", g, ch, node=4)
    assert rs == want, "equal neighbours merge (sizes, then communicator sizes):\n  " + \
        "\n  ".join(map(str, rs))


def test_merging_match():
    g, ch, _ = merging_choices()
    rs = rules.build("allreduce", g, ch, node=4)
    assert rules.match(rs, "allreduce", 3, 20, 3) == "ring" and \
        rules.match(rs, "allreduce", 7, 50, 4) == "rabenseifner" and \
        rules.match(rs, "allreduce", 7, 50, 2) is None and \
        rules.match(rs, "allreduce", 9, 8, 4) is None and \
        rules.match(rs, "allreduce", 8, 65, 4) is None, \
        "match: sizes between grid points served, nothing beyond the grid or at another " \
        "ranks per node"


def test_merging_nothing_faster():
    g, ch, _ = merging_choices()
    every = {k: "native" for k in ch}
    one = rules.build("allreduce", g, every)
    assert one == [{"collective": "allreduce", "algorithm": "native", "comm_size": {"max": 8},
                    "msg_size": {"max": 64}}], f"nothing faster: one native rule: {one}"


def test_merging_v_collectives():
    gv = rules.build("gatherv", grid.Grid("gatherv", [2, 4], [8, 16]),
                     {(2, 8): "tuw", (2, 16): "tuw", (4, 8): "linear", (4, 16): "linear"})
    assert all("msg_size" not in r for r in gv) and len(gv) == 2, \
        f"v-collectives: no msg_size: {gv}"


def test_merging_candidates():
    g, ch, want = merging_choices()
    close = {(q, m): {} for q in (2, 4, 8) for m in (8, 16, 32, 64)}
    close[(2, 8)] = {"native": 1.2, "recursive_doubling": 1.05}
    close[(4, 16)] = {"native": 1.3, "rabenseifner": 1.08, "recursive_doubling": 1.02}
    close[(8, 64)] = {"native": 1.01, "ring": 1.04}
    rc = rules.build("allreduce", g, ch, node=4, close=close)
    assert [r.get("candidates") for r in rc] == \
        [["native", "recursive_doubling", "rabenseifner"], None, None, None,
         ["native", "ring"]] and \
        [{k: v for k, v in r.items() if k != "candidates"} for r in rc] == want, \
        "candidates: native first where another is chosen, then those close at the most " \
        "grid points the rule covers; the ranges unchanged:\n  " + "\n  ".join(map(str, rc))


def test_merging_rule_with_params():
    assert rules.rule_of("bcast", ("binomial", {"segment": 8192}))["params"] == \
        {"segment": 8192}, "a choice with params gives a rule with params"


# ---------------------------------------------------------------- variants (params)
def test_variant_rule_with_params():
    lab = labels.label_of("pipeline_chain", {"COLLX_BCAST_SEGMENTS": "32"})
    r = rules.rule_of("bcast", lab)
    assert r == {"collective": "bcast", "algorithm": "pipeline_chain",
                 "params": {"COLLX_BCAST_SEGMENTS": 32}} and \
        rules.match([r], "bcast", 8, 64, 8) == lab, \
        f"a variant chosen becomes a rule with params, and matches back as its label: {r}"


def test_variants_never_candidates():
    lab = labels.label_of("pipeline_chain", {"COLLX_BCAST_SEGMENTS": "32"})
    assert rules.pick_candidates("binomial", [(8, 64)],
                                 {(8, 64): {lab: 1.01, "native": 1.05}}) == ["native"], \
        "variants are never candidates (online tuning tries names)"


def test_match_beyond_nearest():
    # as src/core/select/rules_pick.c: a call no rule holds gets the
    # nearest rule of its ranks per node, in communicator size, then in
    # message size (ratios; a tie: the earlier rule)
    rs = rules.Rules([
        {"collective": "bcast", "algorithm": "binomial", "comm_size": {"min": 2, "max": 16},
         "msg_size": {"max": 1024}, "ranks_per_node": {"max": 8}},
        {"collective": "bcast", "algorithm": "linear", "comm_size": {"min": 2, "max": 16},
         "msg_size": {"min": 4096, "max": 65536}, "ranks_per_node": {"max": 8}},
        {"collective": "bcast", "algorithm": "hier", "comm_size": {"min": 17, "max": 48},
         "msg_size": {"max": 65536}, "ranks_per_node": {"min": 8, "max": 8}}])
    rs.beyond = "nearest"
    got = [rules.match(rs, "bcast", q, m, rpn) for q, m, rpn in (
        (64, 100, 8), (64, 10 ** 6, 8), (8, 100, 8), (8, 2000, 8), (8, 3000, 8),
        (8, 10 ** 6, 8), (64, 100, 16), (12, 100, 4))]
    assert got == ["hier", "hier", "binomial", "binomial", "linear", "linear", None,
                   "binomial"], \
        f"beyond the ranges: the rules of 48 at 64 ranks, the nearest message sizes (2000 B: " \
        f"1024's, 3000: 4096's), no rule of 16 per node: native, 12 ranks at 4 per node: " \
        f"the rules of 16: {got}"
    assert rules.match(rs, "bcast", 64, 100, 8, beyond="native") is None and \
        rules.match(list(rs), "bcast", 64, 100, 8) is None, \
        "\"beyond\": \"native\", or a plain list: nothing beyond the ranges"
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r.json")
        rules.write(path, list(rs))
        assert rules.load(path).beyond == "nearest", "a file's rules carry its \"beyond\""


def test_file_says_beyond_and_check_says_ranges():
    # what the tuner writes for P = 32 with 8 per node: "beyond": "nearest",
    # and `collx rules check` says per ranks per node what it serves and
    # what runs beyond (a job of 64 ranks: the rules of 32)
    g = grid.Grid("allreduce", grid.comm_sizes(32, 8), grid.msg_sizes(8, 65536))
    choice = {(q, m): "ring" if (g.comms.index(q) + (m >= 4096)) % 2 else "native"
              for q, m in g.cells()}
    rs = rules.build("allreduce", g, choice, node=8)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r.json")
        rules.write(path, rs, rulesfile.provenance("test"))
        with open(path) as f:
            doc = json.load(f)
        ch = rulesfile.check_file(path, rulesfile.Registry(find=False))
    text = "\n".join(ch.serves)
    assert doc["beyond"] == "nearest" and not ch.errors, \
        f"the tuner writes \"beyond\": \"nearest\" and the file checks: {ch.errors}"
    assert "serves one node of 1..7 ranks (communicator size = ranks per node), messages " \
        "0 B..64 KiB" in text and "serves ranks per node 8: communicator sizes 8..32, " \
        "messages 0 B..64 KiB" in text and "beyond them: the nearest rule of the call's " \
        "ranks per node (with 8 ranks per node, communicator sizes above 32 as at 32 and " \
        "messages above 64 KiB as at 64 KiB); other ranks per node: native" in text, \
        f"the check's ranges per ranks per node and what runs beyond them:\n{text}"


if __name__ == "__main__":
    helpers.run_module(globals())
