#!/usr/bin/env bash
# Topology paper (Bhowmik & Bodele 2019) Figs. 2-6 in SMPI: allgather on
# cse-2switch-30x8 (30 nodes x 8 cores, two 1 Gbps switches joined by one
# uplink), ring and recursive doubling with and without topology reordering
# (paper mappings and collx's hier mappings), native as reference, for the
# placements users get:
#   block      ranks fill the nodes, nodes in switch order (default hostfile)
#   scattered  nodes taken alternately from the two switches, ranks fill them
#   rr         --map-by node: ranks dealt round-robin over the block nodes
# at 4, 8, 16, 30 nodes (8 ranks each), message sizes 1-16 KB and
# 128-2048 KB per rank. Also the cost of measuring the distances (first
# call) vs one allgather. Writes OUT/topo.csv (collbench rows + placement,
# nodes, map columns) and OUT/csv/*.csv; progress on stderr.
#   bench/topo_sweep.sh [OUT]   env: NODES ("4 8 16 30"), PLACEMENTS
#   ("block scattered rr"), SIZES (see sizes_for), ITERS (1),
#   JOBS (1), RESUME=1 (keep cells already in OUT/csv). Simulations
#   over ~30 s take the machine's heavy lock (/tmp/collx-heavy.lock; LOCK=
#   to skip).
# Runs are deterministic (no random delays): 1 warm-up + 1 iteration give
# the same numbers as many; the warm-up call pays the distance measurement.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/docs/results/topo}"
BIN="$ROOT/build/smpi/bench/collbench"
COST="$ROOT/build/smpi/bench/topo_cost"
NODES="${NODES:-4 8 16 30}"
PLACEMENTS="${PLACEMENTS:-block scattered rr}"
# Algorithms whose pieces are not contiguous (rd_topo: hindexed types) make
# SMPI touch every page of the shared receive buffers (p x p x size bytes of
# page faults, ~40 s of host time at p=64, 2 MB): large sizes are cut at 16
# and 30 nodes unless SIZES is set.
sizes_for() {
  if [ -n "${SIZES:-}" ]; then echo "$SIZES"; return; fi
  case "$1" in
    4|8) echo "1024:16384 131072:2097152" ;;
    16) echo "1024:16384 131072:262144" ;;
    *) echo "1024:16384 131072:131072" ;;
  esac
}
ITERS="${ITERS:-1}" JOBS="${JOBS:-1}"
PLAT=cse-2switch-30x8
# p=240 x 480 MB of shared receive buffers in 1 MiB folds passes the
# kernel's map count: fold in 64 MiB blocks.
export SMPI_FLAGS="${SMPI_FLAGS:-} --cfg=smpi/shared-malloc-blocksize:67108864"
LOCK="${LOCK-/tmp/collx-heavy.lock}"
[ -x "$BIN" ] && [ -x "$COST" ] || { echo "topo_sweep: build first (./run build)" >&2; exit 2; }
mkdir -p "$OUT/csv"

hostfile() {  # placement nodes
  case "$1" in block) echo "" ;; scattered) echo scattered ;; rr) echo "rr$2" ;; esac
}

one() {  # index placement nodes map sizes
  local i=$1 pl=$2 n=$3 map=$4 sizes=$5 t0=$SECONDS
  local np=$((n * 8)) tag="$pl-$n-$map-${sizes/:/-}"
  local csv="$OUT/csv/$tag.csv" algs="native,ring,recursive_doubling,ring_topo,rd_topo"
  [ "$map" = hier ] && algs="ring_topo,rd_topo"
  if [ "${RESUME:-0}" = 1 ] && [ -s "$csv" ]; then
    echo "topo_sweep: [$i/$TOTAL] $tag: kept" >&2; return 0
  fi
  local heavy=0 max=${sizes#*:}
  { [ "$np" -ge 128 ] || { [ "$np" -ge 64 ] && [ "$max" -ge 131072 ]; }; } && heavy=1
  if ! SIM_HOSTFILE="$(hostfile "$pl" "$n")" COLLX_TOPO_MAP="$map" \
      timeout 3600 bash -c 'sim "$@"' _ "$heavy" "$PLAT" "$np" -- "$BIN" --coll allgather --algs "$algs" \
      -m "$sizes" -i "$ITERS" -x 1 -q --csv "$csv.part" > /dev/null; then
    echo "topo_sweep: [$i/$TOTAL] $tag: FAILED" >&2; return 1
  fi
  # placement, nodes, map in front of every row
  awk -v pl="$pl" -v n="$n" -v m="$map" -F, 'NR == 1 {print "placement,nodes,map," $0; next}
       {print pl "," n "," m "," $0}' "$csv.part" > "$csv" && rm -f "$csv.part"
  echo "topo_sweep: [$i/$TOTAL] $tag (p=$np): $((SECONDS - t0)) s" >&2
}

cost() {  # index placement nodes
  local i=$1 pl=$2 n=$3 t0=$SECONDS csv="$OUT/csv/cost-$2-$3.csv"
  if [ "${RESUME:-0}" = 1 ] && [ -s "$csv" ]; then
    echo "topo_sweep: [$i/$TOTAL] cost $pl $n: kept" >&2; return 0
  fi
  SIM_HOSTFILE="$(hostfile "$pl" "$n")" sim $(( n >= 16 )) "$PLAT" $((n * 8)) -- "$COST" \
    2097152 "$pl" > "$csv.part" && mv "$csv.part" "$csv"
  echo "topo_sweep: [$i/$TOTAL] cost $pl $n: $((SECONDS - t0)) s" >&2
}
# HEAVY PLATFORM NP -- ...: heavy simulations (over ~30 s of host time:
# p >= 128, or p = 64 with large messages) take the lock.
sim() {
  local heavy=$1; shift
  if [ -n "$LOCK" ] && [ "$heavy" = 1 ]; then flock "$LOCK" "$ROOT/sim/run" "$@"
  else "$ROOT/sim/run" "$@"; fi
}
export -f one cost hostfile sim
set -- $PLACEMENTS; NPL=$#; TOTAL=0
for n in $NODES; do set -- $(sizes_for "$n"); TOTAL=$(( TOTAL + NPL * ($# * 2 + 1) )); done
export ROOT OUT BIN COST ITERS PLAT TOTAL LOCK
echo "topo_sweep: $TOTAL simulations ($PLAT, $JOBS at a time) -> $OUT" >&2
i=0
for n in $NODES; do for pl in $PLACEMENTS; do
  echo "cost $((i += 1)) $pl $n"
  for s in $(sizes_for "$n"); do for map in paper hier; do
    echo "one $((i += 1)) $pl $n $map $s"
  done; done
done; done | xargs -P "$JOBS" -L 1 bash -c '"$@"' _ || echo "topo_sweep: some runs failed" >&2
first=$(ls "$OUT"/csv/*-paper-*.csv | head -1)
head -1 "$first" > "$OUT/topo.csv"
for f in "$OUT"/csv/*-paper-*.csv "$OUT"/csv/*-hier-*.csv; do tail -n +2 "$f"; done >> "$OUT/topo.csv"
echo "placement,nodes,p,measure_s,pairs,allgather_bytes,allgather_s,ratio" > "$OUT/cost.csv"
cat "$OUT"/csv/cost-*.csv | grep -v '^placement' >> "$OUT/cost.csv" || true
echo "topo_sweep: wrote $OUT/topo.csv and $OUT/cost.csv" >&2
