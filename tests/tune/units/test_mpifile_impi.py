#!/usr/bin/python3
"""Intel MPI's tuning file (collx/mpifile_impi.py): its presets read from
the MPI's own MPI_T variables (a fixture of collx_info --mpi-cvars
MPIR_CVAR_USE_ on Intel MPI 2021.19), the file of I_MPI_ADJUST_
variables written for a plan, read back and checked as Intel MPI would
take it (the last preset for sizes no condition matches, a bound that
crashes it, process-count conditions it did not match), and its place
among the MPIs' files (kind_of, env_for, collx rules check).

    test_mpifile_impi.py [REPO_ROOT]"""
import json
import os
import tempfile

import helpers
from collx import mpifile, mpifile_impi as impi
from collx.tune import mpialgs

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                       "impi_cvars_use.json")


def cvars():
    with open(FIXTURE) as f:
        return json.load(f)["cvars"]


def test_presets_read_from_the_mpi():
    one = impi.presets(cvars(), ["allreduce", "bcast", "barrier"], one_node=True)
    assert impi.is_impi(cvars()), "told by the I_MPI_ADJUST_ aliases"
    assert [n for n, _ in one["allreduce"]] == [f"node{k}" for k in range(1, 15)], \
        f"on one node: the node presets, 1..14 as the MPI says ({one['allreduce'][-1]})"
    assert "barrier" not in one, "barrier has no message size to key by"
    both = impi.presets(cvars(), ["bcast"], one_node=False)
    assert both["bcast"][-1] == ("preset22", 22) and ("node13", 13) in both["bcast"], \
        "across nodes also the whole collective's presets (0-22 for bcast)"
    alone = impi.presets(cvars(), ["bcast"], one_node=False, alone_on_nodes=True)
    assert [n for n, _ in alone["bcast"]] == [f"preset{k}" for k in range(1, 23)], \
        "one rank a node: no node presets, which have nothing to choose there"
    mpi = mpialgs.MpiAlgs(mpialgs.IMPI, "Intel", both)
    assert mpi.force_env("bcast", "node3") == {"I_MPI_ADJUST_BCAST_NODE": "3"} and \
        mpi.force_env("bcast", "preset7") == {"I_MPI_ADJUST_BCAST": "7"}


def test_written_file_covers_every_size():
    plan = {"allreduce": [(0, "node8"), (91, None), (4000, "preset3")], "bcast": [(0, None)]}
    text = impi.text(plan, ["a header"])
    env = impi.env_of(text)
    assert env == {"I_MPI_ADJUST_ALLREDUCE": "0:0-3999;3:4000-2147483647",
                   "I_MPI_ADJUST_ALLREDUCE_NODE": "8:0-90;0:91-2147483647"}, \
        f"bcast keeps the MPI's own decision: no variable (0 is not that): {env}"
    probs, lines = impi.check(text)
    assert not probs and len(lines) == 2, (probs, lines)
    none = impi.text({"bcast": [(0, None)]}, ["h"])
    probs, lines = impi.check(none)
    assert impi.looks_like(none) and not probs and "own decision" in lines[0], \
        f"a file with no variable is still one (collx's mark): {probs} {lines}"


def test_check_catches():
    bad = ('I_MPI_ADJUST_ALLREDUCE_NODE="5:0-100;0:101-9223372036854775807"\n'
           'I_MPI_ADJUST_BCAST="3:0-100@2-4"\n'
           'I_MPI_ADJUST_REDUCE="2:0-64"\nI_MPI_ADJUST_REDUCE="x"\nFOO=1\nnot a line\n')
    probs, _ = impi.check(bad)
    want = ["crashes in MPI_Init", "process-count condition", "last preset",
            "set twice", "the preset must be a number", "FOO: not an I_MPI_ADJUST",
            "not NAME=\"value\""]
    for w in want:
        assert any(w in p for p in probs), f"'{w}' not said: {probs}"


