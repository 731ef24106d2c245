#!/usr/bin/python3
"""Writes a rules file of N rules (default 1000) for the lookup-cost
benchmark (docs/results/tune/lookup.md): for each collective bench/overhead
times, many rules whose msg_size ranges miss its small calls come first
(every one survives the per-communicator pruning by comm_size, so a walk
visits them all), then one rule that sends every size to native; a few
rules for other collectives fill up to N. Every rule is valid.

usage: tools/gen_rules.py [N] > rules.json"""
import json
import sys

TIMED = {"barrier": None, "bcast": "binomial", "allreduce": "recursive_doubling",
         "gather": "binomial", "alltoall": "pairwise"}
OTHERS = {"allgather": "ring", "scatter": "binomial", "reduce": "binomial",
          "reduce_scatter_block": "ring", "scan": "recursive_doubling"}


def rules(n):
    out, others = [], 5 * len(OTHERS)
    per = (n - len(TIMED) - others) // len(TIMED)
    for coll, alg in list(TIMED.items()) + list(OTHERS.items()):
        for k in range(per if coll in TIMED else 5):
            lo = 4096 * (k + 1)
            rule = {"collective": coll, "algorithm": alg or "dissemination",
                    "msg_size": {"min": lo, "max": lo + 4095}}
            out.append(rule)
        if coll in TIMED:
            out.append({"collective": coll, "algorithm": "native"})
    while len(out) < n:
        out.append({"collective": "exscan", "algorithm": "recursive_doubling",
                    "comm_size": {"min": 100000 + len(out)}})
    return out[:n]


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    json.dump({"rules": rules(n)}, sys.stdout, indent=0)
    sys.stdout.write("\n")
