#!/usr/bin/env bash
# Hierarchical paper (Parsons & Pai 2014) study in SMPI: flat native (SMPI's
# Open-MPI-like selection), SMPI's own SMP-aware built-ins where they exist
# (the anchors' ideas, as peers) and collx's hier and hier_ms (several
# senders per node, its default k), and for allgather hier with Bruck
# leaders (hier+bruck: COLLX_HIER_INTER=bruck; "hier" runs the MPI's own
# leaders' collective: COLLX_HIER_INTER=native), per collective, process
# count and size, on fattree-256x16 (16 ranks per node).
#   bench/hier_sweep.sh [OUT]    writes OUT/csv/*.csv and OUT/hier.csv
# env: PS ("256 1024"), COLLS, SIZES (bytes per rank), ITERS (2; runs without
#      random delays are deterministic), RESUME=1 keeps cells already done,
#      LOCK=file runs each simulation under flock (machines shared by jobs),
#      TIMEOUT (1200 s of host time per simulation), VARIANTS (all: native
#      smpi hier hier+bruck hier_ms; "smpi" = SMPI's SMP-aware built-ins).
# A cell = one simulation (collective, p, variant) over all SIZES; a line on
# stderr says when each starts and ends. Host time per cell (all sizes, on
# this machine): p=1024 1-3 min; p=4096 3-8 min up to 512 B per rank, while
# flat allgather at 4 KiB does not finish in 15 minutes and flat
# reduce_scatter_block at 4 KiB runs out of memory (TIMEOUT, FAILED lines).
# Flat alltoallv at p = 1024 is SMPI's pairwise (its default needs more
# than 24 GB). Alltoallv at p >= 2048 and the largest allgather/alltoallv sizes need
# more than this machine's memory for the receive buffers and node
# segments; they are left out (SKIP lines).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/results/hier}"
BIN="$ROOT/build/smpi/bench/collbench"
PLAT=fattree-256x16
PS="${PS:-256 1024}"
COLLS="${COLLS:-allgather alltoallv reduce_scatter_block bcast allreduce}"
SIZES="${SIZES:-8 64 512 4096 32768}"
ITERS="${ITERS:-2}"
[ -x "$BIN" ] || { echo "hier_sweep: build first (./run build)" >&2; exit 2; }
mkdir -p "$OUT/csv"
# SMPI's shared receive buffers are mapped 1 MiB at a time: p = 4096 at
# 4 KiB per rank needs more maps than Linux's default 65530.
if [ "$(cat /proc/sys/vm/max_map_count)" -lt 1048576 ]; then
  if [ "$(id -u)" = 0 ]; then sysctl -qw vm.max_map_count=4194304
  else echo "hier_sweep: vm.max_map_count is low; large p runs may abort (sysctl -w vm.max_map_count=4194304)" >&2; fi
fi

# SMPI's SMP-aware algorithms for a collective (none: no peer).
peers() {
  case "$1" in
    allgather) echo "smp_simple SMP_NTS" ;;
    bcast) echo "SMP_binomial SMP_linear" ;;
    allreduce) echo "smp_rsag smp_rdb smp_binomial" ;;
    *) echo "" ;;
  esac
}

# Sizes a cell can afford: per rank, receive buffers of p x size (allgather,
# alltoallv, reduce_scatter_block) are shared by collbench, but the node
# segments are real: 256 nodes x (16 x p x size x 2) for alltoallv.
fits() {  # coll p size
  local c=$1 p=$2 s=$3 node
  case "$c" in
    alltoallv) node=$(( 16 * p * s * 2 )) ;;
    allgather|reduce_scatter_block) node=$(( p * s * 2 )) ;;
    *) node=$(( s * 2 )) ;;
  esac
  [ $(( node * (p / 16) )) -le $(( 8 * 1024 * 1024 * 1024 )) ]
}

