#!/usr/bin/python3
"""grid.py: the grid and its held-out points, the ranges of communicator
sizes (partial nodes served by a grid size of the same layout) and the
brackets between grid sizes. From tests/tune/test_tune_units.py's sections
grid, partial nodes and between grid points.

    test_grid.py [REPO_ROOT]"""
import helpers
from collx.tune import grid


# ---------------------------------------------------------------- grid
def test_shaped_keys():
    k = grid.shaped("alltoallv", 1)
    assert (k, grid.coll_of(k), grid.per_node_of(k), grid.node_of(k, 8)) == \
        ("alltoallv-1ppn", "alltoallv", 1, 1) and grid.coll_of("reduce_scatter_block") == \
        "reduce_scatter_block" and grid.per_node_of("bcast") is None and \
        grid.node_of("bcast", 8) == 8, \
        "a shaped key: its collective and ranks per node; a collective's own: the target's"
    assert grid.comm_args(grid.shaped("bcast", 2), 6) == \
        ["--coll", "bcast", "--comm-shape", "3x2"] and \
        grid.comm_args("bcast", 6) == ["--coll", "bcast"], \
        "collbench's words: a shaped key's communicator of q ranks is --comm-shape (q/k)xk"
    assert grid.Grid(grid.shaped("barrier", 1), [4], [64, 128]).sizes == [grid.BARRIER_SIZE] \
        and not grid.uses_msg_size(grid.shaped("alltoallv", 1)), \
        "a shaped key's sizes are its collective's"


def test_comm_sizes():
    qs = grid.comm_sizes(32, 8)
    assert qs == [32, 30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 3, 2], \
        f"comm sizes of p=32, 8 per node: {qs}"


def test_comm_sizes_one_rank_per_node():
    # a launch of one rank per node (the emulated cluster's 2x1): no
    # communicator of one rank, which tune refuses
    assert grid.comm_sizes(2, 1) == [2] and grid.comm_sizes(4, 1) == [4, 3, 2], \
        (grid.comm_sizes(2, 1), grid.comm_sizes(4, 1))
    assert not set(grid.held_out_comm_sizes(4, 1)) - {3}, grid.held_out_comm_sizes(4, 1)


def test_comm_sizes_above_one_node():
    qs = grid.comm_sizes(32, 8)
    assert all(q % 8 in (0, 2, 4, 6) for q in qs if q > 8), \
        "above one node: whole nodes, and whole nodes and a quarter, half, three quarters"


def test_partial_fills():
    assert [grid.partial_fills(k) for k in (2, 3, 4, 8, 16)] == \
        [[1], [1, 2], [1, 2, 3], [2, 4, 6], [4, 8, 12]], \
        "partial fills of small nodes rounded and deduplicated"


def test_held_out_comm_sizes():
    qs = grid.comm_sizes(32, 8)
    held = grid.held_out_comm_sizes(32, 8)
    assert held == [29, 25, 23, 19, 13, 9, 7, 5] and not set(held) & set(qs), \
        f"held-out comm sizes off the grid (across nodes k/8, 3k/8, 5k/8, 7k/8 past whole " \
        f"nodes): {held}"


def test_held_out_comm_sizes_off_the_grid():
    for p_, k_ in ((48, 16), (64, 8), (12, 2), (18, 3), (16, 4)):
        h_ = grid.held_out_comm_sizes(p_, k_)
        assert not set(h_) & set(grid.comm_sizes(p_, k_)), \
            f"p={p_}, k={k_}: held out {h_} off the grid"


def test_held_out_whole_node_sizes_skipped():
    held = grid.held_out_comm_sizes(64, 8)
    assert {40, 56} <= set(held) and not set(held) & set(grid.comm_sizes(64, 8)), \
        f"held-out: the whole-node sizes the grid skips too: {held}"


def test_held_out_sizes():
    sizes = grid.msg_sizes(8, 4096)
    hs = grid.held_out_sizes(8, 4096)
    assert hs[0] == 12 and not set(hs) & set(sizes) and all(8 < s < 4096 for s in hs), \
        f"held-out sizes between grid sizes: {hs}"


def test_bins():
    assert grid.bins([2, 4, 8], top=8) == [(None, 2), (3, 5), (6, 8)], \
        f"bins split at geometric means: {grid.bins([2, 4, 8], top=8)}"


