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
REAL_COLLS="gather scatter bcast allgather gatherv alltoall alltoallv reduce allreduce reduce_scatter_block scan barrier"
for c in $REAL_COLLS; do
  step "  real $c"
  timed "real_$c" "${MPIEXEC[@]}" "$REAL" --coll "$c" -m 8:64K -i 30 -x 3 -c -q \
    --csv "$OUT/real/$c.csv"
done

# ---- 2. SMPI at the papers' scale ----------------------------------------
step "SMPI sweeps ($JOBS in parallel)"
PROBS=same,random,spikes,decreasing,alternating,twoblocks
BS=1,10,100,1000,10000
smpi_jobs() {
  # name est_seconds platform np collbench-args... (one per line, run by
  # xargs); est = host seconds of one run on a 2-core machine, for the ETA
  echo "traff_gatherv 110 ib-qdr-36x16 560 --coll gatherv --guidelines --guide-algs native,linear,binomial --g2-algs native,binomial --problem $PROBS -b $BS -x 1 -i 2"
  [ "${DEMO_QUICK:-0}" = 1 ] ||
  echo "traff_scatterv 110 ib-qdr-36x16 560 --coll scatterv --guidelines --guide-algs native,linear,binomial --g2-algs native,binomial --problem $PROBS -b $BS -x 1 -i 2"
  # (the one-sided rma_* algorithms have their own, shorter part below:
  # simulating their puts at 32 MiB takes many minutes)
  echo "sweep_bcast_ib-6x8 15 ib-6x8 48 --coll bcast --algs native,linear,binomial,hier,hier_ms,binomial_topo -m 2K:32M -x 1 -i 3"
  echo "sweep_bcast_gige-18x8 15 gige-18x8 96 --coll bcast --algs native,linear,binomial,hier,hier_ms,binomial_topo -m 2K:64K -x 1 -i 3"
  echo "sweep_allgather_cse-2switch 40 cse-2switch-30x8 240 --coll allgather -m 64:4K -x 1 -i 2"
  echo "sweep_allgather_fattree 40 fattree-256x16 256 --coll allgather -m 64:2K -x 1 -i 2"
  echo "sweep_alltoallv_fattree 60 fattree-256x16 256 --coll alltoallv -m 64:1K -x 1 -i 2"
  echo "sweep_reduce_scatter_block_fattree 40 fattree-256x16 256 --coll reduce_scatter_block -m 64:4K -x 1 -i 2"
  echo "sweep_allreduce_fattree 40 fattree-256x16 256 --coll allreduce -m 64:64K -x 1 -i 2"
}
# Progress: each run says when it starts and ends, with an estimate of the
# time left (the estimates of the runs not finished yet, over JOBS).
one_smpi() {
  local name=$1 est=$2 plat=$3 np=$4; shift 4
  local s=$(date +%s)
  echo "[demo] start  $name ($plat, p=$np, ~${est}s)" >&2
  if "$SIMRUN" "$plat" "$np" -- "$SIM" -q --csv "$OUT/smpi/$name.csv" "$@" \
       > "$OUT/log/$name.txt" 2>&1; then
    printf "%-28s %4d s  (%s, p=%s)\n" "$name" $(( $(date +%s) - s )) "$plat" "$np" >> "$OUT/timings.txt"
    echo "$est" >> "$OUT/.smpi_done"
    local done_est left
    done_est=$(awk '{s += $1} END {print s + 0}' "$OUT/.smpi_done")
    left=$(( (SMPI_EST - done_est) / SMPI_JOBS ))
    echo "[demo] done   $name in $(( $(date +%s) - s ))s; SMPI part: ~${left}s left" >&2
  else
    echo "demo: SMPI step $name failed; see $OUT/log/$name.txt" >&2
    echo "$name: FAILED" >> "$OUT/timings.txt"
  fi
}
export -f one_smpi
SMPI_EST=$(smpi_jobs | awk '{s += $2} END {print s}')
SMPI_JOBS=$JOBS
rm -f "$OUT/.smpi_done"
export SIMRUN SIM OUT SMPI_EST SMPI_JOBS
step "  $(smpi_jobs | wc -l) simulations, about $(( SMPI_EST / JOBS ))s"
smpi_jobs | xargs -P "$JOBS" -L 1 bash -c 'one_smpi "$@"' _
rm -f "$OUT/.smpi_done"

if [ "${DEMO_QUICK:-0}" != 1 ] && [ -x "$ROOT/bench/pap_sweep.sh" ]; then
  step "PAP sweep (tryton-1gbe-48, 2M floats, max delay 0/50 ms)"
  timed pap_sweep env SIZES=2048 DELAYS="0 50" ITERS=8 JOBS="$JOBS" \
    "$ROOT/bench/pap_sweep.sh" "$OUT/pap"
  step "PAP FFT use case (SMPI, 8 tryton nodes, every gather algorithm)"
  timed fft_table env ITERS=30 REAL= "$ROOT/bench/fft_table.sh" "$OUT/fft"
fi

[ "${DEMO_QUICK:-0}" != 1 ] && [ -x "$ROOT/bench/rma_demo.sh" ] && { step "one-sided broadcast (SMPI ib-6x8, gige-18x8, real MPI)"; timed rma_demo "$ROOT/bench/rma_demo.sh" "$OUT/rma"; }
[ -x "$ROOT/bench/topo_demo.sh" ] && { step "topology-aware reordering (SMPI cse-2switch-30x8)"; timed topo_demo "$ROOT/bench/topo_demo.sh" "$OUT/topo"; }

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
