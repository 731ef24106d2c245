#!/usr/bin/env bash
# bench/demo.sh — the collx demo (./run demo calls it after the build): the
# sweeps of group "demo" of python/collx/sweeps.json, run by the one sweep
# driver (./run collx sweep --list describes each), then the report:
#  1. demo-real: real MPI on this machine (NP ranks), every registered
#     algorithm vs native for a dozen collectives, validated;
#  2. demo-traff, demo-smpi: SMPI at the papers' scale, every registered
#     algorithm (new families show up automatically): Träff Table 1 shape
#     (Gatherv, Scatterv, p=560), bcast on the RMA paper's clusters,
#     allgather on the topology paper's, allgather/alltoallv/
#     reduce_scatter_block/allreduce on the hierarchical paper's fat tree;
#  3. pap-demo, fft-demo, rma-demo, topo-demo: the PAP sweep (reduced), the
#     FFT use case, the one-sided broadcast, the topology-aware reordering;
#     cluster-demo: ring vs ring_topo on the emulated cluster (4 network
#     namespaces as nodes, 2 switches, 100 Mbit/s uplink; cluster "demo",
#     removed at the end);
#  4. tune (bench/demo_tune.sh): a short ./run tune on ib-6x8 (p=32,
#     allreduce and bcast, 8 B..256 KiB, 30 host seconds), then ./run tune
#     validate of its rules on held-out points (about a minute);
#  5. apps (bench/demo_apps.sh): LAMMPS from Debian on the emulated
#     cluster, native vs tuned vs online vs oracle (a few minutes);
#  6. python3 -m collx report: results/<date>/report.md with tables + PNGs.
# Every run prints a line when it starts and ends, with the time left.
# Env: COLLX_MPI (openmpi|mpich), NP (real ranks: the machine's cores, at
# least 2; more ranks than cores measure the scheduler), JOBS (parallel SMPI
# runs, nproc), DEMO_QUICK=1 (group demo-quick: no Scatterv table, PAP, FFT
# or one-sided part), DEMO_SMOKE=1 (group demo-smoke: one small real and
# one small SMPI run through the whole pipeline, to check it; the tune step
# with one collective, 8 B..4 KiB, p=16), DEMO_TUNE=0 (no tune step; the
# report says so), DEMO_TUNE_* (bench/demo_tune.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CORES="$(nproc 2>/dev/null || echo 2)"
NP="${NP:-$((CORES > 2 ? CORES : 2))}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
OUT="$ROOT/results/$(date +%Y-%m-%d)"
GROUP=demo
[ "${DEMO_QUICK:-0}" = 1 ] && GROUP=demo-quick
[ "${DEMO_SMOKE:-0}" = 1 ] && GROUP=demo-smoke
collx() { PYTHONPATH="$ROOT/python" /usr/bin/python3 -m collx "$@"; }

rm -rf "$OUT"/{real,smpi,pap,fft,rma,topo,cluster,tune,apps,log} "$OUT"/*.png "$OUT/timings.txt"
mkdir -p "$OUT"
T0=$(date +%s)
echo "[demo] sweeps of group $GROUP: ${COLLX_MPI:-openmpi} with $NP ranks, SMPI $JOBS runs at a time" >&2
export COLLX_CLUSTER="${COLLX_CLUSTER:-demo}"   # the emulated cluster's name
collx sweep "$GROUP" -o "$OUT" --set real_np="$NP" -j "$JOBS" \
  --log "$OUT/log" --timings "$OUT/timings.txt" ||
  echo "demo: some runs failed (their logs: $OUT/log); the report shows the rest" >&2
"$ROOT/cluster/down.sh" --quiet || true

echo "[demo $(( $(date +%s) - T0 ))s] tune: measured selection on one SMPI platform" >&2
if [ "${DEMO_SMOKE:-0}" = 1 ]; then
  export DEMO_TUNE_NP="${DEMO_TUNE_NP:-16}" DEMO_TUNE_COLLS="${DEMO_TUNE_COLLS:-bcast}" \
         DEMO_TUNE_SIZES="${DEMO_TUNE_SIZES:-8:4K}" DEMO_TUNE_BUDGET="${DEMO_TUNE_BUDGET:-5}"
fi
"$ROOT/bench/demo_tune.sh" "$OUT" || echo "demo: the tune step failed (see $OUT/tune/); the report says so" >&2

echo "[demo $(( $(date +%s) - T0 ))s] apps: LAMMPS from Debian on the emulated cluster" >&2
[ "${DEMO_SMOKE:-0}" = 1 ] && export DEMO_APPS="${DEMO_APPS:-0}"
"$ROOT/bench/demo_apps.sh" "$OUT" || echo "demo: the apps step failed (see $OUT/apps/); the report says so" >&2

echo "[demo $(( $(date +%s) - T0 ))s] report" >&2
printf "%-28s %4d s\n" "total" $(( $(date +%s) - T0 )) >> "$OUT/timings.txt"
# CPU time of all steps (children): wall time above depends on machine load
# (not `times | ...`: a pipeline runs `times` in a subshell that has no children)
times > "$OUT/.times"
tail -1 "$OUT/.times" | awk '{print "cpu of all steps: user " $1 ", sys " $2}' >> "$OUT/timings.txt"
rm -f "$OUT/.times"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/timings.txt"
collx report "$OUT"
echo
echo "report: $OUT/report.md"
