#!/usr/bin/env bash
# The topology part of ./run demo (under 2 minutes): SMPI, cse-2switch-30x8,
# 8 nodes x 8 ranks, allgather ring and recursive doubling in rank order vs
# topology-reordered (ring_topo, rd_topo), at 4 KB and 256 KB per rank, for
# the block, scattered (nodes alternate between the switches) and
# round-robin (--map-by node) placements; then the cost of measuring the
# distances. Writes OUT/*.csv and OUT/summary.md; progress on stderr.
#   bench/topo_demo.sh [OUT]      (full sweep: bench/topo_sweep.sh)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/results/topo_demo}"
BIN="$ROOT/build/smpi/bench/collbench"
COST="$ROOT/build/smpi/bench/topo_cost"
[ -x "$BIN" ] && [ -x "$COST" ] || { echo "topo_demo: build first (./run build)" >&2; exit 2; }
mkdir -p "$OUT"
T0=$SECONDS
say() { echo "[topo demo $((SECONDS - T0))s] $*" >&2; }
for pl in block scattered rr8; do
  for m in 4096 262144; do
    say "allgather p=64, $pl placement, $m B per rank"
    SIM_HOSTFILE="${pl/block/}" "$ROOT/sim/run" cse-2switch-30x8 64 -- "$BIN" \
      --coll allgather --algs ring,ring_topo,recursive_doubling,rd_topo -m "$m:$m" \
      -i 1 -x 1 -q --csv "$OUT/$pl-$m.csv" > /dev/null
  done
done
say "cost of measuring the distances (scattered, p=64)"
SIM_HOSTFILE=scattered "$ROOT/sim/run" cse-2switch-30x8 64 -- "$COST" 2097152 scattered \
  > "$OUT/cost.csv"
{
  echo "# Topology-aware allgather, SMPI cse-2switch-30x8, 8 nodes x 8 ranks"
  echo
  echo "Run time r (ms); gain = 1 - reordered / rank order."
  echo
  echo "| placement | size | ring | ring_topo | gain | rd | rd_topo | gain |"
  echo "|---|---|---|---|---|---|---|---|"
  for pl in block scattered rr8; do for m in 4096 262144; do
    awk -F, -v pl="$pl" -v m="$m" '$17 == "r" {t[$4] = $19 / 1000}
      END {printf "| %s | %d KB | %.2f | %.2f | %+.0f %% | %.2f | %.2f | %+.0f %% |\n", pl,
           m / 1024, t["ring"], t["ring_topo"], 100 * (1 - t["ring_topo"] / t["ring"]),
           t["recursive_doubling"], t["rd_topo"],
           100 * (1 - t["rd_topo"] / t["recursive_doubling"])}' "$OUT/$pl-$m.csv"
  done; done
  echo
  awk -F, 'NR == 2 {printf "Measuring the distances: %d node pairs, %.3f s simulated = %.3f of one native allgather of 2 MB per rank (%.3f s).\n", $5, $4, $8, $7}' "$OUT/cost.csv"
} > "$OUT/summary.md"
cat "$OUT/summary.md" >&2
say "done: $OUT/summary.md"
