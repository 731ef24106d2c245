#!/usr/bin/python3
"""store.py: the presumption that a failure at (q, m) extends to larger
points, and Student's t upper tail. From tests/tune/test_tune_units.py's
sections failures and validate.

    test_store.py [REPO_ROOT]"""
import helpers
from collx.tune.store import Store, t_upper


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


if __name__ == "__main__":
    helpers.run_module(globals())
