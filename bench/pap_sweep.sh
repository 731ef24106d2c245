#!/usr/bin/env bash
# PAP paper (Proficz 2020) Tables 3-4 in SMPI: scatter (linear, binomial,
# slin, sbn, bsln, bsbn) and gather (linear_sync, binomial, sls, sbn, bsls,
# bsbn) on tryton-1gbe-48, total vector N = 128K..2M floats, uniform PAPs
# with max delay 0..500 ms. Writes OUT/pap.csv and OUT/pap_tables.md.
#   bench/pap_sweep.sh [OUT]     env: ITERS (16), SIZES, DELAYS, NP (48), JOBS (2)
# REAL=openmpi (or mpich) runs the same sweep on this machine with mpirun
# instead of SMPI (one run at a time; NP defaults to 8 there). RESUME=1 keeps
# the cells whose CSV is already in OUT (an interrupted sweep goes on).
# The paper ran 128-256 iterations: ITERS=128 takes about 25 min on 2 cores.
# The "0 ms" column runs with a 1 us maximum delay (collbench needs > 0),
# so PAT prediction and exchange still run for every algorithm.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/results/pap}"
REAL="${REAL:-}"
if [ -n "$REAL" ]; then
  NP="${NP:-8}" JOBS=1 BIN="$ROOT/build/$REAL/bench/collbench"
  . "$ROOT/bench/mpi_env.sh"
  LAUNCH="$(mpi_launcher "$REAL") -n $NP"
else
  NP="${NP:-48}" BIN="$ROOT/build/smpi/bench/collbench"
  LAUNCH="$ROOT/sim/run tryton-1gbe-48 $NP --"
fi
ITERS="${ITERS:-16}" JOBS="${JOBS:-2}"
SIZES="${SIZES:-128 256 512 1024 2048}"          # K floats, whole vector
DELAYS="${DELAYS:-0 1 5 10 50 100 500}"           # ms
[ -x "$BIN" ] || { echo "pap_sweep: build first (./run build)" >&2; exit 2; }
mkdir -p "$OUT/csv"

one() {  # index coll algs kfloats delay
  local i=$1 coll=$2 algs=$3 k=$4 d=$5 t0=$SECONDS
  if [ "${RESUME:-0}" = 1 ] && [ -s "$OUT/csv/$coll-$k-$d.csv" ]; then
    echo "pap_sweep: [$i/$TOTAL] $coll ${k}K floats, max delay ${d} ms: kept" >&2
    return 0
  fi
  local bytes=$(( (k * 1024 / NP) * 4 ))   # floats per rank, as bytes
  local md="${d}ms"; [ "$d" = 0 ] && md="1us"
  local csv="$OUT/csv/$coll-$k-$d.csv"
  if ! timeout 1800 $LAUNCH "$BIN" --coll "$coll" --algs "$algs" \
      -m "$bytes" -i "$ITERS" -x 2 --pap uniform --max-delay "$md" --seed 7 -q \
      --csv "$csv.part" >/dev/null; then
    echo "pap_sweep: [$i/$TOTAL] $coll ${k}K floats, max delay ${d} ms: FAILED" >&2
    return 1
  fi
  mv "$csv.part" "$csv"   # whole files only: RESUME keeps what is there
  echo "pap_sweep: [$i/$TOTAL] $coll ${k}K floats, max delay ${d} ms: $((SECONDS - t0)) s" >&2
}
export -f one
set -- $SIZES; NS=$#; set -- $DELAYS
TOTAL=$(( NS * $# * 2 ))
export ROOT NP ITERS BIN OUT TOTAL LAUNCH
echo "pap_sweep: $TOTAL simulations (p=$NP, $ITERS iterations each, $JOBS at a time) -> $OUT" >&2
i=0
for k in $SIZES; do for d in $DELAYS; do
  echo "$((i += 1)) scatter linear,binomial,slin,sbn,bsln,bsbn $k $d"
  echo "$((i += 1)) gather linear_sync,binomial,sls,sbn,bsls,bsbn $k $d"
done; done | xargs -P "$JOBS" -L 1 bash -c 'one "$@"' _ || echo "pap_sweep: some runs failed" >&2
head -1 "$(ls "$OUT"/csv/*.csv | head -1)" > "$OUT/pap.csv"
for f in "$OUT"/csv/*.csv; do tail -n +2 "$f"; done >> "$OUT/pap.csv"
/usr/bin/python3 "$ROOT/bench/pap_tables.py" "$OUT/pap.csv" > "$OUT/pap_tables.md"
echo "pap_sweep: $OUT/pap_tables.md"
