#!/usr/bin/python3
"""mpitune.py and the files it writes (collx/mpifile.py): the yardstick,
the ranges of message sizes, the choice against the MPI's default (every
repeat faster, beyond the noise), Open MPI's dynamic rules file and
MPICH's selection JSON as those MPIs read them, and their checks.

    test_mpitune.py [REPO_ROOT]"""
import math
import os
import tempfile
import types

import helpers
from collx import mpifile, rulesfile
from collx.tune import grid as gridmod, mpialgs, mpitune

MPI = mpialgs.MpiAlgs(mpialgs.OPENMPI, "Open MPI 4.1.4",
                      {"allreduce": [("recursive_doubling", 3), ("ring", 4)]})


def tuner(kind=mpialgs.OPENMPI):
    mpi = mpialgs.MpiAlgs(kind, "v", MPI.algs)
    a = types.SimpleNamespace(reps=3, iters=1, warmup=0, timeout=1, mem_limit=None,
                              margin=0.02, noise_floor=0.01)
    t = types.SimpleNamespace(info=None, describe=lambda: "t")
    g = {"allreduce": gridmod.Grid("allreduce", [2], [8, 64, 512])}
    return mpitune.MpiTune(t, a, mpi, g, {"allreduce": ["native", "hier", "rma_x",
                                                        "recursive_doubling"]},
                           say=lambda m: None)


def test_yardstick():
    assert mpitune.yardstick(["native", "hier", "hier_ms", "binomial_topo", "rma_linear",
                              "binomial@COLLX_X=1", "binomial"]) == "binomial" and \
        mpitune.yardstick(["native", "hier"]) is None, \
        "the yardstick sends point to point only: not native, hier, rma, topo, a variant"


def test_ranges():
    assert mpitune.boundaries([8, 32, 128]) == [0, 17, 65], "geometric means, the first 0"
    assert mpitune.ranges([8, 32, 128, 512], ["a", "a", None, None]) == [(0, "a"), (65, None)], \
        "neighbours with one pick merge"


def test_choice_needs_every_repeat():
    mt = tuner()
    d = [math.log(1.0)] * 3
    mt.samples = {("allreduce", "native", 2, 8): [0.0, 0.01, -0.01],
                  ("allreduce", "native:ring", 2, 8): [-0.3, -0.31, -0.29],
                  ("allreduce", "native:recursive_doubling", 2, 8): [-0.5, 0.05, -0.5],
                  ("allreduce", "native", 2, 64): d,
                  ("allreduce", "native:ring", 2, 64): [-0.01, -0.012, -0.011]}
    mt.us = {k: [math.exp(v) for v in xs] for k, xs in mt.samples.items()}
    assert mt.choose("allreduce", 2, 8) == "native:ring", \
        "faster in every repeat wins; one launch slower rules recursive_doubling out"
    assert mt.choose("allreduce", 2, 64) == "native", "1 % faster is within the margin"
    assert mt.choose("allreduce", 2, 512) == "native", "nothing measured: the MPI's own"
    mt.us[("allreduce", "native:ring", 2, 8)] = [1.2, 1.3, 1.25]   # slower in its own times
    assert mt.choose("allreduce", 2, 8) == "native", \
        "faster relative to the yardstick but slower in time: no choice"


def test_smooth_between_sizes():
    mt = tuner()
    same, rd = [0.0, 0.01, -0.01], [-0.3, -0.29, -0.31]
    mt.samples = {("allreduce", "native", 2, m): same for m in (8, 64, 512)}
    mt.samples.update({("allreduce", "native:recursive_doubling", 2, 8): rd,
                       ("allreduce", "native:recursive_doubling", 2, 64): [-0.1, 0.02, -0.05],
                       ("allreduce", "native:recursive_doubling", 2, 512): rd})
    picks = ["native:recursive_doubling", "native", "native:recursive_doubling"]
    assert mt.smooth("allreduce", 2, [8, 64, 512], picks) == \
        ["native:recursive_doubling"] * 3, "between two of its sizes, not slower: it takes it"
    mt.samples[("allreduce", "native:recursive_doubling", 2, 64)] = [0.2, 0.21, 0.19]
    assert mt.smooth("allreduce", 2, [8, 64, 512], picks) == picks, \
        "slower there in every repeat, beyond the noise: the size keeps its own"
    del mt.samples[("allreduce", "native:recursive_doubling", 2, 64)]
    assert mt.smooth("allreduce", 2, [8, 64, 512], picks) == picks, "not measured there: kept"
    assert mt.smooth("allreduce", 2, [8, 64, 512], ["native:ring", "native", "native"]) == \
        ["native:ring", "native", "native"], "an edge or one neighbour: nothing to smooth"


