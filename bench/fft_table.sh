#!/usr/bin/env bash
# PAP paper Table 5: the parallel FFT (apps/fft) with every gather
# algorithm, 8 ranks, 256K floats per iteration; in SMPI on 8 tryton-1gbe-48
# nodes and on this machine with real MPI. Writes OUT/fft.csv and
# OUT/fft_table.md (with the paper's Table 5 beside).
#   bench/fft_table.sh [OUT]   env: ITERS (SMPI, 1000 as the paper),
#                              REAL_ITERS (200), REAL (openmpi; "" = skip),
#                              REAL_REPS (5: real runs, averaged; SMPI is
#                              deterministic without NOISE, one run),
#                              GFLOPS (0.04: SMPI compute rate of a rank),
#                              NOISE (0: compute stretched by up to NOISE)
# GFLOPS=0.04 makes the computation about 60 % of an iteration in SMPI
# (the paper: 43.5 s of 64.9 s); on real MPI the computation is real.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/results/fft}"
ITERS="${ITERS:-1000}" REAL_ITERS="${REAL_ITERS:-200}" REAL="${REAL-openmpi}"
REAL_REPS="${REAL_REPS:-5}"
GFLOPS="${GFLOPS:-0.04}" NOISE="${NOISE:-0}"
mkdir -p "$OUT"
echo "fft_table: SMPI, 8 nodes, $ITERS iterations per algorithm" >&2
"$ROOT/sim/run" tryton-1gbe-48 8 -- "$ROOT/build/smpi/apps/fft/fft" -i "$ITERS" --gflops "$GFLOPS" --noise "$NOISE" \
  | tee "$OUT/smpi.txt" >&2
if [ -n "$REAL" ]; then
  echo "fft_table: real MPI ($REAL), 8 ranks, $REAL_ITERS iterations per algorithm," \
       "$REAL_REPS runs" >&2
  . "$ROOT/bench/mpi_env.sh"
  LAUNCH="$(mpi_launcher "$REAL")"
  rm -f "$OUT"/real*.txt
  for rep in $(seq "$REAL_REPS"); do
    OMP_NUM_THREADS=1 timeout 1800 $LAUNCH -n 8 "$ROOT/build/$REAL/apps/fft/fft" \
      -i "$REAL_ITERS" --noise "$NOISE" | tee "$OUT/real-$rep.txt" >&2
  done
fi
/usr/bin/python3 "$ROOT/bench/fft_table.py" "$OUT" > "$OUT/fft_table.md"
echo "fft_table: $OUT/fft_table.md"
