#!/usr/bin/env bash
# Several senders per node (hier_ms) against one (hier) and flat native, on
# fattree-256x16 (one core can fill the node link) and
# fattree-256x16-slowcore (one core injects at most a third of it), large
# messages. One simulation per (platform, collective, variant) over SIZES.
#   bench/hier_senders.sh [OUT.csv]   (default docs/results/hier/senders.csv)
# env: P (256), COLLS (allgather alltoallv), SIZES (bytes per rank or pair:
#      4096 32768)
# Columns: platform,coll,p,bytes,variant,us (run time r, mean of 2
# deterministic runs).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/docs/results/hier/senders.csv}"
BIN="$ROOT/build/smpi/bench/collbench"
P="${P:-256}"
[ -x "$BIN" ] || { echo "hier_senders: build first (./run build)" >&2; exit 2; }
echo "platform,coll,p,bytes,variant,us" > "$OUT"
for plat in fattree-256x16 fattree-256x16-slowcore; do
  for c in ${COLLS:-allgather alltoallv}; do
    for v in native hier hier_ms; do
      for m in ${SIZES:-4096 32768}; do
        tmp=$(mktemp); t0=$SECONDS
        echo "[hier_senders] $plat $c p=$P $v $m B ..." >&2
        COLLX_PLATFORM="$plat" flock /tmp/collx-heavy.lock "$ROOT/sim/run" "$plat" "$P" -- \
          "$BIN" --coll "$c" --algs "$v" -m "$m:$m" -x 1 -i 2 -q --csv "$tmp" > /dev/null
        awk -F, -v pl="$plat" -v c="$c" -v p="$P" -v v="$v" \
          'NR > 1 && $17 == "r" {print pl "," c "," p "," $8 "," v "," $20}' "$tmp" >> "$OUT"
        rm -f "$tmp"
        echo "[hier_senders] $plat $c $v $m B: $((SECONDS - t0)) s" >&2
      done
    done
  done
done
column -s, -t < "$OUT"
