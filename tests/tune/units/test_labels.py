#!/usr/bin/python3
"""labels.py: the runs an algorithm list splits into, the launch order,
variants' labels and their params passed to collbench. From
tests/tune/test_tune_units.py's sections runs, launch order and variants
(params).

    test_labels.py [REPO_ROOT]"""
import helpers
from collx.tune import labels

LAB = labels.label_of("pipeline_chain", {"COLLX_BCAST_SEGMENTS": "32"})


# ---------------------------------------------------------------- runs
def test_runs_rma_alone():
    got = labels.runs(["native", "binomial", "rma_linear", "hier", "rma_binomial"])
    assert got == [["native", "binomial", "hier"], ["rma_linear"], ["rma_binomial"]], \
        f"an algorithm that leaves work behind (RMA bcast) runs alone: {got}"


# ---------------------------------------------------------------- launch order
def test_interleaved():
    seq = labels.interleaved(["selected", "native", "x"], 3)
    assert seq == ["selected", "native", "x", "x", "native", "selected",
                   "selected", "native", "x"] and \
        labels.interleaved(["a", "b"], 1, turn=1) == ["b", "a"], \
        f"the labels' order alternates (ABBA: a drift within a launch cancels): {seq}"


# ---------------------------------------------------------------- variants (params)
def test_variant_label():
    lab = LAB
    assert lab == "pipeline_chain@COLLX_BCAST_SEGMENTS=32" and \
        labels.split_label(lab) == ("pipeline_chain", {"COLLX_BCAST_SEGMENTS": "32"}) and \
        labels.split_label("binomial") == ("binomial", {}), \
        f"a variant's label and back: {lab}"


def test_variant_runs():
    lab = LAB
    got = labels.runs(["native", "pipeline_chain", lab, "pipeline_binary@COLLX_BCAST_SEGMENTS=32",
                       "pipeline_chain@COLLX_BCAST_SEGMENTS=2", "rma_linear"])
    assert got == [["native", "pipeline_chain"],
                   [lab, "pipeline_binary@COLLX_BCAST_SEGMENTS=32"],
                   ["pipeline_chain@COLLX_BCAST_SEGMENTS=2"], ["rma_linear"]], \
        f"runs: one per set of params (the knobs go to the run's environment): {got}"


def test_variant_with_params():
    lab = LAB
    seen = {}

    def fake_run(args, env):
        seen["args"], seen["env"] = args, env
        algs = args[args.index("--algs") + 1].split(",")
        return [{"alg": a, "ran": a if a != "pipeline_binary" else "binomial"}
                for a in algs], None

    rows, _ = labels.with_params(["--coll", "bcast", "--algs", lab + ",pipeline_binary@"
                                  "COLLX_BCAST_SEGMENTS=32", "-m", "8"], {"COLLX_X": "1"},
                                 fake_run)
    assert seen["args"][3] == "pipeline_chain,pipeline_binary" and \
        seen["env"] == {"COLLX_X": "1", "COLLX_BCAST_SEGMENTS": "32"} and \
        [(r["alg"], r["ran"]) for r in rows] == \
        [(lab, lab), ("pipeline_binary@COLLX_BCAST_SEGMENTS=32", "binomial")], \
        f"collbench gets names and the knobs in its environment, rows come back under the " \
        f"labels (ran too where the algorithm itself served): {seen} {rows}"


def test_native_beside_a_variant():
    # on a real MPI native runs in every launch (issue 62), a variant's too:
    # collx's knobs do not touch it; two sets of params in one run still fail
    def fake_run(args, env):
        algs = args[args.index("--algs") + 1].split(",")
        return [{"alg": a, "ran": a} for a in algs], env
    rows, env = labels.with_params(["--algs", LAB + ",native", "-m", "8"], {}, fake_run)
    assert [r["alg"] for r in rows] == [LAB, "native"] and \
        env == {"COLLX_BCAST_SEGMENTS": "32"}, f"native beside a variant: {rows} {env}"
    try:
        labels.with_params(["--algs", LAB + ",pipeline_chain@COLLX_BCAST_SEGMENTS=2"], {},
                           fake_run)
    except ValueError:
        pass
    else:
        raise AssertionError("two sets of params in one run: ValueError")


if __name__ == "__main__":
    helpers.run_module(globals())
