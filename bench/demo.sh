#!/usr/bin/env bash
# bench/demo.sh — the collx demo (./run demo calls it after the build).
#  1. a short real-MPI sweep on this machine (NP ranks): every registered
#     algorithm vs native for a few collectives;
#  2. SMPI sweeps at the papers' scale, every registered algorithm of each
#     collective (new families show up automatically):
#     - Träff Table 1 shape: Gatherv and Scatterv, p=560 on ib-qdr-36x16,
#       root p/2, six problem types, b = 1..10000, guidelines checked;
#     - RMA paper: bcast on ib-6x8 (p=48) and gige-18x8 (p=96);
#     - topology paper: allgather on cse-2switch-30x8 (p=240);
#     - hierarchical paper: allgather/alltoallv/reduce_scatter_block on the
#       fat tree (p=256, 16 per node);
#     - PAP paper: scatter/gather with random arrival delays on
#       tryton-1gbe-48 (bench/pap_sweep.sh, reduced);
#  3. python/report.py writes results/<date>/report.md with tables + PNGs.
# SMPI runs without delays are deterministic: -x 1 -i 3 there.
# Env: COLLX_MPI (openmpi|mpich), NP (real ranks, 4), JOBS (parallel SMPI
# runs, nproc), DEMO_QUICK=1 (skip the scatterv table and PAP sweep).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MPI="${COLLX_MPI:-openmpi}"
NP="${NP:-4}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
PY=/usr/bin/python3
OUT="$ROOT/results/$(date +%Y-%m-%d)"
REAL="$ROOT/build/$MPI/bench/collbench"
SIM="$ROOT/build/smpi/bench/collbench"
SIMRUN="$ROOT/sim/run"
for b in "$REAL" "$SIM"; do
  [ -x "$b" ] || { echo "demo: $b missing; run ./run build first" >&2; exit 2; }
done
. "$ROOT/bench/mpi_env.sh"
LAUNCHER="$(mpi_launcher "$MPI")" || exit 2
read -r -a MPIEXEC <<< "$LAUNCHER -n $NP"
rm -rf "$OUT/real" "$OUT/smpi" "$OUT/pap" "$OUT/fft" "$OUT"/*.png "$OUT/timings.txt"
mkdir -p "$OUT/real" "$OUT/smpi" "$OUT/log"
T0=$(date +%s)
step() { echo "[demo $(( $(date +%s) - T0 ))s] $*" >&2; }
timed() {  # name command...: runs, logs, records the wall time
  local name=$1; shift
  local s=$(date +%s)
  if ! "$@" > "$OUT/log/$name.txt" 2>&1; then
    echo "demo: step $name failed; see $OUT/log/$name.txt" >&2
    tail -5 "$OUT/log/$name.txt" >&2
    echo "$name: FAILED" >> "$OUT/timings.txt"
    return 0
  fi
  printf "%-28s %4d s\n" "$name" $(( $(date +%s) - s )) >> "$OUT/timings.txt"
}

# ---- 1. real MPI on this machine ----------------------------------------
step "real MPI ($MPI, $NP ranks)"
for c in gather scatter bcast allgather gatherv alltoallv reduce_scatter_block; do
  timed "real_$c" "${MPIEXEC[@]}" "$REAL" --coll "$c" -m 8:64K -i 30 -x 3 -c -q \
    --csv "$OUT/real/$c.csv"
done

# ---- 2. SMPI at the papers' scale ----------------------------------------
step "SMPI sweeps ($JOBS in parallel)"
PROBS=same,random,spikes,decreasing,alternating,twoblocks
BS=1,10,100,1000,10000
smpi_jobs() {
  # name platform np collbench-args... (one per line, run by xargs)
  echo "traff_gatherv ib-qdr-36x16 560 --coll gatherv --guidelines --guide-algs native,linear,binomial --g2-algs native,binomial --problem $PROBS -b $BS -x 1 -i 2"
  [ "${DEMO_QUICK:-0}" = 1 ] ||
  echo "traff_scatterv ib-qdr-36x16 560 --coll scatterv --guidelines --guide-algs native,linear,binomial --g2-algs native,binomial --problem $PROBS -b $BS -x 1 -i 2"
  echo "sweep_bcast_ib-6x8 ib-6x8 48 --coll bcast -m 2K:32M -x 1 -i 3"
  echo "sweep_bcast_gige-18x8 gige-18x8 96 --coll bcast -m 2K:64K -x 1 -i 3"
  echo "sweep_allgather_cse-2switch cse-2switch-30x8 240 --coll allgather -m 64:4K -x 1 -i 2"
  echo "sweep_allgather_fattree fattree-256x16 256 --coll allgather -m 64:2K -x 1 -i 2"
  echo "sweep_alltoallv_fattree fattree-256x16 256 --coll alltoallv -m 64:1K -x 1 -i 2"
  echo "sweep_reduce_scatter_block_fattree fattree-256x16 256 --coll reduce_scatter_block -m 64:4K -x 1 -i 2"
}
one_smpi() {
  local name=$1 plat=$2 np=$3; shift 3
  local s=$(date +%s)
  if "$SIMRUN" "$plat" "$np" -- "$SIM" -q --csv "$OUT/smpi/$name.csv" "$@" \
       > "$OUT/log/$name.txt" 2>&1; then
    printf "%-28s %4d s  (%s, p=%s)\n" "$name" $(( $(date +%s) - s )) "$plat" "$np" >> "$OUT/timings.txt"
  else
    echo "demo: SMPI step $name failed; see $OUT/log/$name.txt" >&2
    echo "$name: FAILED" >> "$OUT/timings.txt"
  fi
}
export -f one_smpi
export SIMRUN SIM OUT
smpi_jobs | xargs -P "$JOBS" -L 1 bash -c 'one_smpi "$@"' _

if [ "${DEMO_QUICK:-0}" != 1 ] && [ -x "$ROOT/bench/pap_sweep.sh" ]; then
  step "PAP sweep (tryton-1gbe-48, 2M floats, max delay 0/50 ms)"
  timed pap_sweep env SIZES=2048 DELAYS="0 50" ITERS=8 JOBS="$JOBS" \
    "$ROOT/bench/pap_sweep.sh" "$OUT/pap"
  step "PAP FFT use case (SMPI, 8 tryton nodes, every gather algorithm)"
  timed fft_table env ITERS=30 REAL= "$ROOT/bench/fft_table.sh" "$OUT/fft"
fi

# ---- 3. report --------------------------------------------------------------
step "report"
printf "%-28s %4d s\n" "total" $(( $(date +%s) - T0 )) >> "$OUT/timings.txt"
# CPU time of all steps (children): wall time above depends on machine load
# (not `times | ...`: a pipeline runs `times` in a subshell that has no children)
times > "$OUT/.times"
tail -1 "$OUT/.times" | awk '{print "cpu of all steps: user " $1 ", sys " $2}' >> "$OUT/timings.txt"
rm -f "$OUT/.times"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/timings.txt"
$PY "$ROOT/python/report.py" "$OUT"
echo
echo "report: $OUT/report.md"
