#!/usr/bin/python3
"""between.py: the choice between grid points, where the times' lines
cross (message sizes) or nearer the slower end (communicator sizes), and
no third algorithm the corners cannot tell from their choices. From
tests/tune/test_tune_units.py's section between grid points.

    test_between.py [REPO_ROOT]"""
import helpers
from collx.tune import grid, rules
from collx.tune.between import Between
from collx.tune.decide import Decider
from collx.tune.store import Store


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


NAT = {(8, 8): 1000.0, (8, 1024): 1000.0}


def test_switch_where_lines_cross():
    # a wins at 8 B, b at 1 KiB: they cross at 156 B (lines in log m), not halfway (90 B)
    rs = between_rules({"native": NAT, "a": {(8, 8): 100.0, (8, 1024): 400.0},
                        "b": {(8, 8): 300.0, (8, 1024): 200.0}}, [8], [8, 1024])
    assert picks(rs, 8, [8, 120, 150, 165, 1024]) == ["a", "a", "a", "b", "b"], \
        f"between two grid sizes: the switch where the times' lines cross (156 B), not " \
        f"halfway: {picks(rs, 8, [8, 120, 150, 165, 1024])}"


def test_third_algorithm_takes_the_middle():
    rs = between_rules({"native": NAT, "a": {(8, 8): 100.0, (8, 1024): 400.0},
                        "b": {(8, 8): 300.0, (8, 1024): 200.0},
                        "c": {(8, 8): 110.0, (8, 1024): 210.0}}, [8], [8, 1024])
    assert picks(rs, 8, [8, 90, 1024]) == ["a", "c", "b"], \
        f"a third algorithm, faster than native at both ends, takes the middle: " \
        f"{picks(rs, 8, [8, 90, 1024])}"


def test_third_within_the_noise_takes_no_part():
    # c is a at 8 B and b at 1 KiB within the noise (0.2 %): the corners cannot
    # tell it from their choices, so it takes no part between them, however its
    # line runs (else the noise picks the rules there: issue 62)
    rs = between_rules({"native": NAT, "a": {(8, 8): 100.0, (8, 1024): 400.0},
                        "b": {(8, 8): 300.0, (8, 1024): 200.0},
                        "c": {(8, 8): 100.2, (8, 1024): 200.4}}, [8], [8, 1024])
    got = picks(rs, 8, [8, 90, 1024])
    assert "c" not in got and got[0] == "a" and got[-1] == "b", \
        f"a third algorithm within the noise of the corners' choices takes no part: {got}"


def test_slower_than_native_at_one_end():
    # an algorithm measured slower than native at one end does not serve towards
    # it, however its line crosses native's (times step: the emulated cluster)
    rs = between_rules({"native": {(8, 8): 100.0, (8, 1024): 400.0},
                        "a": {(8, 8): 130.0, (8, 1024): 200.0}}, [8], [8, 1024])
    assert picks(rs, 8, [8, 64, 500, 1023, 1024]) == ["native"] * 4 + ["a"], \
        f"native and a cross between two grid sizes: native up to a's grid size: " \
        f"{picks(rs, 8, [8, 64, 500, 1023, 1024])}"


def test_two_faster_than_native():
    rs = between_rules({"native": {(8, 8): 100.0, (8, 1024): 400.0},
                        "a": {(8, 8): 50.0, (8, 1024): 200.0},
                        "b": {(8, 8): 60.0, (8, 1024): 150.0}}, [8], [8, 1024])
    assert set(picks(rs, 8, [8, 64, 500, 1024])) == {"a", "b"}, \
        f"two algorithms faster than native at both ends: their lines decide: " \
        f"{picks(rs, 8, [8, 64, 500, 1024])}"


def test_comm_sizes_off_the_grid():
    # communicator sizes off the grid: flat is 100 us at 4 and 8 ranks, jumpy 120
    # and 80; at 6 ranks jumpy's line (95 us) counts near its slower end (116)
    flat = {(q, 64): 100.0 for q in (4, 8)}
    jumpy = {(4, 64): 120.0, (8, 64): 80.0}
    rs = between_rules({"native": {(q, 64): 1000.0 for q in (4, 8)}, "flat": flat,
                        "jumpy": jumpy}, [4, 8], [64])
    got = [rules.match(rs, "allreduce", q, 64, q) for q in (4, 5, 6, 7, 8)]
    assert got == ["flat", "flat", "flat", "jumpy", "jumpy"], \
        f"off the grid, an algorithm whose time moves between the grid sizes around " \
        f"counts nearer its slower one: {got}"


if __name__ == "__main__":
    helpers.run_module(globals())
