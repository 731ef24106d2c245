#!/usr/bin/env bash
# Which algorithms hand which calls to their fallback, and why: the contract
# test of every collective under COLLX_FALLBACK=error (every hand-over is an
# MPI_ERR_UNSUPPORTED_OPERATION the test expects from the algorithm's
# requirement bits), on one node and on the fake layouts of the
# per-algorithm tests. Writes the summary lines to OUT (default stdout).
#   tests/contract/fallbacks.sh [OUT]      (COLLX_MPI=openmpi|mpich)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
MPI="${COLLX_MPI:-openmpi}"
. "$ROOT/bench/mpi_env.sh"
read -r -a LAUNCH <<< "$(mpi_launcher "$MPI")"
BIN="$ROOT/build/$MPI/tests/contract/contract"
[ -x "$BIN" ] || { echo "fallbacks: $BIN missing; run ./run build first" >&2; exit 2; }
out="${1:-/dev/stdout}"
{
  echo "# COLLX_FALLBACK=error, contract --quick --nodes all, $MPI ($(date +%F))"
  for spec in "4 -" "3 COLLX_RANKS_PER_NODE=2" "5 COLLX_FAKE_NODES=0,1,0,2,1" \
              "6 COLLX_RANKS_PER_NODE=3" "8 COLLX_FAKE_NODES=cyclic:2"; do
    read -r np layout <<< "$spec"
    echo "## p=$np ${layout/-/one node}"
    echo "[fallbacks] p=$np $layout" >&2
    env ${layout/-/} COLLX_FALLBACK=error "${LAUNCH[@]}" -n "$np" "$BIN" --quick --nodes all \
      2>&1 | grep -E '^nodes:|^  [a-z_]+ [a-z_0-9]+: served|^FAIL|^contract:' || true
  done
} > "$out"