def test_openmpi_file():
    mt = tuner()
    choices = {"allreduce": {2: ["native:ring", "native", "native:recursive_doubling"]}}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "f.rules")
        env = mt.write(path, choices, ["a header line with 4 digits 1 2 3"])
        kind, probs, _ = mpifile.check(path)
        rules, _ = mpifile.parse_openmpi(open(path).read())
    assert env["OMPI_MCA_coll_tuned_dynamic_rules_filename"] == path and \
        env["OMPI_MCA_coll_tuned_use_dynamic_rules"] == "1", env
    assert kind == mpifile.OPENMPI and not probs, probs
    assert rules == {2: {2: [(0, 4, 0, 0), (23, 0, 0, 0), (182, 3, 0, 0)]}}, \
        f"allreduce is collective 2, its sizes per rank, id 0 the MPI's own: {rules}"


def test_openmpi_sizes_times_q():
    text = mpifile.openmpi_text({"allgather": {4: [(0, 0), (100, 2)]}})
    rules, probs = mpifile.parse_openmpi(text)
    assert rules == {0: {4: [(0, 0, 0, 0), (400, 2, 0, 0)]}} and not probs, \
        f"allgather's size is all ranks' bytes in Open MPI's lookup: {rules}"


def test_openmpi_check_catches():
    for text, want in (("1\n2\n1\n2\n2\n0 3 0 0\n0 4 0 0\n", "must grow"),
                       ("1\n30\n0\n", "collective id 30"),
                       ("1\n2\n1\n2\n1\n16 3 0 0\n", "not 0"),
                       ("1\n2\n1\n2\n2\n0 3 0 0\n", "ends")):
        _, probs = mpifile.parse_openmpi(text)
        assert any(want in p for p in probs), f"{want!r} not said of {text!r}: {probs}"


def test_cut_files_named():
    """A cut MPI tuning file fails `collx rules check` with its place, and so
    does a rules file that names it (provenance.mpi_tuning): the MPI would
    run without it, and without a word."""
    whole = mpifile.openmpi_text({"allreduce": {2: [(0, 3), (1024, 4)]}}, ["h"])
    with tempfile.TemporaryDirectory() as d:
        for cut, want in ((whole[:whole.index("\n") + 1], "nothing but comments"),
                          (whole[:whole.index("1024 4")], "ends where a message size"),
                          ("# h\n1\nfoo\n", "line 3: 'foo' is not a number")):
            path = os.path.join(d, "ompi.txt")
            open(path, "w").write(cut)
            kind, probs, _ = mpifile.check(path)
            assert probs and want in probs[0], f"{want!r} not said of {cut!r}: {probs}"
            _, _, errors = rulesfile.mpi_tuning_lines({"mpi_tuning": {
                "mpi": mpifile.OPENMPI, "file": path, "env": {}}})
            assert errors and want in errors[0], f"the rules naming it: {errors}"


