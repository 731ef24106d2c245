#!/usr/bin/env bash
# Which broadcast hier's leaders should run in a nonblocking or persistent
# call (src/hier/hier.c, nonblocking_leaders): a blocking hier bcast in
# SMPI on fattree-256x16 (16 ranks per node) with the leaders' algorithm
# forced (COLLX_HIER_INTER) - the MPI's own blocking bcast, binomial,
# scatter_allgather, pipeline_binary cut into 2..32 segments - at 16 and
# 64 nodes. t_min of the slowest process, us. Writes OUT (CSV: nodes,
# leaders, segments, bytes, t_us) and prints a table per node count.
#   bench/hier_nb_bcast.sh [OUT=docs/results/nb/hier_bcast_leaders.csv] [SMPI_BUILD=build/smpi]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/docs/results/nb/hier_bcast_leaders.csv}"
SMPI="${2:-$ROOT/build/smpi}"
SIZES=16K,32K,64K,128K,1M
CONFIGS="native:8 binomial:8 scatter_allgather:8 pipeline_binary:2 pipeline_binary:4
pipeline_binary:8 pipeline_binary:16 pipeline_binary:32"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
echo "nodes,leaders,segments,bytes,t_us" >"$OUT"
total=$(( $(echo $CONFIGS | wc -w) * 2 )); n=0
for p in 256 1024; do
    for c in $CONFIGS; do
        IFS=: read -r alg k <<<"$c"
        n=$((n + 1))
        echo "[hier_nb_bcast $n/$total] p=$p leaders $alg segments $k" >&2
        COLLX_HIER_INTER=$alg COLLX_BCAST_SEGMENTS=$k "$ROOT/sim/run" fattree-256x16 "$p" -- \
            "$SMPI/bench/collbench" --coll bcast --algs hier -m "$SIZES" -i 2 -x 1 -q \
            --csv "$TMP/run.csv" >/dev/null
        /usr/bin/python3 - "$TMP/run.csv" "$((p / 16)),$alg,$k" >>"$OUT" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["metric"] == "t":
        print(f"{sys.argv[2]},{r['size_bytes']},{float(r['min_us']):.2f}")
PY
    done
done
/usr/bin/python3 - "$OUT" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for nodes in sorted({int(r["nodes"]) for r in rows}):
    sizes = sorted({int(r["bytes"]) for r in rows})
    print(f"\n{nodes} nodes: hier bcast (us) by the leaders' algorithm:\n")
    print("| leaders | " + " | ".join(f"{s // 1024} KiB" for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    seen = []
    for r in rows:
        key = (r["leaders"], r["segments"])
        if int(r["nodes"]) != nodes or key in seen:
            continue
        seen.append(key)
        t = {int(x["bytes"]): x["t_us"] for x in rows
             if int(x["nodes"]) == nodes and (x["leaders"], x["segments"]) == key}
        name = key[0] + (f" ({key[1]} segments)" if key[0].startswith("pipeline") else "")
        print(f"| {name} | " + " | ".join(t.get(s, "") for s in sizes) + " |")
PY
