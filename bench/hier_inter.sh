#!/usr/bin/env bash
# hier's leaders' collective: the MPI's own (default) vs a collx algorithm
# (COLLX_HIER_INTER, default bruck), beside flat native, in SMPI on
# fattree-256x16. One simulation per (p, variant) over all SIZES.
#   bench/hier_inter.sh [OUT.csv]   (default docs/results/hier/inter.csv)
# env: PS ("256 1024"), COLL (allgather), INTER (bruck), M (bytes per rank,
#      powers of two MIN:MAX, default 8:4096)
# Columns: coll,p,bytes,variant,us (run time r, mean of 2 deterministic runs).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/docs/results/hier/inter.csv}"
BIN="$ROOT/build/smpi/bench/collbench"
COLL="${COLL:-allgather}"; INTER="${INTER:-bruck}"
M="${M:-8:4096}"
[ -x "$BIN" ] || { echo "hier_inter: build first (./run build)" >&2; exit 2; }
echo "coll,p,bytes,variant,us" > "$OUT"
for p in ${PS:-256 1024}; do
  for variant in native hier "hier+$INTER"; do
    alg=${variant%%+*}; tmp=$(mktemp); t0=$SECONDS
    echo "[hier_inter] $COLL p=$p $variant ..." >&2
    inter=""; [ "$variant" = "hier+$INTER" ] && inter="$INTER"
    COLLX_HIER_INTER="$inter" flock /tmp/collx-heavy.lock "$ROOT/sim/run" fattree-256x16 "$p" -- "$BIN" --coll "$COLL" \
      --algs "$alg" -m "$M" -x 1 -i 2 -f -q --csv "$tmp" > /dev/null
    awk -F, -v c="$COLL" -v p="$p" -v v="$variant" \
      'NR > 1 && $17 == "r" {print c "," p "," $8 "," v "," $20}' "$tmp" >> "$OUT"
    rm -f "$tmp"
    echo "[hier_inter] $COLL p=$p $variant: $((SECONDS - t0)) s" >&2
  done
done
column -s, -t < "$OUT"
