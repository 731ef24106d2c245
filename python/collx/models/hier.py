"""Cost model of the hierarchical study (sweep `hier`), per variant.

Each run is described by three counts that follow from the algorithm the
variant runs at (p, m), with q = 16 ranks per node and N = p / q nodes:

    R  rounds on the critical path (latency),
    B  bytes through one node's network link (the link 16 ranks share),
    L  bytes one rank copies or reduces in memory (charged by collx in
       SMPI; SMPI's own collectives copy for free),

and the time is T = a R + b B + c L + d, with a, b, c, d >= 0 fitted per
collective and variant (non-negative least squares, relative error). The
algorithm behind "native" is the one SMPI 3.32's Open-MPI-like selector
(src/smpi/colls/smpi_openmpi_selector.cpp) picks for (p, m); hier's
leaders run the selector's choice for N leaders (allgatherv, alltoallv,
reduce_scatter) or Bruck (hier+bruck). The p = 65536 figures use the same
selector branches (its last branch covers p >= 4096).
"""
import math

import numpy as np

Q = 16   # ranks per node on fattree-256x16


def lg(n):
    return math.ceil(math.log2(n)) if n > 1 else 0


def allgather_alg(p, m):
    """SMPI's ompi selector for MPI_Allgather (m: bytes per rank)."""
    if p == 2:
        return "pair"
    table = [(32, [(None, "rdb")]),
             (64, [(1024, "rdb"), (65536, "neighbor"), (None, "ring")]),
             (128, [(512, "rdb"), (65536, "neighbor"), (None, "ring")]),
             (256, [(512, "rdb"), (131072, "neighbor"), (524288, "ring"),
                    (1048576, "neighbor"), (None, "ring")]),
             (512, [(32, "rdb"), (128, "bruck"), (1024, "rdb"), (131072, "neighbor"),
                    (524288, "ring"), (1048576, "neighbor"), (None, "ring")]),
             (1024, [(64, "rdb"), (256, "bruck"), (2048, "rdb"), (None, "neighbor")]),
             (2048, [(4, "rdb"), (8, "bruck"), (16, "rdb"), (32, "bruck"), (256, "rdb"),
                     (512, "bruck"), (4096, "rdb"), (None, "neighbor")]),
             (4096, [(32, "bruck"), (128, "rdb"), (512, "bruck"), (4096, "rdb"),
                     (None, "neighbor")]),
             (None, [(2, "rdb"), (8, "bruck"), (16, "rdb"), (512, "bruck"), (4096, "rdb"),
                     (None, "neighbor")])]
    return pick(table, p, m)


def allgatherv_alg(n, per):
    """The same for MPI_Allgatherv (per: mean bytes per rank)."""
    if n == 2:
        return "ring" if per < 2048 else "pair"
    table = [(8, [(256, "gb"), (4096, "neighbor"), (8192, "ring"), (16384, "neighbor"),
                  (262144, "bruck"), (None, "neighbor")]),
             (16, [(1024, "gb"), (None, "bruck")]),
             (32, [(128, "gb"), (262144, "bruck"), (None, "ring")]),
             (64, [(256, "gb"), (8192, "bruck"), (None, "ring")]),
             (128, [(256, "gb"), (4096, "bruck"), (None, "ring")]),
             (256, [(1024, "bruck"), (65536, "neighbor"), (None, "ring")]),
             (512, [(1024, "bruck"), (None, "ring")]),
             (1024, [(512, "bruck"), (1024, "gb"), (4096, "bruck"), (1048576, "neighbor"),
                     (None, "ring")]),
             (None, [(4096, "bruck"), (None, "neighbor")])]
    return pick(table, n, per)


def reduce_scatter_alg(p, total):
    """The same for MPI_Reduce_scatter(_block) (total: bytes of the vector)."""
    table = [(4, [(65536, "ring"), (131072, "butterfly"), (None, "ring")]),
             (8, [(8, "default"), (262144, "halving"), (None, "ring")]),
             (32, [(262144, "halving"), (None, "ring")]),
             (64, [(64, "default"), (2048, "halving"), (524288, "butterfly"), (None, "ring")]),
             (128, [(256, "default"), (512, "halving"), (2048, "butterfly"),
                    (4096, "halving"), (None, "butterfly")]),
             (256, [(256, "default"), (512, "halving"), (None, "butterfly")]),
             (512, [(256, "default"), (1024, "halving"), (None, "butterfly")]),
             (1024, [(512, "default"), (2048, "halving"), (8192, "butterfly"),
                     (16384, "halving"), (None, "butterfly")]),
             (2048, [(512, "default"), (4096, "halving"), (16384, "butterfly"),
                     (32768, "halving"), (None, "butterfly")]),
             (4096, [(512, "default"), (4096, "halving"), (None, "butterfly")]),
             (None, [(1024, "default"), (8192, "halving"), (None, "butterfly")])]
    return pick(table, p, total)