cells() {
  for p in $PS; do
    for c in $COLLS; do
      [ "$c" = alltoallv ] && [ "$p" -gt 1024 ] && { echo "SKIP $c p=$p (flat alltoallv: p^2 messages)" >&2; continue; }
      if [ "$c" = alltoallv ] && [ "$p" -ge 1024 ]; then
        # SMPI's choice there (basic_linear: p - 1 requests per rank at
        # once) needs more than 24 GB at p = 1024; its pairwise is flat too
        echo "SKIP $c p=$p native (more than 24 GB); flat = smpi:pair" >&2
        echo "$c $p smpi:pair native"
      else
        echo "$c $p native native"
        for x in $(peers "$c"); do echo "$c $p smpi:$x native"; done
      fi
      echo "$c $p hier hier"
      case "$c" in allgather|allgatherv) echo "$c $p hier+bruck hier" ;; esac
      case "$c" in bcast|allgather|allgatherv|allreduce|alltoall|alltoallv|reduce_scatter_block)
        echo "$c $p hier_ms hier_ms" ;; esac
    done
  done
}

# VARIANTS keeps some variants only (SMPI's smp_simple takes more than 20
# minutes of host time at p = 4096).
wanted() {
  [ -z "${VARIANTS:-}" ] && return 0
  local v=$1; [ "${v#smpi:}" != "$v" ] && v=smpi
  case " $VARIANTS " in *" $v "*) return 0 ;; esac
  return 1
}
cells_wanted() {
  cells | while read -r c p v alg; do
    if wanted "$v"; then echo "$c $p $v $alg"; fi
  done
}

TOTAL=$(cells_wanted 2>/dev/null | wc -l)
i=0
while read -r c p variant alg; do
  i=$((i + 1))
  csv="$OUT/csv/$c-$p-$(echo "$variant" | tr ':+' '__').csv"
  if [ "${RESUME:-0}" = 1 ] && [ -s "$csv" ]; then
    echo "hier_sweep: [$i/$TOTAL] $c p=$p $variant: kept" >&2
    continue
  fi
  sizes=""
  for s in $SIZES; do fits "$c" "$p" "$s" && sizes="$sizes $s"; done
  [ -n "$sizes" ] || { echo "hier_sweep: [$i/$TOTAL] $c p=$p: SKIP (no size fits in memory)" >&2; continue; }
  flags=""
  [ "${variant#smpi:}" != "$variant" ] && flags="--cfg=smpi/$c:${variant#smpi:}"
  t0=$SECONDS
  echo "hier_sweep: [$i/$TOTAL] $c p=$p $variant, sizes$sizes ..." >&2
  rm -f "$csv.part"
  ok=1
  for s in $sizes; do
    # hier: the MPI's own leaders' collective (the paper's setting);
    # hier+<alg>: collx's <alg>; hier_ms: collx's default (Bruck
    # allgatherv leaders from 64 nodes on)
    inter=""; [ "$variant" = hier ] && inter=native
    [ "${variant#*+}" != "$variant" ] && inter="${variant#*+}"
    if ! COLLX_HIER_INTER="$inter" SMPI_FLAGS="$flags" COLLX_PLATFORM="$PLAT" \
         ${LOCK:+flock "$LOCK"} timeout "${TIMEOUT:-1200}" \
         "$ROOT/sim/run" "$PLAT" "$p" -- \
         "$BIN" --coll "$c" --algs "$alg" -m "$s:$s" -x 1 -i "$ITERS" -q \
         --csv "$csv.one" > "${csv%.csv}.log" 2>&1; then
      echo "hier_sweep:   $c p=$p $variant size $s FAILED (see $OUT/csv/*.log)" >&2
      ok=0
      continue
    fi
    # the variant's name in the alg column (smpi:<name> for SMPI's own)
    awk -F, -v v="$variant" 'NR == 1 {for (k = 1; k <= NF; k++) if ($k == "alg") a = k; print; next}
                             {$a = v; print}' OFS=, "$csv.one" |
      { [ -s "$csv.part" ] && tail -n +2 || cat; } >> "$csv.part"
    rm -f "$csv.one"
  done
  [ -s "$csv.part" ] && mv "$csv.part" "$csv"
  echo "hier_sweep: [$i/$TOTAL] $c p=$p $variant done in $((SECONDS - t0)) s$([ $ok = 1 ] || echo ', with failures')" >&2
done < <(cells_wanted)

# One CSV of everything (the header once).
first=1
for f in "$OUT"/csv/*.csv; do
  [ -s "$f" ] || continue
  if [ $first = 1 ]; then cat "$f"; first=0; else tail -n +2 "$f"; fi
done > "$OUT/hier.csv"
echo "hier_sweep: $OUT/hier.csv ($(($(wc -l < "$OUT/hier.csv") - 1)) rows)" >&2
