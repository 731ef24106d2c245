#!/usr/bin/env python3
"""LogGP model of collx's one-sided broadcast (Paznikov 2024, section 2),
with the parameters measured by bench/rma_loggp.c (loggp.csv), NOT fitted to
the sweep, beside the sweep's measurements (sweep.csv). Writes model.md.

Parameters per platform and link kind (intra: same node, inter: next node):
  o_s, o_r  send / receive overhead (o = their mean), g gap (stream of
  8-byte messages), G per byte (least squares slope of the ping-pong half
  round trip over m >= 4 KiB), L = pingpong(8) - o_s - o_r - 8 G,
  q = max(o, g), O_r = one poll (the method the runtime uses: loads after
  MPI_Win_sync) + one MPI_Iprobe, copy_bw the receiver's unpack rate.

What collx's protocol does per stage (src/rma/bcast.c), in LogGP terms:
  stage(m)  = o_s + L + (m-1)G + o_r   data put, flushed (completed at the
                                        target before the flag)
            + q                         the descriptor put (posted beside it)
            + o_s + L + o_r             flag: MPI_Accumulate + flush
            + O_r                       the child notices at its next poll
  ack       = o_s + L + o_r + O_r       MPI_Accumulate to the parent + its poll
  lock      = ticket (fetch-and-op) and release (accumulate) at rank 0: the
              root is rank 0 in the sweep, so both are local: measured
              fao_self + acc_self
  unpack    = m / copy_bw               (drop-in: staging -> user buffer)
The paper's t = (o + (m-1)G + 2q + L + O_r) log2 P + o + L has one put and
one flag per stage and no acknowledgement wave; collx waits for the data
before the flag (one more L + o) and completes when acknowledgements came
back up the tree (log2 P more hops). The tree is evaluated exactly (largest
subtree first, intra/inter parameters per edge from the 8-per-node
placement); for P a power of two on one kind of link it is
  t = lock + log2 P (stage + ack) + unpack.
linear: the root posts 2(P-1) puts (q each), its link carries the inter-node
data one after the other ((m-1)G each, intra-node copies in parallel), then
sets the P-1 flags one after the other (SMPI's accumulate waits for itself),
every target unpacks and acknowledges.

usage: rma_model.py LOGGP_CSV SWEEP_CSV OUT_MD"""
import csv, math, sys
from collections import defaultdict

PER_NODE = 8


def load_params(path):
    raw = defaultdict(dict)   # (platform, peer) -> {(what, bytes): us}
    for r in csv.DictReader(open(path)):
        raw[(r["platform"], int(r["peer"]))][(r["what"], int(r["bytes"]))] = float(r["us"])
    params = {}
    for (plat, peer), d in raw.items():
        if peer == 0:
            continue
        pp = sorted((m, t) for (w, m), t in d.items() if w == "pingpong")
        big = [(m, t) for m, t in pp if m >= 4096]
        n = len(big)
        mx = sum(m for m, _ in big) / n
        my = sum(t for _, t in big) / n
        G = sum((m - mx) * (t - my) for m, t in big) / sum((m - mx) ** 2 for m, _ in big)
        os_, or_, g = d[("o_s", 8)], d[("o_r", 8)], d[("g", 8)]
        o = (os_ + or_) / 2
        self_ = raw[(plat, 0)]
        poll = self_[("poll_load", 8)] + self_[("iprobe", 8)]
        kind = "intra" if peer < PER_NODE else "inter"
        params[(plat, kind)] = dict(
            o_s=os_, o_r=or_, o=o, g=g, G=G, L=max(pp[0][1] - os_ - or_ - 8 * G, 0.0),
            q=max(o, g), O_r=poll, poll_rma=self_[("poll_rma", 8)] + self_[("iprobe", 8)],
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


def binomial(params, plat, p, m):
    e0 = edge(params, plat, 0, 0)
    unpack = m / e0["copy_bw"] * 1e6 if e0["copy_bw"] > 0 else 0.0
    return e0["lock"] + done_with_acks(params, plat, p, m, unpack)


def done_with_acks(params, plat, p, m, unpack):
    """Time the root hears its last direct child, acks going up the tree."""
    span = 1
    while span < p:
        span *= 2

    def node(v, vspan, t_recv):
        t = t_recv
        heard = 0.0
        mm = vspan // 2
        while mm >= 1:
            c = v + mm
            if c < p:
                e = edge(params, plat, v, c)
                t += stage(e, m)
                heard = max(heard, node(c, mm, t) + ack(e))
            mm //= 2
        own = t + (unpack if v else 0.0)
        return max(own, heard)

    return node(0, span, 0.0)


def linear(params, plat, p, m):
    e0 = edge(params, plat, 0, 0)
    unpack = m / e0["copy_bw"] * 1e6 if e0["copy_bw"] > 0 else 0.0
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
    return e0["lock"] + max(t, heard)


def main():
    params = load_params(sys.argv[1])
    sweep = defaultdict(dict)
    for r in csv.DictReader(open(sys.argv[2])):
        sweep[(r["platform"], r["alg"])][(int(r["p"]), int(r["m"]))] = float(r["mean"])
    md = ["# LogGP model vs measurement (bench/rma_model.py)", "",
          "Parameters measured by bench/rma_loggp.c (loggp.csv), in us "
          "(G in ns/byte); not fitted to the sweep.", "",
          "| platform | link | o_s | o_r | g | L | G (ns/B) | O_r load | O_r rma | lock | copy GB/s |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for (plat, kind), e in sorted(params.items()):
        md.append(f"| {plat} | {kind} | {e['o_s']:.2f} | {e['o_r']:.2f} | {e['g']:.2f} | "
                  f"{e['L']:.2f} | {e['G'] * 1e3:.4f} | {e['O_r']:.3f} | {e['poll_rma']:.3f} | "
                  f"{e['lock']:.2f} | {e['copy_bw'] / 1e9:.2f} |")
    md += ["", "Check of the per-operation terms against the RMA timings (us):", "",
           "| platform | link | put 8 B meas / LogGP | put 1 MiB meas / LogGP | accumulate meas / LogGP |",
           "|---|---|---|---|---|"]
    for (plat, kind), e in sorted(params.items()):
        d = e["meas"]
        f = lambda m: e["o_s"] + e["L"] + (m - 1) * e["G"] + e["o_r"]
        md.append(f"| {plat} | {kind} | {d[('put', 8)]:.1f} / {f(8):.1f} | "
                  f"{d[('put', 1 << 20)]:.0f} / {f(1 << 20):.0f} | "
                  f"{d[('acc', 8)]:.1f} / {f(8):.1f} |")
    errs = []
    for alg, model in (("rma_binomial", binomial), ("rma_linear", linear)):
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
        for alg in ("rma_binomial", "rma_linear"):
            v = [e for pl, a, e in errs if pl == plat and a == alg]
            if v:
                within = sum(1 for x in v if x <= 20)
                md.append(f"- {plat} {alg}: max {max(v):.0f} %, mean {sum(v) / len(v):.0f} %, "
                          f"{within}/{len(v)} points within 20 %")
    open(sys.argv[3], "w").write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
