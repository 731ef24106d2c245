#!/usr/bin/env bash
# collx predict checked against real runs of the same programs (issue 74,
# item 2d): each case below predicted on the platform `collx calibrate`
# fitted to that reality (docs/results/calibrate/), then the same runs
# made for real (collx predict --measure), the program unmodified
# (Debian's sources, built for Open MPI by sim/outside/fetch_build.sh
# --mpi openmpi), collx preloaded.
#
#   bench/predict_measured.sh [OUT_DIR]   (default results/predict-measured)
#
# CASES (default all): parpack-node, ex5f-node, hpcc-node (two ranks on
# two cores of this machine, bound) and parpack-cluster, ex5f-cluster
# (two nodes of the emulated cluster, one rank each, real TCP: needs
# `./run cluster up 2x1`). LAUNCHES real launches of each run (default
# 5). Each case writes OUT_DIR/<case>/ (predict.md with the section
# "Predicted vs measured", measure.csv, ...) and the summary
# OUT_DIR/summary.md. Needs two free cores: run alone.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$(mkdir -p "${1:-$ROOT/results/predict-measured}" && cd "${1:-$ROOT/results/predict-measured}" && pwd)"
LAUNCHES="${LAUNCHES:-5}"
CASES="${CASES:-parpack-node ex5f-node hpcc-node parpack-cluster ex5f-cluster}"
PY="${PYTHON:-/usr/bin/python3}"
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
say() { echo "[predict-measured] $*" >&2; }

say "building the programs for SMPI and for Open MPI (sim/outside/fetch_build.sh)"
"$ROOT/sim/outside/fetch_build.sh" parpack hypre hpcc
"$ROOT/sim/outside/fetch_build.sh" --mpi openmpi parpack hypre hpcc
SIM="$ROOT/build/outside" REAL="$ROOT/build/outside/openmpi"
NODE_PLATFORM="$ROOT/docs/results/calibrate/openmpi-p2/calibrated.xml"
CLUSTER_PLATFORM="$ROOT/docs/results/calibrate/cluster-2x1/calibrated.xml"
NODE_LAUNCH="/usr/bin/mpirun.openmpi --allow-run-as-root -n 2 --bind-to core"
CLUSTER_LAUNCH="$ROOT/run cluster run --collxrun '' -n 2 --"
export OMPI_MCA_btl_vader_single_copy_mechanism=none   # no CMA in containers
PARPACK_CHECK='converged Ritz values is\s+4\b'
HYPRE_CHECK='Final Relative Residual Norm = +[0-9.]+E-(0[7-9]|[1-9][0-9])'

# The calibrated cluster's nodes have two slots (its node is the two
# cores' calibration): one rank per node as on the emulated cluster.
ONE_PER_NODE="$OUT/one-per-node.hostfile"
printf 'calibrated-0:1\ncalibrated-1:1\n' > "$ONE_PER_NODE"

one() {   # CASE PLATFORM LAUNCH SIM_PROGRAM REAL_PROGRAM CHECK SINGLE [NAME=VALUE...]
  local name="$1" platform="$2" launch="$3" sim="$4" real="$5" check="$6" single="$7"
  shift 7
  local place=()
  [ "$platform" = "$CLUSTER_PLATFORM" ] && place=(--hostfile "$ONE_PER_NODE")
  say "$name: collx predict --measure ($LAUNCHES launches of each run)"
  env "$@" "$PY" -m collx predict --platform "$platform" -n 2 "${place[@]}" --budget 30 --single "$single" \
    --check "$check" --measure "$launch" --measure-program "$real" \
    --measure-launches "$LAUNCHES" --out "$OUT/$name" -- "$sim" > "$OUT/$name/stdout.md" \
    2> >(tee "$OUT/$name/stderr.log" >&2) || { say "$name failed: $OUT/$name/stderr.log"; return 1; }
}

for c in $CASES; do
  mkdir -p "$OUT/$c"
  case "$c" in
    parpack-node) one "$c" "$NODE_PLATFORM" "$NODE_LAUNCH" "$SIM/parpack/pdsdrv1" \
                    "$REAL/parpack/pdsdrv1" "$PARPACK_CHECK" 1 PARPACK_NX=64 ;;
    ex5f-node) one "$c" "$NODE_PLATFORM" "$NODE_LAUNCH" "$SIM/hypre/ex5f" "$REAL/hypre/ex5f" \
                 "$HYPRE_CHECK" 1 EX5F_N=120 ;;
    hpcc-node) (cd "$SIM/hpcc/run2" &&
                one "$c" "$NODE_PLATFORM" "$NODE_LAUNCH" "$SIM/hpcc/hpcc" "$REAL/hpcc/hpcc" \
                  '(?m)^Success=1' 0 HPCC_OUTFILE=/dev/stdout) ;;
    # (./run cluster run hands the ranks COLLX_* and the MPI's collective
    # settings only: the programs' own sizes stay their defaults there,
    # NX = 10 and n = 33, in SMPI too)
    parpack-cluster) one "$c" "$CLUSTER_PLATFORM" "$CLUSTER_LAUNCH" "$SIM/parpack/pdsdrv1" \
                       "$REAL/parpack/pdsdrv1" "$PARPACK_CHECK" 1 ;;
    ex5f-cluster) one "$c" "$CLUSTER_PLATFORM" "$CLUSTER_LAUNCH" "$SIM/hypre/ex5f" \
                    "$REAL/hypre/ex5f" "$HYPRE_CHECK" 1 ;;
    *) say "unknown case $c"; exit 2 ;;
  esac
done

"$PY" - "$OUT" $CASES > "$OUT/summary.md" <<'PY'
import json, os, statistics, sys
out, cases = sys.argv[1], sys.argv[2:]
print("| case | runs | whole time: median abs error (worst) | in collectives: median abs error "
      "| fastest: predicted / measured | tuned vs native: predicted / measured |")
print("|---|---|---|---|---|---|")
for c in cases:
    try:
        with open(os.path.join(out, c, "measure.json")) as f:
            m = json.load(f)
    except OSError:
        print(f"| {c} | failed | | | | |")
        continue
    rows = m["rows"]
    e = [abs(r["error"]) for r in rows if r["error"] is not None]
    ce = [abs(r["coll_error"]) for r in rows if r["coll_error"] is not None]
    t = next((r for r in rows if r["label"] == "tuned"), {})
    print(f"| {c} | {len(rows)} | {100 * statistics.median(e):.1f} % ({100 * max(e):.1f} %) | "
          f"{100 * statistics.median(ce):.1f} % | {m['fastest_predicted']} / "
          f"{m['fastest_measured']} | "
          + (f"{t['predicted_speedup']:.3f}x / {t['measured_speedup']:.3f}x |"
             if "predicted_speedup" in t else " |"))
PY
cat "$OUT/summary.md"
