"""LogGP model of collx's one-sided broadcast (Paznikov 2024, section 2),
with the parameters measured by bench/rma_loggp.c (loggp.csv, sweep
`rma-loggp`), NOT fitted to the sweep, beside the sweep's measurements
(sweep.csv, sweep `rma`). Writes model.md.

Parameters per platform and link kind (intra: same node, inter: next node),
the simple fit (LogP with o the same on both sides):
  o = o_s, the time to post an MPI_Isend;
  G = least squares slope of put(m) + flush over m >= 64 KiB;
  L = put(8) - 2 o (an 8-byte put completed at the target costs o + L + o);
  g is measured (a stream of 8-byte messages) and reported, but SMPI only
  starts a message when both sides posted, so there it includes L; the
  descriptor put is posted right after the data put and costs q = o;
  O_r = one poll (the method the runtime uses; loads after MPI_Win_sync
  where the model is unified, else fetch-and-op + flush on the own window)
  + the MPI_Iprobe of every forwarding step; copy_bw the receiver's
  unpack rate.

What collx's protocol does per stage (src/rma/bcast.c), in LogGP terms:
  stage(m)  = o + L + (m-1)G + o       data put, flushed (completed at the
                                        target before the flag)
            + q                         the descriptor put (posted beside it)
            + o + L + o                 flag: MPI_Accumulate + flush
            + O_r                       the child notices at its next poll
  ack       = o + L + o + O_r           MPI_Accumulate to the parent + its poll
  lock      = 0 in the sweep: the drop-in keeps the lock while the same
              root broadcasts again (sticky lock, src/rma/README.md); a
              root change costs a ticket (fetch-and-op) and a release
              (accumulate) at rank 0 (params "lock" = fao_self + acc_self
              when the root is rank 0)
  unpack    = m / copy_bw               (drop-in: staging -> user buffer;
                                        SMPI charges it at the platform's
                                        collx:copy_bw since collx charges
                                        the drop-in's copies there)
The paper's t = (o + (m-1)G + 2q + L + O_r) log2 P + o + L has one put and
one flag per stage and no acknowledgement wave; collx waits for the data
before the flag (one more L + o) and completes when acknowledgements came
back up the tree (log2 P more hops). The tree is evaluated exactly (largest
subtree first, intra/inter parameters per edge from the 8-per-node
placement); for P a power of two on one kind of link it is
  t = lock + log2 P (stage + ack) + unpack.
Binomial leaves pull by default (COLLX_RMA_PULL): a leaf gets the flag
alone (stage without the data), then gets m bytes from its parent's
staging into its buffer (o + L + (m-1)G + o, no unpack); the root copies
its data into staging while its first put is on the wire; an inner node
unpacks after forwarding, while its leaves read.
linear: the root posts 2(P-1) puts (q each), its link carries the inter-node
data one after the other ((m-1)G each, intra-node copies in parallel), then
sets the P-1 flags one after the other (SMPI's accumulate waits for itself),
every target unpacks and acknowledges.

LL (src/rma/ll.h; the drop-in's protocol up to LL_MAX = 32 KiB): one
MPI_Accumulate of M = 16 (1 + ceil(m / 15)) bytes per edge, complete at
the child before the next child's (SMPI's accumulate waits for itself):
  send_ll(m) = put(M) + fao / 16
plus local copies at copy_bw: the root encodes m bytes before its first
send, a receiver zeroes the M bytes it read and decodes m after forwarding
with put(M) the measured put + flush time interpolated between the
measured sizes (an 8-byte accumulate costs as much as an 8-byte put; the
o + L + (M-1)G line fitted above 64 KiB misses SMPI's smaller-message
bandwidth factors by up to 40 % at these sizes)
(fao / 16: a writer re-reads a child's credit word, a fetch-and-op, about
once every 16 broadcasts); the child notices at its next poll (O_r) and
forwards; no acknowledgements. The tree is evaluated exactly as above;
linear = P-1 sends one after the other. Rows named rma_*_put are the
paper's PutRequest for every size (COLLX_RMA_LL_MAX=0).

usage: collx model rma LOGGP_CSV SWEEP_CSV[,SWEEP_CSV...] OUT_MD"""
import argparse
from collections import defaultdict

from collx.csvio import read_rows

PER_NODE = 8
LL_MAX = 32768


def load_params(path):
    raw = defaultdict(dict)   # (platform, peer) -> {(what, bytes): us}
    for r in read_rows(path):
        raw[(r["platform"], int(r["peer"]))][(r["what"], int(r["bytes"]))] = float(r["us"])
    params = {}
    for (plat, peer), d in raw.items():
        if peer == 0:
            continue
        put = sorted((m, t) for (w, m), t in d.items() if w == "put")
        big = [(m, t) for m, t in put if m >= 65536]
        n = len(big)
        mx = sum(m for m, _ in big) / n
        my = sum(t for _, t in big) / n
        G = sum((m - mx) * (t - my) for m, t in big) / sum((m - mx) ** 2 for m, _ in big)
        o = d[("o_s", 8)]
        self_ = raw[(plat, 0)]
        probe = self_[("iprobe", 8)]
        poll = self_[("poll_load" if plat.startswith("real") else "poll_rma", 8)] + probe
        kind = "intra" if peer < PER_NODE else "inter"
        params[(plat, kind)] = dict(
            o_s=o, o_r=o, o=o, g=d[("g", 8)], G=G, L=max(put[0][1] - 2 * o, 0.0), q=o,
            O_r=poll, poll_rma=self_[("poll_rma", 8)] + probe,
            poll_load=self_[("poll_load", 8)] + probe,
            lock=self_[("fao_self", 8)] + self_[("acc_self", 8)],
            copy_bw=self_[("copy_bw", 0)], meas=d)
    return params


