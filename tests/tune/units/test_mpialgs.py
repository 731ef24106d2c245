#!/usr/bin/python3
"""mpialgs.py: the MPI's own algorithms as the MPI names them through
MPI_T (collx_info --mpi-cvars), with no table: Open MPI's enumerations,
MPICH's descriptions (names glued to the text before them, each
confirmed by the MPI parsing it back), the environment that forces one.

    test_mpialgs.py [REPO_ROOT]"""
import helpers
from collx.tune import mpialgs

# MPICH 4.0.2's description, as MPI_T gives it (the lines joined)
MPICH_DESC = ("Variable to select allreduce algorithmauto - Internal algorithm selection "
              "(can be overridden with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)"
              "nb                       - Force nonblocking algorithm"
              "smp                      - Force smp algorithm"
              "recursive_doubling       - Force recursive doubling algorithm"
              "reduce_scatter_allgather - Force reduce scatter allgather algorithm")
MPICH_CVARS = [{"name": "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "value": 0, "enum": [],
                "description": MPICH_DESC}]
NAMES = ["auto", "nb", "smp", "recursive_doubling", "reduce_scatter_allgather"]


def mpich_probe(known, asked):
    """A stand-in MPICH: a name it knows reads back as its index, another 0."""
    def probe(settings):
        asked.append(dict(settings))
        return {cv: (known.index(v) if v in known else 0) for cv, v in settings.items()}
    return probe


def test_openmpi_enum():
    cvs = [{"name": "coll_tuned_allreduce_algorithm", "value": 0, "description": "",
            "enum": [[0, "ignore"], [1, "basic_linear"], [3, "recursive_doubling"]]},
           {"name": "coll_tuned_allreduce_algorithm_count", "value": 7, "enum": [],
            "description": ""}]
    got = mpialgs.parse_openmpi(cvs, ["allreduce", "bcast"])
    assert got == {"allreduce": [("basic_linear", 1), ("recursive_doubling", 3)]}, \
        f"Open MPI's enumeration, id 0 (ignore: its own decision) left out: {got}"


def test_mpich_glued_names():
    asked = []
    got, unconfirmed = mpialgs.parse_mpich(MPICH_CVARS, ["allreduce"],
                                           mpich_probe(NAMES, asked))
    assert got == {"allreduce": [(n, i) for i, n in enumerate(NAMES) if i]} and \
        not unconfirmed, f"every name, glued to the text before it, found: {got} {unconfirmed}"
    assert len(asked) <= 6, f"the padding guesses each name first time: {len(asked)} probes"


def test_mpich_name_the_mpi_denies():
    # an MPI that does not know "smp": left out and said, the others kept
    known = ["auto", "nb", "x", "recursive_doubling", "reduce_scatter_allgather"]
    got, unconfirmed = mpialgs.parse_mpich(MPICH_CVARS, ["allreduce"], mpich_probe(known, []))
    names = [n for n, _ in got["allreduce"]]
    assert "smp" not in names and "recursive_doubling" in names and \
        any("entry 2" in u for u in unconfirmed), \
        f"a name the MPI does not parse back is no candidate: {names} {unconfirmed}"


def test_force_env():
    om = mpialgs.MpiAlgs(mpialgs.OPENMPI, "x", {"allreduce": [("ring", 4)]})
    mp = mpialgs.MpiAlgs(mpialgs.MPICH, "x", {"reduce_scatter_block": [("pairwise", 3)]})
    assert om.force_env("allreduce", "ring") == {
        "OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
        "OMPI_MCA_coll_tuned_allreduce_algorithm": "4"} and \
        mp.force_env("reduce_scatter_block", "pairwise") == {
            "MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM": "pairwise"}, \
        "Open MPI forced by id with dynamic rules on, MPICH by name"
    back = mpialgs.MpiAlgs.from_json(om.to_json())
    assert back.algs == om.algs and back.kind == om.kind, "to_json and back"


# SimGrid 3.32's answers (sim/run, SMPI_FLAGS): an unknown name aborts with
# the list; smpi_coll at info logs the algorithm each collective is set to
SMPI_VALID_TEXT = (
    "[0.000000] ./src/smpi/colls/smpi_coll.cpp:261: [root/CRITICAL] Collective 'allreduce' "
    "has no algorithm 'collx-list'! Valid algorithms: default, lr, rab_rdb, rdb, ompi, "
    "mpich, automatic.\nAborted\n")
SMPI_SWITCH_TEXT = (
    "[0.000000] [smpi_coll/INFO] Switch to algorithm ompi for collective allreduce\n"
    "[0.000000] [smpi_coll/INFO] Switch to algorithm ompi for collective bcast\n"
    "[0.000000] [smpi_coll/INFO] Switch to algorithm binomial_tree for collective bcast\n")


def test_smpi_lists():
    valid = mpialgs.parse_smpi_valid(SMPI_VALID_TEXT)
    assert valid == {"allreduce": ["default", "lr", "rab_rdb", "rdb", "ompi", "mpich",
                                   "automatic"]}, f"SimGrid's list, the final dot off: {valid}"
    dflt = mpialgs.parse_smpi_switch(SMPI_SWITCH_TEXT)
    assert dflt == {"allreduce": "ompi", "bcast": "binomial_tree"}, \
        f"the last algorithm SimGrid set per collective (sim/run's bcast): {dflt}"
    cands = mpialgs.smpi_candidates(valid, dflt, ["allreduce"])
    assert [n for n, _ in cands["allreduce"]] == ["default", "lr", "rab_rdb", "rdb", "mpich"], \
        f"the default's name (ompi) and automatic left out: {cands}"


def test_read_smpi():
    asked = []

    def run(flags):
        asked.append(flags)
        return SMPI_SWITCH_TEXT if "thres" in flags else SMPI_VALID_TEXT
    mpi = mpialgs.read_smpi(run, ["allreduce", "scan"], "SimGrid 3.32")
    assert mpi.kind == mpialgs.SMPI and mpi.names("allreduce")[:2] == ["default", "lr"] and \
        mpi.defaults == {"allreduce": "ompi"}, vars(mpi)
    assert asked == ["--log=smpi_coll.thres:info", "--cfg=smpi/allreduce:collx-list"], \
        f"one run for the defaults, one per collective SMPI can choose (not scan): {asked}"
    env = mpi.force_env("allreduce", "rab_rdb")
    assert env["SMPI_FLAGS"].endswith("--cfg=smpi/allreduce:rab_rdb"), env
    back = mpialgs.MpiAlgs.from_json(mpi.to_json())
    assert back.defaults == mpi.defaults and back.algs == mpi.algs, "round trip"
    try:
        mpialgs.read_smpi(lambda flags: "", ["allreduce"])
    except ValueError as e:
        assert "SMPI" in str(e), e
    else:
        raise AssertionError("no SimGrid log: ValueError")


if __name__ == "__main__":
    helpers.run_module(globals())
