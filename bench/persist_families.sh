#!/usr/bin/env bash
# What a start of a persistent collective saves against the blocking call,
# per algorithm family, in SMPI (docs/results/nb/README.md, "Per family"):
# collbench --mode blocking and --mode persistent (CX_<Coll>_init once,
# then CX_Start + CX_Wait per repetition) side by side, t_min of the
# slowest process. One algorithm per family at p = 256 on fattree-256x16
# (16 nodes of 16), each at 8 B, 1 KiB and 64 KiB per rank; tuw at p = 560
# has its own table (tuw_*_p560.csv). Writes OUT/<family>_<mode>.csv and
# prints a markdown table (persistent / blocking: below 1 is a saving).
#   bench/persist_families.sh [OUT=docs/results/nb/families] [SMPI_BUILD=build/smpi]
# PERSIST_CASES="fam:coll:alg ..." runs only those (the table shows those).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/docs/results/nb/families}"
SMPI="${2:-$ROOT/build/smpi}"
PLATFORM=fattree-256x16
P=256
mkdir -p "$OUT"
# family  collective  algorithm
CASES="${PERSIST_CASES:-hier:allreduce:hier hier:allgather:hier hier:bcast:hier
base:allreduce:rabenseifner base:allgather:bruck topo:allgather:ring_topo
pap:gather:sbn rma:bcast:rma_binomial}"
n=0
total=$(echo $CASES | wc -w)
for c in $CASES; do
    IFS=: read -r fam coll alg <<<"$c"
    n=$((n + 1))
    for mode in blocking persistent; do
        echo "[persist_families $n/$total] $fam $coll $alg $mode" >&2
        "$ROOT/sim/run" "$PLATFORM" "$P" -- "$SMPI/bench/collbench" --coll "$coll" \
            --algs "$alg" -m 8,1K,64K -i 2 -x 1 -q --mode "$mode" \
            --csv "$OUT/${fam}_${coll}_${alg}_${mode}.csv" >/dev/null
    done
done
/usr/bin/python3 - "$OUT" "$CASES" <<'EOF'
import csv, sys, os
out, cases = sys.argv[1], sys.argv[2].split()
def tmin(path):
    got = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["metric"] == "t":   # slowest process, min over repetitions
                got[int(r["size_bytes"])] = float(r["min_us"])
    return got
print("| family | collective | algorithm | bytes | blocking (us) | started plan (us) | started / blocking |")
print("|---|---|---|---|---|---|---|")
for c in cases:
    fam, coll, alg = c.split(":")
    b = tmin(os.path.join(out, f"{fam}_{coll}_{alg}_blocking.csv"))
    p = tmin(os.path.join(out, f"{fam}_{coll}_{alg}_persistent.csv"))
    for size in sorted(b):
        if size in p:
            print(f"| {fam} | {coll} | {alg} | {size} | {b[size]:.2f} | {p[size]:.2f} | "
                  f"{p[size] / b[size]:.3f} |")
EOF