def edge(params, plat, a, b):
    same = a // PER_NODE == b // PER_NODE
    k = (plat, "intra" if same else "inter")
    return params.get(k) or params[(plat, "intra")]


def stage(e, m):
    return e["o_s"] + e["L"] + (m - 1) * e["G"] + e["o_r"] + e["q"] + \
        e["o_s"] + e["L"] + e["o_r"] + e["O_r"]


def ack(e):
    return e["o_s"] + e["L"] + e["o_r"] + e["O_r"]


def top_span(p):
    span = 1
    while span < p:
        span *= 2
    return span


def tree_kids(v, vspan, p):
    """Children of v in the binomial tree, largest subtree first, with
    their spans."""
    mm = vspan // 2
    while mm >= 1:
        if v + mm < p:
            yield v + mm, mm
        mm //= 2


def put_curve(e, m):
    """A put of m bytes completed at the target, from the measured put
    timings (8 B .. 4 MiB), interpolated linearly between sizes: SMPI's
    bandwidth factors change below 64 KiB, where one G does not fit."""
    pts = sorted((b, t) for (w, b), t in e["meas"].items() if w == "put")
    for (b0, t0), (b1, t1) in zip(pts, pts[1:]):
        if m <= b1:
            return t0 + (t1 - t0) * (m - b0) / (b1 - b0)
    return pts[-1][1] + (m - pts[-1][0]) * e["G"]


