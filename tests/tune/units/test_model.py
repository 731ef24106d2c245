#!/usr/bin/python3
"""model.py: the cost model's fit, across nodes terms of their own and the
shape in q shared, partial nodes apart. From tests/tune/test_tune_units.py's
sections partial nodes and model.

    test_model.py [REPO_ROOT]"""
import math

import helpers
from collx.tune import grid, model


# ---------------------------------------------------------------- partial nodes
def test_partial_nodes_apart():
    pts = [(q, m, 100.0) for q in (16, 32, 48) for m in (8, 64, 512)] + \
          [(q, m, 50.0) for q in (20, 28) for m in (8, 64, 512)]
    near = model.AlgModel(pts).predict([(24, 64)])[0]
    apart = model.AlgModel(pts, layout=lambda q: grid.layout(q, 8)).predict([(24, 64)])[0]
    assert apart > near, \
        f"model: partial-node neighbours correct a whole-node prediction less " \
        f"({math.exp(apart):.0f} vs {math.exp(near):.0f} us at 24 ranks; whole nodes " \
        f"measured 100, partial 50)"


# ---------------------------------------------------------------- model
def fitted():
    pts = [(q, m, 5 + 2 * math.log2(q) + 0.001 * m * q)
           for q in (2, 4, 8, 16) for m in (8, 1024, 65536)]
    return model.AlgModel(pts)


def test_recovers_formula():
    mdl = fitted()
    got = mdl.predict([(32, 4096)])[0]
    true = math.log(5 + 2 * 5 + 0.001 * 4096 * 32)
    assert abs(got - true) < 0.02, \
        f"model: recovers a + b log2 q + f m q ({math.exp(got):.1f} " \
        f"vs {math.exp(true):.1f} us at q=32, 4 KiB)"


def test_coefficients_non_negative():
    mdl = fitted()
    assert all(c >= 0 for c in mdl.coef), "model: coefficients >= 0"


def on16(q):
    return grid.layout(q, 16)


def test_across_nodes_terms_of_their_own():
    # across nodes, terms of their own added to the shared ones (SMPI ib-qdr-36x16
    # allgather, Bruck at 1 MiB: linear in q inside a node, 7-40 times that
    # across; one fit put 16 ranks at 1.65 times its time)
    inside = [(q, m, 3 + 0.0025 * m * q) for q in (2, 3, 4, 6, 8, 12)
              for m in (65536, 262144, 1048576)]
    across = [(q, m, 20 * (3 + 0.0025 * m * q)) for q in (20, 24, 32, 48)
              for m in (65536, 262144, 1048576)]
    got = math.exp(model.AlgModel(inside + across, layout=on16).predict([(16, 1048576)])[0])
    true = 3 + 0.0025 * 1048576 * 16
    assert abs(got / true - 1) < 0.05, \
        f"model: across nodes, terms of their own: a node's times " \
        f"not pulled up by them ({got:.0f} vs {true:.0f} us at 16 ranks, 1 MiB)"


def test_shape_in_q_shared():
    # ... and the shape in q shared: measured inside a node at 2 and 16 ranks
    # only (SMPI fattree-256x16 linear bcast), 8 ranks follows the q term the
    # nodes show (a node's fit of its own put it 1.22 times too slow)
    def lin(q, m):
        return 1.5 + 0.43 * q + 0.0002 * m * q
    inside = [(q, m, lin(q, m)) for q in (2, 16) for m in (8, 512, 1024, 2048, 16384)]
    across = [(q, m, 2 * lin(q, m) + 3) for q in (20, 24, 32, 40, 48) for m in (8, 512, 16384)]
    got = math.exp(model.AlgModel(inside + across, layout=on16).predict([(8, 1024)])[0])
    assert abs(got / lin(8, 1024) - 1) < 0.05, \
        f"model: the shape in q shared by a node's inside and " \
        f"the nodes ({got:.2f} vs {lin(8, 1024):.2f} us at 8 ranks)"


def test_leave_one_size_out():
    # a step at 8 ranks (1.5 times the formula), measured at sizes a
    # doubling apart and communicator sizes two apart: its points predict
    # each other (leave one out), the other sizes do not (leave the size out)
    ms = (8, 16, 32, 64, 128)
    pts = [(q, m, (10 + q + 0.01 * m) * (1.5 if q == 8 else 1.0))
           for q in (2, 8, 32, 128) for m in ms]
    am = model.AlgModel(pts)
    loo = max(abs(am.loo[(8, m)]) for m in ms)
    loqo = min(abs(am.loqo[(8, m)]) for m in ms)
    assert loqo > 1.5 * loo and loqo > 0.15, \
        f"the error of predicting a size from the others shows the step the points of " \
        f"one size hide: leave one out {loo:.3f}, leave the size out {loqo:.3f}"


if __name__ == "__main__":
    helpers.run_module(globals())