def pick(table, p, m):
    for below, rows in table:
        if below is None or p < below:
            for limit, alg in rows:
                if limit is None or m < limit:
                    return alg
    raise ValueError("no branch")


def rounds(alg, n):
    """Latency steps of an algorithm over n ranks."""
    if alg in ("rdb", "bruck", "halving", "butterfly", "binomial"):
        return lg(n)
    if alg == "neighbor":
        return n / 2
    if alg in ("ring", "linear", "pairwise"):
        return n - 1
    if alg in ("gb", "default"):   # a tree to one rank, then a tree back out
        return 2 * lg(n)
    return 1   # pair


def counts(coll, variant, p, m):
    """(R, B, L) of one run: see the module's docstring."""
    n, q = max(p // Q, 1), min(p, Q)
    off = (p - q) * m   # the blocks of the other nodes
    hier = variant.startswith("hier")
    if coll in ("allgather", "allgatherv"):
        if not hier:
            alg = allgather_alg(p, m)
            # log-depth exchanges move every rank's blocks over the link;
            # ring and neighbor pass them along, one copy per node
            link = q * off if alg in ("rdb", "bruck", "gb") else off
            return rounds(alg, p), link, 0
        # hier_ms: collx's defaults, k = one column per 64 KiB of data (up
        # to 8) and Bruck among the leaders from 64 nodes on; hier: the
        # MPI's own leaders (as measured, COLLX_HIER_INTER=native)
        k = min(8, max(1, p * m // 65536)) if variant == "hier_ms" else 1
        bruck = variant == "hier+bruck" or (variant == "hier_ms" and n >= 64)
        alg = "bruck" if bruck else allgatherv_alg(n, q * m // k)
        return rounds(alg, n) + 2, off, p * m + m
    if coll in ("alltoall", "alltoallv"):
        if not hier:
            return p - 1, q * off, 0
        if q * q * m >= 65536 and n > 1:
            # alltoallv from 64 KiB per node pair: pairwise rounds, the
            # copies of all but one node pair's blocks hidden behind them
            return n - 1 + 2, q * off, 2 * q * m
        return n - 1 + 2, q * off, 2 * p * m
    if coll == "reduce_scatter_block":
        if not hier:
            return rounds(reduce_scatter_alg(p, p * m), p), q * p * m, 0
        # a commutative sum: from 4 KiB slices each rank folds its vector
        # in without copying it first (one pass instead of two)
        fold = p * m >= q * 4096
        return rounds(reduce_scatter_alg(n, p * m), n) + 2, p * m, (1 if fold else 2) * p * m
    if coll == "bcast":   # SMPI's bcast is binomial_tree (sim/run)
        if not hier:
            return lg(p), m * lg(p), 0
        return lg(n) + 2, m * lg(n), m
    if coll == "allreduce":   # recursive doubling shape; hier: node fold first
        if not hier:
            return lg(p), m * lg(p), 0
        return lg(n) + 2, m * lg(n), q * m
    raise ValueError(coll)


def features(coll, variant, p, m):
    r, b, l = counts(coll, variant, p, m)
    return [r, b / 1e6, l / 1e6, 1.0]


def fit(rows, ys):
    """Non-negative least squares, small: drop negative terms until none.
    Weighted by 1/y: relative error matters (times span 4 decades)."""
    active = list(range(len(rows[0])))
    while True:
        a = np.array([[r[i] for i in active] for r in rows])
        w = 1.0 / np.array(ys)
        sol, *_ = np.linalg.lstsq(a * w[:, None], np.array(ys) * w, rcond=None)
        if (sol >= 0).all() or len(active) == 1:
            coef = [0.0] * len(rows[0])
            for i, v in zip(active, sol):
                coef[i] = max(v, 0.0)
            return coef
        active.pop(int(np.argmin(sol)))


def predict(coef, coll, variant, p, m):
    return sum(k * f for k, f in zip(coef, features(coll, variant, p, m)))