def ll_bytes(m):
    """Bytes of an LL message of m data bytes: 16-byte elements of 15 data
    bytes and a flag, after a header element."""
    return 16 * (1 + (m + 14) // 15)


def ll_send(e, m):
    return put_curve(e, ll_bytes(m)) + e["meas"][("fao", 8)] / 16


def ll_copies(e0, m):
    """Local copies of LL (us): the root's encoding; a receiver's zeroing
    of what it read and decoding, after it forwarded."""
    encode = m / e0["copy_bw"] * 1e6
    return encode, (ll_bytes(m) + m) / e0["copy_bw"] * 1e6


def binomial_ll(params, plat, p, m):
    encode, after = ll_copies(edge(params, plat, 0, 0), m)

    def node(v, vspan, t):
        done = t
        for c, cspan in tree_kids(v, vspan, p):
            e = edge(params, plat, v, c)
            t += ll_send(e, m)
            done = max(done, node(c, cspan, t + e["O_r"]))
        return max(done, t + (after if v else 0.0))

    return node(0, top_span(p), encode)


def linear_ll(params, plat, p, m):
    encode, after = ll_copies(edge(params, plat, 0, 0), m)
    t = done = encode
    for tgt in range(1, p):
        e = edge(params, plat, 0, tgt)
        t += ll_send(e, m)
        done = max(done, t + e["O_r"] + after)
    return max(t, done)


def binomial(params, plat, p, m):
    if m <= LL_MAX:
        return binomial_ll(params, plat, p, m)
    return binomial_put(params, plat, p, m)


def linear(params, plat, p, m):
    if m <= LL_MAX:
        return linear_ll(params, plat, p, m)
    return linear_put(params, plat, p, m)


def get_data(e, m):
    """A get of m bytes completed at the origin: the data half of stage."""
    return e["o_s"] + e["L"] + (m - 1) * e["G"] + e["o_r"]


def is_leaf(c, cspan, p):
    return next(tree_kids(c, cspan, p), None) is None


def binomial_put(params, plat, p, m):
    """Time the root hears its last direct child, acks going up the tree.
    Leaves pull (COLLX_RMA_PULL, on by default): their parent puts only the
    descriptor and the flag, the leaf gets the data into its buffer (no
    unpack); the root copies its data into staging while its first put is
    on the wire; an inner node unpacks after forwarding, while its leaves
    read."""
    e0 = edge(params, plat, 0, 0)
    unpack = m / e0["copy_bw"] * 1e6

    def node(v, vspan, t_recv, pulled):
        t = t_recv
        heard = 0.0
        kids = list(tree_kids(v, vspan, p))
        staged = v != 0
        leaf_later = len(kids) > 1 and is_leaf(*kids[-1], p)
        for c, cspan in kids:
            e = edge(params, plat, v, c)
            if staged and is_leaf(c, cspan, p):
                t += stage(e, 1) - e["q"]              # descriptor and flag only
                heard = max(heard, node(c, cspan, t + get_data(e, m), True) + ack(e))
                continue
            if not staged and leaf_later:
                t += max(stage(e, m), unpack + stage(e, 1))   # the root's copy
                staged = True
            else:
                t += stage(e, m)
            heard = max(heard, node(c, cspan, t, False) + ack(e))
        own = t + (unpack if v and not pulled else 0.0)
        return max(own, heard)

    return node(0, top_span(p), 0.0, False)   # sticky lock: 0


def linear_put(params, plat, p, m):
    e0 = edge(params, plat, 0, 0)
    unpack = m / e0["copy_bw"] * 1e6
    post = 2 * (p - 1) * e0["q"]
    inter = [t for t in range(1, p) if t // PER_NODE != 0]
    data_done = post
    for t in range(1, p):
        e = edge(params, plat, 0, t)
        arrive = e["L"] + (m - 1) * e["G"] * (len(inter) if t in inter else 1)
        data_done = max(data_done, arrive)
    t = data_done + e0["o_r"]
    heard = 0.0
    for tgt in range(1, p):
        e = edge(params, plat, 0, tgt)
        t += e["o_s"] + e["L"] + e["o_r"]             # flag, one after the other
        heard = max(heard, t + e["O_r"] + unpack + ack(e))
    return max(t, heard)   # sticky lock: 0


def main(argv):
    ap = argparse.ArgumentParser(prog="collx model rma", description="the one-sided "
                                 "broadcast's LogGP model, from the parameters bench/rma_loggp "
                                 "measured, against the sweeps")
    ap.add_argument("loggp", metavar="LOGGP_CSV")
    ap.add_argument("sweeps", metavar="SWEEP_CSV[,SWEEP_CSV...]")
    ap.add_argument("out", metavar="OUT_MD")
    o = ap.parse_args(argv)
    params = load_params(o.loggp)
    sweep = defaultdict(dict)
    for path in o.sweeps.split(","):   # several sweeps: comma-separated
        for r in read_rows(path):
            # Real runs: the median (a descheduled rank makes the mean
            # jump); SMPI is deterministic (min = mean = max).
            t = r["median"] if r["platform"].startswith("real") else r["mean"]
            sweep[(r["platform"], r["alg"])][(int(r["p"]), int(r["m"]))] = float(t)
    md = ["# LogGP model vs measurement (python/collx/models/rma.py)", "",
          "Parameters measured by bench/rma_loggp.c (loggp.csv), in us "
          "(G in ns/byte); not fitted to the sweep.", "",
          "| platform | link | o | g | L | G (ns/B) | O_r by loads | O_r by fetch-and-op | lock | copy GB/s |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    for (plat, kind), e in sorted(params.items()):
        md.append(f"| {plat} | {kind} | {e['o']:.2f} | {e['g']:.2f} | "
                  f"{e['L']:.2f} | {e['G'] * 1e3:.4f} | {e['poll_load']:.3f} | {e['poll_rma']:.3f} | "
                  f"{e['lock']:.2f} | {e['copy_bw'] / 1e9:.2f} |")
    md += ["", "Check of the per-operation terms against the RMA timings (us):", "",
           "| platform | link | put 16 KiB meas / LogGP | put 1 MiB meas / LogGP | accumulate meas / LogGP | fetch-and-op meas (2 messages in SMPI) |",
           "|---|---|---|---|---|---|"]
    for (plat, kind), e in sorted(params.items()):
        d = e["meas"]
        f = lambda m: e["o_s"] + e["L"] + (m - 1) * e["G"] + e["o_r"]
        md.append(f"| {plat} | {kind} | {d[('put', 16384)]:.1f} / {f(16384):.1f} | "
                  f"{d[('put', 1 << 20)]:.0f} / {f(1 << 20):.0f} | "
                  f"{d[('acc', 8)]:.2f} / {f(8):.2f} | {d[('fao', 8)]:.2f} |")
    errs = []
    algs = (("rma_binomial", binomial), ("rma_linear", linear),
            ("rma_binomial_put", binomial_put), ("rma_linear_put", linear_put))
    for alg, model in algs:
        if not any(k[1] == alg for k in sweep):
            continue
        md += ["", f"## {alg}: predicted vs measured (us)", "",
               "| platform | p | m | measured | LogGP | error |", "|---|---|---|---|---|---|"]
        for plat in sorted({k[0] for k in params}):
            for (p, m), t in sorted(sweep.get((plat, alg), {}).items()):
                pred = model(params, plat, p, m)
                err = 100 * (pred - t) / t
                errs.append((plat, alg, abs(err)))
                md.append(f"| {plat} | {p} | {m} | {t:.0f} | {pred:.0f} | {err:+.0f} % |")
    md += ["", "Largest |error| per platform and algorithm:", ""]
    for plat in sorted({x[0] for x in errs}):
        for alg, _ in algs:
            v = [e for pl, a, e in errs if pl == plat and a == alg]
            if v:
                within = sum(1 for x in v if x <= 20)
                md.append(f"- {plat} {alg}: max {max(v):.0f} %, mean {sum(v) / len(v):.0f} %, "
                          f"{within}/{len(v)} points within 20 %")
    with open(o.out, "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))

