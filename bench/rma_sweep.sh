#!/usr/bin/env bash
# One-sided broadcast sweep (Paznikov 2024, Figs. 9-12) in SMPI: rma_linear,
# rma_binomial, native MPI_Bcast and collx's two-sided binomial, root 0,
# 5 warm-ups + 10 runs (collbench), on ib-6x8 (m = 2..32 MiB, p = 8..48) and
# gige-18x8 (m = 2..32 KiB, p = 8..96); powers of two in m (collbench -m).
# Appends to docs/results/rma/sweep.csv (platform,p,m,alg,min,median,mean,max
# in us; r = the time until the last rank finished, collbench's metric r);
# resumable: a (platform, p) already in the CSV is skipped.
# `real`: real MPI on this machine instead (REAL_MPI=openmpi|mpich, default
# openmpi; REAL_P ranks, default 4, m = REAL_M, default 2 KiB..4 MiB: LL and
# PutRequest, 5 warm-ups + 50 runs), rewriting the real-<mpi> rows of
# docs/results/rma/real_<mpi>.csv (RMA_REAL_CSV).
# RMA_ALGS: the algorithms (default native,binomial,rma_linear,rma_binomial);
# COLLX_RMA_LL_MAX=0 measures the paper's PutRequest for every size.
# usage: bench/rma_sweep.sh [ib|gige|real|all]   (each run takes the
#        machine's heavy lock, /tmp/collx-heavy.lock, by itself)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CB="$ROOT/build/smpi/bench/collbench"
OUT="${RMA_CSV:-$ROOT/docs/results/rma/sweep.csv}"
ALGS="${RMA_ALGS:-native,binomial,rma_linear,rma_binomial}"
which="${1:-all}"
[ -x "$CB" ] || { echo "build SMPI first: ./run build" >&2; exit 1; }
[ -f "$OUT" ] || echo "platform,p,m,alg,min,median,mean,max" > "$OUT"

run_point() {   # platform p mmin mmax
  local plat=$1 p=$2 tmp
  if grep -q "^$plat,$p," "$OUT"; then echo "[rma] $plat p=$p: in $OUT, skipped" >&2; return; fi
  tmp=$(mktemp)
  local t0=$SECONDS
 flock /tmp/collx-heavy.lock "$ROOT/sim/run" "$plat" "$p" -- "$CB" --coll bcast --algs "$ALGS" -m "$3:$4" \
      -x 5 -i 10 -f -q --csv "$tmp" > /dev/null
  awk -F, -v plat="$plat" 'NR > 1 && $17 == "r" {print plat "," $5 "," $8 "," $4 "," $18 "," $19 "," $20 "," $21}' \
      "$tmp" >> "$OUT"
  rm -f "$tmp"
  echo "[rma] $plat p=$p m=$3..$4: $((SECONDS - t0)) s" >&2
}

# The full grid is long in SMPI (every put copies its bytes for real: p=48
# at 32 MiB took over 3 minutes for one point on the shared 2-core machine);
# the defaults are the affordable subset, RMA_FULL=1 the paper's grid.
if [ "${RMA_FULL:-0}" = 1 ]; then
  IB_P="8 16 24 32 40 48"; IB_M="2097152 33554432"
  GIGE_P="8 16 24 32 40 48 56 64 72 80 88 96"
else
  IB_P="${IB_P:-8 16 32 48}"; IB_M="2097152 8388608"
  GIGE_P="${GIGE_P:-8 32 64 96}"
fi
if [ "$which" = real ]; then
  . "$ROOT/bench/mpi_env.sh"
  mpi="${REAL_MPI:-openmpi}"
  REAL="${RMA_REAL_CSV:-$ROOT/docs/results/rma/real_$mpi.csv}"
  RCB="$ROOT/build/$mpi/bench/collbench"
  [ -x "$RCB" ] || { echo "build first: COLLX_MPI=$mpi ./run build" >&2; exit 1; }
  # MPICH never yields the CPU while it waits: on 2 cores it needs the
  # test preload that makes it (as ./run does for its tests).
  yield_lib="$ROOT/build/$mpi/tests/contract/libcollx_test_yield.so"
  if [ "$mpi" = mpich ] && [ -f "$yield_lib" ]; then
    export LD_PRELOAD="$yield_lib${LD_PRELOAD:+:$LD_PRELOAD}"
  fi
  [ -f "$REAL" ] || echo "platform,p,m,alg,min,median,mean,max" > "$REAL"
  sed -i "/^real-$mpi,/d" "$REAL"
  for p in ${REAL_P:-4}; do
    tmp=$(mktemp); t0=$SECONDS
    flock /tmp/collx-heavy.lock $(mpi_launcher "$mpi") -n "$p" "$RCB" --coll bcast \
      --algs "$ALGS" -m "${REAL_M:-2048:4194304}" -x 5 -i 50 -f -q --csv "$tmp" > /dev/null
    awk -F, -v p="$p" -v plat="real-$mpi" \
        'NR > 1 && $17 == "r" {print plat "," p "," $8 "," $4 "," $18 "," $19 "," $20 "," $21}' \
        "$tmp" >> "$REAL"
    rm -f "$tmp"
    echo "[rma] real $mpi p=$p: $((SECONDS - t0)) s -> $REAL" >&2
  done
  exit 0
fi
if [ "$which" = ib ] || [ "$which" = all ]; then
  for p in $IB_P; do run_point ib-6x8 "$p" $IB_M; done
fi
if [ "$which" = gige ] || [ "$which" = all ]; then
  for p in $GIGE_P; do run_point gige-18x8 "$p" 2048 32768; done
fi
echo "[rma] results in $OUT" >&2