def test_comm_bins():
    cb = grid.comm_bins([2, 3, 4, 6, 8, 16, 24, 32], top=32)
    assert cb == [(None, 2), (3, 3), (4, 4), (5, 7), (8, 11), (12, 16), (17, 31), (32, 32)], \
        f"communicator sizes: a power of two beside a non-power serves only itself: {cb}"


# ---------------------------------------------------------------- partial nodes
# A communicator that ends in a part of a node is served by a grid size of
# the same layout, never by one of whole nodes (p=12 with 8 per node is not
# p=16), and a size of whole nodes never by one that ends in a part.
def test_partial_nodes_comm_ranges():
    qs = grid.comm_sizes(32, 8)
    cr = grid.comm_ranges(qs, 8)
    assert cr == [(None, 2, 2), (3, 3, 3), (4, 4, 4), (5, 7, 6), (8, 8, 8), (9, 11, 10),
                  (12, 13, 12), (14, 15, 14), (16, 16, 16), (17, 19, 18), (20, 21, 20),
                  (22, 23, 22), (24, 24, 24), (25, 27, 26), (28, 29, 28), (30, 31, 30),
                  (32, 32, 32)], \
        f"ranges: whole-node sizes serve themselves, the sizes between them the partial " \
        f"grid size of the same node count and nearest fill: {cr}"


def test_partial_nodes_nearest_fill():
    # How full the last node is decides which partial grid size serves p.
    for p_, k_, want in ((32, 8, {17: 18, 18: 18, 19: 18, 21: 20, 23: 22, 29: 28, 31: 30}),
                         (48, 16, {18: 20, 22: 20, 26: 24, 30: 28, 34: 36, 42: 40, 46: 44}),
                         (12, 2, {11: 9})):
        srv = {q: v for lo, hi, v in grid.comm_ranges(grid.comm_sizes(p_, k_), k_)
               for q in range(lo or 1, hi + 1)}
        got = {q: srv[q] for q in want}
        assert got == want, f"p={p_}, {k_} per node: served by the nearest fill {got}"


def test_partial_nodes_served_by_own_layout():
    for p_, k_ in ((32, 8), (48, 16), (64, 8), (64, 16), (36, 16)):
        g_ = grid.comm_sizes(p_, k_)
        served = {q: v for lo, hi, v in grid.comm_ranges(g_, k_)
                  for q in range(lo or 1, hi + 1)}
        assert sorted(served) == list(range(1, p_ + 1)) and \
            all(grid.layout(v, k_) == grid.layout(q, k_) for q, v in served.items()) and \
            all(v // k_ == q // k_ for q, v in served.items()
                if grid.layout(q, k_) == 2 and any(u // k_ == q // k_ for u in g_ if u % k_)), \
            f"p={p_}, {k_} per node: every size served once, by its own layout (and a " \
            f"partial one by a grid size with as many whole nodes if there is one)"


def test_partial_nodes_five_nodes():
    cr = grid.comm_ranges(grid.comm_sizes(64, 8), 8)
    assert (40, 40, 48) in cr and (41, 43, 50) in cr and (44, 45, 52) in cr and \
        (46, 47, 54) in cr and (56, 56, 48) in cr, \
        f"5 whole nodes: the nearest whole-node grid size (a power of two beside a " \
        f"non-power serves only itself); 5 nodes and a part: the nearest partial count, " \
        f"then the nearest fill of the last node: {cr}"


def test_partial_nodes_grid_without_partial_sizes():
    assert grid.comm_ranges([2, 4, 8], 4) == [(None, 2, 2), (3, 4, 4), (5, 8, 8)] and \
        grid.comm_ranges([2, 4, 8], 4, open_below=False)[0] == (2, 2, 2), \
        "a grid without partial sizes: the partial sizes go to the whole-node ones"


# ---------------------------------------------------------------- between grid points
def test_brackets():
    assert grid.brackets([10, 12, 14, 16, 18], 8, 13) == (12, 14, 0.5) and \
        grid.brackets([10, 12, 14, 16, 18], 8, 17) is None and \
        grid.brackets([10, 12, 14, 16, 18], 8, 12) is None, \
        "brackets: the fill between two grid sizes of the same whole nodes; none below " \
        "the smallest fill or on the grid"


if __name__ == "__main__":
    helpers.run_module(globals())