DEFAULT = {"collective=allreduce": {"comm_type=intra": {"avg_msg_size<=8": {
    "algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}, "avg_msg_size=any": {
    "algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}},
    "comm_type=inter": {"algorithm=MPIR_Allreduce_inter_reduce_exchange_bcast": {}}},
    "collective=barrier": {"algorithm=MPIR_Barrier_intra_dissemination": {}}}


def test_mpich_tree():
    plan = {"allreduce": {2: [(0, None), (17, "nb"), (65, "smp")], 8: [(0, None)]}}
    tree = mpifile.mpich_tree(plan, DEFAULT, mpifile.mpich_name)
    own = DEFAULT["collective=allreduce"]["comm_type=intra"]
    intra = tree["collective=allreduce"]["comm_type=intra"]
    assert list(intra) == ["comm_size<=2", "comm_size=any"] and \
        intra["comm_size<=2"] == {"avg_msg_size<=16": own,
                                  "avg_msg_size<=64": {"algorithm=MPIR_Allreduce_allcomm_nb": {}},
                                  "avg_msg_size=any": {"algorithm=MPIR_Allreduce_intra_smp": {}}} \
        and intra["comm_size=any"] == own, f"ranges, the MPI's own tree where kept: {intra}"
    assert tree["collective=barrier"] == DEFAULT["collective=barrier"] and \
        "comm_type=inter" in tree["collective=allreduce"], \
        "collectives and inter-communicators not tuned keep the MPI's own tree"
    assert mpifile.check_mpich(tree) == [], mpifile.check_mpich(tree)


def test_mpich_check_catches():
    bad = {"collective=allreduce": {"comm_size<=2": {"algorithm=MPIR_Allreduce_intra_smp": {}}}}
    assert any("=any" in p for p in mpifile.check_mpich(bad)), \
        "a list of comparisons must end in =any (MPICH asserts otherwise)"
    bad = {"collective=allreduce": {"avg_msg_size=any": {"algorithm=smp": {}}}}
    assert any("not an MPICH algorithm" in p for p in mpifile.check_mpich(bad)), \
        "a leaf names an MPIR_ function"


def test_kind_of():
    with tempfile.TemporaryDirectory() as d:
        a, b, c = (os.path.join(d, x) for x in ("a", "b", "c"))
        open(a, "w").write(mpifile.openmpi_text({"bcast": {2: [(0, 6)]}}, ["h"]))
        open(b, "w").write('{"collective=bcast": {}}')
        open(c, "w").write('{"version": 1, "rules": []}')
        assert [mpifile.kind_of(x) for x in (a, b, c)] == [mpifile.OPENMPI, mpifile.MPICH,
                                                           None], "told apart by content"


def test_library_default():
    # MPICH's own tree comes from the library: none in a program without MPI
    try:
        mpitune.mpich_default("/bin/true")
    except ValueError as e:
        assert "ldd" in str(e) or "MPIR" in str(e), e
    else:
        raise AssertionError("no MPI library: ValueError")


def smpi_tuner(weights=None):
    mpi = mpialgs.MpiAlgs(mpialgs.SMPI, "SimGrid 3.32",
                          {"allreduce": [("rdb", 5), ("lr", 1), ("rab", 20)]},
                          defaults={"allreduce": "ompi"})
    a = types.SimpleNamespace(reps=1, iters=1, warmup=0, timeout=1, mem_limit=None,
                              margin=0.02, noise_floor=None)
    t = types.SimpleNamespace(info=None, describe=lambda: "t")
    g = {"allreduce": gridmod.Grid("allreduce", [16], [8, 64, 512])}
    return mpitune.MpiTune(t, a, mpi, g, {"allreduce": ["native", "recursive_doubling"]},
                           say=lambda m: None, weights=weights)


def test_smpi_single_choice():
    mt = smpi_tuner()
    assert mt.ref == {"allreduce": None} and mt.floor() == 0.005, \
        "SMPI: deterministic, no yardstick, the SMPI noise floor"
    us = {"native": [10, 20, 40], "native:rdb": [5, 10, 40.1],   # 0.5 % worse at 512: ok
          "native:lr": [2, 4, 42],                               # 5 % worse at 512: out
          "native:rab": [9, 19.9]}                               # not measured at 512: out
    mt.us = {("allreduce", lab, 16, m): [v] for lab, vs in us.items()
             for m, v in zip([8, 64, 512], vs)}
    ch = mt.choices()
    assert ch == {"allreduce": {16: ["native:rdb"] * 3}}, \
        f"one algorithm at every size: the best geomean nowhere slower beyond the floor: {ch}"
    gm, worst, n = mt.single_of["allreduce"]["native:lr"]
    assert n == 3 and abs(worst - 1.05) < 1e-9 and gm < 0.5, mt.single_of
    assert "native:rab" not in mt.single_of["allreduce"], "every point or none"
    table = "\n".join(mpitune.single_table(mt))
    assert "| rdb | 3 |" in table and "chosen" in table and "slower somewhere" in table, table
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "smpi.opts")
        env = mt.write(f, ch, ["measured"])
        text = open(f).read()
        assert "--cfg=smpi/allreduce:rdb" in text and env == {"SMPI_OPTIONS_FILE": f}, text
        kind, probs, lines = mpifile.check(f)
        assert kind == mpifile.SMPI and not probs and "allreduce: rdb" in lines[0], \
            (kind, probs, lines)
    # a profile's weights: the point that weighs most decides
    mt = smpi_tuner({("allreduce", 16, 512): 1000.0})
    mt.us = {("allreduce", lab, 16, m): [v] for lab, vs in
             {"native": [10, 20, 40], "native:rdb": [5, 10, 40.1]}.items()
             for m, v in zip([8, 64, 512], vs)}
    assert mt.choices()["allreduce"][16][0] == "native", \
        "the heavy point gains nothing: the geomean is within the margin"


def test_smpi_file():
    text = mpifile.smpi_text({"bcast": "scatter_LR_allgather", "allreduce": None},
                             ["h"], {"allreduce": "ompi"})
    plan, probs = mpifile.parse_smpi(text)
    assert plan == {"allreduce": "ompi", "bcast": "scatter_LR_allgather"} and not probs, \
        f"a collective kept at the default names it (never an empty file): {text}"
    plan, probs = mpifile.parse_smpi("smpi/bcast:ompi\n--cfg=smpi/scan:x\n"
                                     "--cfg=smpi/bcast:flattree\n--log=x\n",
                                     {"bcast": ["ompi", "flattree"]})
    assert len(probs) == 3 and plan == {"bcast": "flattree"}, \
        f"scan has no selector, bcast twice, a line not --cfg: {probs}"
    _, probs = mpifile.parse_smpi("--cfg=smpi/bcast:flattree\n", {"bcast": ["ompi"]})
    assert probs and "no bcast algorithm 'flattree'" in probs[0], probs
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "o")
        open(f, "w").write("# c\n--cfg=smpi/coll-selector:mpich\n")
        kind, probs, lines = mpifile.check(f)
        assert kind == mpifile.SMPI and not probs and "mpich selector" in lines[0], lines
        assert mpifile.env_for(kind, f) == {"SMPI_OPTIONS_FILE": f}
        lines, warn, errors = rulesfile.mpi_tuning_lines(
            {"mpi_tuning": {"file": f, "mpi": "smpi", "env": mpifile.env_for(kind, f)}})
        assert not warn and not errors and "sim/run" in lines[0] and "collxrun" not in lines[0], \
            f"rules check: SMPI's file is applied by sim/run, not collxrun: {lines}"


if __name__ == "__main__":
    helpers.run_module(globals())
