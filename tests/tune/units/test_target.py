#!/usr/bin/python3
"""target.py: what it reads from collx_info and the knob table, the ranks
a launcher starts, the slots of a hostfile, and a CSV cut mid-line (the
labels and runs it measures: test_labels.py).

    test_target.py [REPO_ROOT]"""
import json
import os
import tempfile

import helpers
from collx.tune import target
from collx.tune.store import Store


def test_parse_info():
    text = "bcast\n  binomial\n    needs: commutative\n  rma_linear\n\nallreduce\n  ring\n"
    assert target.parse_info(text) == [("bcast", ["binomial", "rma_linear"]),
                                       ("allreduce", ["ring"])], \
        "collx_info's listing: collectives in order, algorithms under each, needs: skipped"


def test_tune_values():
    assert target.tune_values("2,32") == {"*": ["2", "32"]} and \
        target.tune_values("bcast:a,b;allgather,allgatherv:c") == \
        {"bcast": ["a", "b"], "allgather": ["c"], "allgatherv": ["c"]}, \
        "a knob's tune values: for every collective, or per collective"


def test_launched_ranks():
    assert target.launched_ranks(["mpirun", "-np", "6", "--oversubscribe"]) == 6 and \
        target.launched_ranks(["srun", "-n", "4"]) == 4, "the ranks a launcher starts"
    try:
        target.launched_ranks(["mpirun"])
    except ValueError:
        pass
    else:
        raise AssertionError("a launcher without a rank count is refused")


def test_hostfile_and_partial_csv():
    with tempfile.TemporaryDirectory() as d:
        hf = os.path.join(d, "h")
        with open(hf, "w") as f:
            f.write("node-0:16\nnode-1\n\n")
        assert target.hostfile_slots(hf) == [16, 1], "a hostfile's slots per line"
        csv_ = os.path.join(d, "out.csv")
        with open(csv_, "w") as f:
            f.write("kind,metric,alg,median_us\ntime,r,native,1.5\ntime,r,ring,2")
        rows = target.finished_rows(csv_)
        assert [r["alg"] for r in rows] == ["native"], \
            f"a CSV cut mid-line: its complete rows only: {rows}"
        assert target.finished_rows(os.path.join(d, "none.csv")) == [], "no CSV: no rows"


def test_comm_shape_words():
    # a shaped key's runs (grid.comm_args): a real launch starts all P ranks
    # and lets --comm-shape say the size; SMPI simulates the first n nodes
    t = target.Real.__new__(target.Real)
    t.p, t.launch, t.launcher, t.env, t.collbench = 8, ["mpirun", "-np", "8"], None, {}, "cb"
    shaped, _ = t.command(4, ["--coll", "bcast", "--comm-shape", "4x1"])
    plain, _ = t.command(4, ["--coll", "bcast"])
    assert shaped == ["mpirun", "-np", "8", "cb", "--coll", "bcast", "--comm-shape", "4x1"] \
        and plain[-2:] == ["--comm-size", "4"], \
        f"real: --comm-shape without --comm-size, ranks 0..q-1 with it: {shaped}, {plain}"
    s = target.Smpi.__new__(target.Smpi)
    s.p, s.node = 32, 8
    assert [s.ranks(4, ["--comm-shape", "4x1"]), s.ranks(3, ["--comm-shape", "3x1"]),
            s.ranks(12, ["--coll", "bcast"])] == [32, 24, 12], \
        "SMPI: a shape's first n whole nodes (block hostfile), else q ranks"


def test_replay_gives_first_calls():
    # a replayed run answers first_us as collbench would: at its first size,
    # the first listing of each label, median + the setup measured
    st = Store(0.005)
    for a in ("native", "binomial_topo"):
        for m in (64, 4096):
            st.samples[("bcast", a, 8, m)] = [100.0 if a == "native" else 50.0]
            st.ran[("bcast", a, 8, m)] = {a}
    st.setups[("bcast", "binomial_topo", 8)] = [9e5]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "tune.json")
        with open(path, "w") as f:
            json.dump({"p": 8, "node": None, "algs": {"bcast": ["native", "binomial_topo"]},
                       "measurements": st.to_json()}, f)
        rows, _ = target.Replay(path).run_collbench(8, [
            "--coll", "bcast", "--algs", "binomial_topo,native,binomial_topo", "-m", "64,4096"])
    got = [(r["alg"], r["size_bytes"], r["first_us"]) for r in rows]
    assert got == [("binomial_topo", "64", str(50.0 + 9e5)), ("native", "64", ""),
                   ("binomial_topo", "64", ""), ("binomial_topo", "4096", ""),
                   ("native", "4096", ""), ("binomial_topo", "4096", "")], \
        f"first_us where a setup was measured, at the first size, first listing: {got}"


if __name__ == "__main__":
    helpers.run_module(globals())
