#!/usr/bin/python3
"""store.py: the presumption that a failure at (q, m) extends to larger
points, and Student's t upper tail. From tests/tune/test_tune_units.py's
sections failures and validate. Samples paired by the launch that took
them (issue 62): each launch's own offset cancels, and a gain must hold in
every repeat.

    test_store.py [REPO_ROOT]"""
import json
import math
import os
import tempfile

import helpers
from collx.tune import target
from collx.tune.store import Store, paired_faster, setup_of, t_upper, unpaired_faster


# ---------------------------------------------------------------- failures
def test_out_of_memory_extends_to_larger():
    st = Store(0)
    st.fail("bcast", "hier", 16, 1024, "memory: 9.0 GiB resident > limit 7.8 GiB")
    assert st.cannot("bcast", "hier", 32, 4096) and \
        not st.cannot("bcast", "hier", 8, 4096) and \
        not st.cannot("bcast", "hier", 32, 512), \
        "out of memory at (q, m): presumed at larger q and m only"


def test_crash_that_point_only():
    st = Store(0)
    st.fail("bcast", "hier", 16, 1024, "memory: 9.0 GiB resident > limit 7.8 GiB")
    st.fail("alltoallv", "native", 3, 8, "exit 134: Aborted")
    assert st.cannot("alltoallv", "native", 3, 8) and \
        not st.cannot("alltoallv", "native", 4, 8), \
        "a crash at (q, m): that point only"


# ---------------------------------------------------------------- validate
def test_t_upper():
    assert abs(t_upper(2.365, 7) - 0.025) < 2e-4 and abs(t_upper(3.0, 2) - 0.0477) < 2e-4 and \
        abs(t_upper(-1.0, 1) - 0.75) < 1e-9 and t_upper(0.0, 4) == 0.5, \
        "Student's t upper tail (df 7 at 2.365, df 2 at 3.0, df 1 at -1, 0)"


# ---------------------------------------------------------------- setup (issue 53)
# collbench's CSV (bench/cb_output.c): Open MPI, 4 ranks as 2 nodes, bcast
# at 64 KiB then 512 KiB; first_us on the first size's rows only
HEAD = ("kind,platform,coll,alg,p,ppn,root,size_bytes,problem,b,m,m_pad,max_delay_ms,seed,"
        "warmup,iters,metric,min_us,median_us,mean_us,max_us,valid,ref,ref_us,ratio,violated,"
        "ran,host_s,nodes,shape")
NEW = [HEAD + ",first_us",
       "time,real,bcast,native,4,2,0,65536,,,65536,65536,0,1,3,20,r,17.3,18.6,27.7,89.9,,,,,,"
       "native,,2,,42.250",
       "time,real,bcast,native,4,2,0,65536,,,65536,65536,0,1,3,20,e,12.0,12.5,20.1,80.2,,,,,,"
       "native,,2,,30.100",
       "time,real,bcast,binomial_topo,4,2,0,65536,,,65536,65536,0,1,3,20,r,23.8,25.5,48.1,443.9,,"
       ",,,,binomial_topo,,2,,883.980",
       "time,real,bcast,hier,4,2,0,65536,,,65536,65536,0,1,3,20,r,20.0,21.0,22.0,30.0,,,,,,"
       "native,,2,,900.000",
       "time,real,bcast,binomial_topo,4,2,0,524288,,,524288,524288,0,1,3,20,r,108.9,115.3,116.0,"
       "162.5,,,,,,binomial_topo,,2,,"]


def load_csv(lines):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "out.csv")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        rows = target.finished_rows(path)
    st = Store(0.01)
    st.add_rows("bcast", 4, rows, {})
    return st, rows


def test_setup_from_collbench_csv():
    st, rows = load_csv(NEW)
    assert [r["metric"] for r in rows] == ["r"] * 4, "the rows of metric r, as before"
    assert abs(st.setup("bcast", "binomial_topo", 4) - (883.98 - 25.5)) < 1e-6 and \
        abs(st.setup("bcast", "native", 4) - (42.25 - 18.6)) < 1e-6, \
        f"setup = first_us - median_us at the run's first size: {st.setups}"
    assert st.setup("bcast", "hier", 4) is None and st.setup("bcast", "native", 8) is None, \
        "a fallback's first call (ran is not the algorithm) is not the algorithm's; " \
        "none measured: None"
    assert setup_of({"first_us": "10", "median_us": "25"}) == 0.0, \
        "a first call faster than the median (noise): no setup, not a negative one"


