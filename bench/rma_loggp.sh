#!/usr/bin/env bash
# LogGP parameters for the one-sided broadcast's model (bench/rma_loggp.c):
# SMPI ib-6x8 and gige-18x8 (9 ranks: peer 1 on the same node, peer 8 on
# the next) and real Open MPI on this machine (4 ranks, peer 1).
# Writes docs/results/rma/loggp.csv (platform,peer,what,bytes,us); each run
# takes the machine's heavy lock by itself.
# usage: bench/rma_loggp.sh [smpi|real|all]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/bench/mpi_env.sh"
OUT="${RMA_LOGGP_CSV:-$ROOT/docs/results/rma/loggp.csv}"
which="${1:-all}"
[ -f "$OUT" ] || echo "platform,peer,what,bytes,us" > "$OUT"
if [ "$which" = smpi ] || [ "$which" = all ]; then
  for plat in ib-6x8 gige-18x8; do
    sed -i "/^$plat,/d" "$OUT"
    flock /tmp/collx-heavy.lock "$ROOT/sim/run" "$plat" 9 -- \
      "$ROOT/build/smpi/bench/rma_loggp" "$OUT" "$plat" 1,8 5
  done
fi
if [ "$which" = real ] || [ "$which" = all ]; then
  sed -i "/^real-openmpi,/d" "$OUT"
  flock /tmp/collx-heavy.lock $(mpi_launcher openmpi) -n 4 \
    "$ROOT/build/openmpi/bench/rma_loggp" "$OUT" real-openmpi 1 200
fi
echo "[rma] LogGP measurements in $OUT" >&2
