#!/usr/bin/env bash
# Which algorithm hier's leaders should run in a nonblocking or persistent
# call (hier's built-in rules, src/hier/leaders_nonblocking.rules.json): a
# blocking hier COLL in SMPI
# on fattree-256x16 (16 ranks per node) with the leaders' algorithm forced
# (COLLX_HIER_INTER), the MPI's own blocking collective ("native") beside
# collx's. t_min of the slowest process, us. Writes OUT (CSV: nodes,
# leaders, segments, bytes, t_us) and prints a table per node count.
#   bcast:     16 and 64 nodes; native, binomial, scatter_allgather,
#              pipeline_binary cut into 2..32 segments (COLLX_BCAST_SEGMENTS)
#   allgather: 16 and 15 nodes (even and odd leaders); native, bruck,
#              ring, neighbor_exchange
#   bench/hier_nb_leaders.sh bcast|allgather [OUT=docs/results/nb/hier_COLL_leaders.csv] [SMPI_BUILD=build/smpi]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
COLL="${1:?usage: bench/hier_nb_leaders.sh bcast|allgather [OUT] [SMPI_BUILD]}"
OUT="${2:-$ROOT/docs/results/nb/hier_${COLL}_leaders.csv}"
SMPI="${3:-$ROOT/build/smpi}"
case "$COLL" in
bcast)
    SIZES=16K,32K,64K,128K,1M; PROCS="256 1024"
    CONFIGS="native:8 binomial:8 scatter_allgather:8 pipeline_binary:2 pipeline_binary:4
pipeline_binary:8 pipeline_binary:16 pipeline_binary:32" ;;
allgather)
    SIZES=8,1K,2K,4K,8K,16K,64K; PROCS="256 240"
    CONFIGS="native:- bruck:- ring:- neighbor_exchange:-" ;;
*) echo "hier_nb_leaders.sh: COLL is bcast or allgather, not '$COLL'" >&2; exit 2 ;;
esac
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
echo "nodes,leaders,segments,bytes,t_us" >"$OUT"
total=$(( $(echo $CONFIGS | wc -w) * $(echo $PROCS | wc -w) )); n=0
for p in $PROCS; do
    for c in $CONFIGS; do
        IFS=: read -r alg k <<<"$c"
        n=$((n + 1))
        seg=""; [ "$k" = - ] || seg=" segments $k"
        echo "[hier_nb_leaders $COLL $n/$total] p=$p leaders $alg$seg" >&2
        COLLX_HIER_INTER=$alg COLLX_BCAST_SEGMENTS=${k/-/8} "$ROOT/sim/run" fattree-256x16 "$p" -- \
            "$SMPI/bench/collbench" --coll "$COLL" --algs hier -m "$SIZES" -i 2 -x 1 -q \
            --csv "$TMP/run.csv" >/dev/null
        /usr/bin/python3 - "$TMP/run.csv" "$((p / 16)),$alg,$k" >>"$OUT" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["metric"] == "t":
        print(f"{sys.argv[2]},{r['size_bytes']},{float(r['min_us']):.2f}")
PY
    done
done
/usr/bin/python3 - "$OUT" "$COLL" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
kib = lambda s: f"{s // 1024} KiB" if s >= 1024 else f"{s} B"
for nodes in sorted({int(r["nodes"]) for r in rows}):
    sizes = sorted({int(r["bytes"]) for r in rows})
    print(f"\n{nodes} nodes: hier {sys.argv[2]} (us) by the leaders' algorithm:\n")
    print("| leaders | " + " | ".join(kib(s) for s in sizes) + " |")
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