def test_setup_old_outputs_load():
    old = [",".join(line.split(",")[:-1]) for line in NEW]   # before column first_us
    st, rows = load_csv(old)
    assert len(rows) == 4 and st.setups == {} and \
        st.stat("bcast", "binomial_topo", 4, 65536).mean == 25.5, \
        "a CSV from a collbench before first_us loads, with no setups"
    st, _ = load_csv(NEW)
    back = Store.from_json(json.loads(json.dumps(st.to_json())))
    assert back.setups == st.setups, "setups round-trip through tune.json"
    d = st.to_json()
    del d["setup"]
    assert Store.from_json(d).setups == {}, "a tune.json from before them loads"


# ---------------------------------------------------------------- launches (issue 62)
def launch_store(times):
    """{alg: [us per launch 0, 1, ...]} at bcast p=4, 64 B, one sample a launch."""
    st = Store(0.01)
    for a, xs in times.items():
        for i, us in enumerate(xs):
            if us is not None:
                st.add_rows("bcast", 4, [{"alg": a, "size_bytes": "64", "median_us": str(us),
                                          "ran": a, "ppn": "4"}], {}, launch=i)
    return st


def test_paired_by_launch():
    st = launch_store({"native": [100, 150, 200], "a": [80, 120, None], "v": [None, None, 90]})
    d = st.paired("bcast", "a", "native", 4, 64)
    assert [round(x, 4) for x in d] == [round(math.log(0.8), 4)] * 2, \
        f"ln(T_a / T_native) in each launch that measured both: {d}"
    assert st.paired("bcast", "a", "v", 4, 64) == [], "no launch in common: no pairs"
    back = Store.from_json(json.loads(json.dumps(st.to_json())))
    assert back.launches == st.launches, "the launches round-trip through tune.json"
    old = st.to_json()
    for x in old["samples"]:
        del x["launch"]
    assert Store.from_json(old).paired("bcast", "a", "native", 4, 64) == [], \
        "a tune.json from before issue 62 loads, with nothing to pair"


def test_log_ratio_cancels_launch_offsets():
    # v ran in launches of its own (a variant), 10 % slower than a within each
    # launch, but in launches that ran 30 % faster: the means say v is faster
    st = launch_store({"native": [100, 100, 70, 70], "a": [50, 50, None, None],
                       "v": [None, None, 38.5, 38.5]})
    means = math.log(st.stat("bcast", "v", 4, 64).mean / st.stat("bcast", "a", 4, 64).mean)
    got = st.log_ratio("bcast", "v", "a", 4, 64)
    assert means < 0 and abs(got - math.log(1.1)) < 1e-9, \
        f"against the native of its own launches v is 10 % slower ({got:.3f}); the " \
        f"means across launches said faster ({means:.3f})"


def test_paired_faster_every_repeat():
    ln = math.log
    assert paired_faster([ln(0.8), ln(0.82), ln(0.79)], ln(1 / 0.98), 0.01), \
        "faster by 20 % in each of 3 launches: faster"
    assert not paired_faster([ln(0.7), ln(0.7), ln(1.01)], ln(1 / 0.98), 0.01), \
        "slower in one launch: the gain does not hold in every repeat"
    assert not paired_faster([ln(0.99), ln(0.99), ln(0.99)], ln(1 / 0.98), 0.01), \
        "1 % faster in every launch, below the 2 % margin: no"
    assert not paired_faster([ln(0.8)], 0.0, 0.01), "one launch: no repeat to hold in"
    assert not paired_faster([ln(0.6), ln(0.97), ln(0.95)], ln(1 / 0.98), 0.01), \
        "faster in every launch, but so spread that the mean's bound reaches 0: no"
    assert unpaired_faster([ln(0.8), ln(0.81)], [ln(1.0), ln(0.99)], 0.0, 0.01) and \
        not unpaired_faster([ln(0.8), ln(0.95)], [ln(0.9), ln(1.0)], 0.0, 0.01), \
        "run apart, each against its launches' native: faster only if every repeat is"


if __name__ == "__main__":
    helpers.run_module(globals())
