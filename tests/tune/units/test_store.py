#!/usr/bin/python3
"""store.py: the presumption that a failure at (q, m) extends to larger
points, and Student's t upper tail. From tests/tune/test_tune_units.py's
sections failures and validate.

    test_store.py [REPO_ROOT]"""
import json
import os
import tempfile

import helpers
from collx.tune import target
from collx.tune.store import Store, setup_of, t_upper


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


if __name__ == "__main__":
    helpers.run_module(globals())