def test_among_the_mpis_files():
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "impi.env")
        open(f, "w").write(impi.text({"allreduce": [(0, "node8"), (128, None)]}, ["h"]))
        kind, probs, lines = mpifile.check(f)
        assert kind == mpifile.IMPI and not probs and lines, (kind, probs, lines)
        assert mpifile.env_for(kind, f) == {"I_MPI_ADJUST_ALLREDUCE_NODE":
                                            "8:0-127;0:128-2147483647"}, \
            "the MPI reads the variables themselves: the file's environment is them"
        assert mpifile.supports(mpifile.IMPI, "alltoall") and \
            not mpifile.supports(mpifile.IMPI, "barrier")


def test_tuner_names_a_preset_everywhere_or_nowhere():
    """A variable cannot leave a size to the default (0 is not it): the
    tuner fills such sizes with a preset as fast as the default, or
    leaves the collective without a variable."""
    import types
    from collx.tune import grid as gridmod, mpitune
    mpi = mpialgs.MpiAlgs(mpialgs.IMPI, "Intel", {"allreduce": [("node1", 1), ("node2", 2)]})
    a = types.SimpleNamespace(reps=3, iters=1, warmup=0, timeout=1, mem_limit=None,
                              margin=0.02, noise_floor=0.01)
    t = types.SimpleNamespace(info=None, describe=lambda: "t")
    g = {"allreduce": gridmod.Grid("allreduce", [2], [8, 64])}
    said = []
    mt = mpitune.MpiTune(t, a, mpi, g, {"allreduce": ["native", "recursive_doubling"]},
                         say=said.append)
    noise = [0.0, 0.004, -0.004]
    for lab, at8, at64 in (("native", 0.0, 0.0), ("native:node1", -0.3, 0.0),
                           ("native:node2", 0.2, 0.2)):
        for m, v in ((8, at8), (64, at64)):
            for x in noise:
                mt.samples.setdefault(("allreduce", lab, 2, m), []).append(v + x)
                mt.us.setdefault(("allreduce", lab, 2, m), []).append(1.0 + v + x)
    assert mt.choices()["allreduce"][2] == ["native:node1", "native:node1"], \
        "64 B takes node1, as fast as the default there"
    for x in noise:   # node1 now slower at 64 B, node2 too: no preset fits there
        mt.samples[("allreduce", "native:node1", 2, 64)] = [0.3 + x for x in noise]
    assert mt.choices()["allreduce"][2] == ["native", "native"] and said, \
        f"no preset as fast as the default at 64 B: no variable at all ({said})"



def test_tuner_keeps_one_level_across_nodes():
    """Across nodes a collective's picks name one level: a size that
    picked a node preset where most picked whole-collective ones would
    leave I_MPI_ADJUST_<COLL> a gap (preset 0, not the default); it takes
    a preset of the level most sizes picked instead."""
    import types
    from collx.tune import grid as gridmod, mpitune
    mpi = mpialgs.MpiAlgs(mpialgs.IMPI, "Intel", {"allreduce": [
        ("node1", 1), ("preset1", 1), ("preset2", 2)]})
    a = types.SimpleNamespace(reps=3, iters=1, warmup=0, timeout=1, mem_limit=None,
                              margin=0.02, noise_floor=0.01)
    t = types.SimpleNamespace(info=None, describe=lambda: "t")
    g = {"allreduce": gridmod.Grid("allreduce", [2], [8, 64, 512])}
    mt = mpitune.MpiTune(t, a, mpi, g, {"allreduce": ["native"]}, say=lambda _: None)
    noise = [0.0, 0.004, -0.004]
    for lab, times in (("native", (0.0, 0.0, 0.0)), ("native:node1", (-0.5, 0.0, 0.0)),
                       ("native:preset1", (-0.3, -0.3, 0.0)),
                       ("native:preset2", (0.0, 0.0, -0.3))):
        for m, v in zip((8, 64, 512), times):
            for x in noise:
                mt.samples.setdefault(("allreduce", lab, 2, m), []).append(v + x)
                mt.us.setdefault(("allreduce", lab, 2, m), []).append(1.0 + v + x)
    got = mt.choices()["allreduce"][2]
    assert got == ["native:preset1", "native:preset1", "native:preset2"], \
        f"8 B takes preset1 (the level of 64 and 512 B), not node1: {got}"


if __name__ == "__main__":
    helpers.run_module(globals())
