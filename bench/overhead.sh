#!/usr/bin/env bash
# The interposer's cost with nothing selected: bench/overhead under
# LD_PRELOAD=libcollx_pmpi.so (MPI_ calls go through collx to the native
# call; PMPI_ calls bypass it, timed side by side in the same run).
#   bench/overhead.sh [OUT.csv]        COLLX_MPI=openmpi|mpich, NP=1 2
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/bench/mpi_env.sh"
MPI="${COLLX_MPI:-openmpi}"
BUILD="$ROOT/build/$MPI"
OUT="${1:-}"
for np in ${NP:-1 2}; do
  echo "== $MPI, $np rank(s), LD_PRELOAD=libcollx_pmpi.so, nothing selected" >&2
  csv=()
  [ -n "$OUT" ] && csv=(--csv "${OUT%.csv}.p$np.csv")
  # shellcheck disable=SC2046
  case "$MPI" in
    openmpi) $(mpi_launcher openmpi) -n "$np" -x LD_PRELOAD="$BUILD/libcollx_pmpi.so" \
               "$BUILD/bench/overhead" "${csv[@]}" ;;
    mpich)   $(mpi_launcher mpich) -n "$np" -genv LD_PRELOAD "$BUILD/libcollx_pmpi.so" \
               "$BUILD/bench/overhead" "${csv[@]}" ;;
  esac
done
