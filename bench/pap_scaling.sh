#!/usr/bin/env bash
# PAP paper Fig. 17 in SMPI: run time of the scatter and gather algorithms
# against the number of processes/nodes (4 ... 48) on tryton-1gbe-48, one
# vector size and one maximum delay. Writes OUT/pap_scaling.csv (collbench
# CSV rows, column p) by running bench/pap_sweep.sh once per process count.
#   bench/pap_scaling.sh [OUT]   env: NPS, SIZE (K floats, 2048), DELAY (ms, 50), ITERS (16), JOBS (2)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/results/pap_scaling}"
NPS="${NPS:-4 6 8 10 12 16 20 24 28 32 36 40 44 48}"
SIZE="${SIZE:-2048}" DELAY="${DELAY:-50}"
mkdir -p "$OUT"
: > "$OUT/pap_scaling.csv"
for np in $NPS; do
  echo "pap_scaling: p=$np" >&2
  NP=$np SIZES=$SIZE DELAYS=$DELAY "$ROOT/bench/pap_sweep.sh" "$OUT/p$np" 2>/dev/null >/dev/null
  if [ -s "$OUT/pap_scaling.csv" ]; then tail -n +2 "$OUT/p$np/pap.csv"; else cat "$OUT/p$np/pap.csv"; fi \
    >> "$OUT/pap_scaling.csv"
done
echo "pap_scaling: $OUT/pap_scaling.csv"
