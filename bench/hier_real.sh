#!/usr/bin/env bash
# Hierarchical collectives on this machine (real MPI): one node of NP ranks
# faked as 2 and 4 nodes (COLLX_RANKS_PER_NODE), native vs hier vs hier_ms,
# every result validated against PMPI_ (-c). Shared memory is real; the
# "network" between fake nodes is the same shared memory, so this shows
# the cost of the extra copies and node barriers, not a network saving.
#   bench/hier_real.sh [OUT]   env: COLLX_MPI (openmpi|mpich), NP (8), ITERS (50), COLLS
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/results/hier/real}"
MPI="${COLLX_MPI:-openmpi}" NP="${NP:-8}" ITERS="${ITERS:-50}"
BIN="$ROOT/build/$MPI/bench/collbench"
[ -x "$BIN" ] || { echo "hier_real: build first (./run build)" >&2; exit 2; }
. "$ROOT/bench/mpi_env.sh"
LAUNCH="$(mpi_launcher "$MPI")"
mkdir -p "$OUT"
for k in $((NP / 2)) $((NP / 4)); do
  for c in ${COLLS:-allgather alltoallv bcast allreduce reduce_scatter_block}; do
    algs=native,hier
    case "$c" in allgather|alltoallv|bcast|allreduce) algs=native,hier,hier_ms ;; esac
    echo "hier_real: $c, $NP ranks as $((NP / k)) nodes of $k ($algs)" >&2
    if [ "$MPI" = mpich ]; then
      $LAUNCH -n "$NP" -genv COLLX_RANKS_PER_NODE "$k" "$BIN" --coll "$c" --algs "$algs" \
        -m 8:64K -x 5 -i "$ITERS" -c -q --csv "$OUT/$c-k$k.csv" > "$OUT/$c-k$k.txt"
    else
      $LAUNCH -n "$NP" -x COLLX_RANKS_PER_NODE="$k" "$BIN" --coll "$c" --algs "$algs" \
        -m 8:64K -x 5 -i "$ITERS" -c -q --csv "$OUT/$c-k$k.csv" > "$OUT/$c-k$k.txt"
    fi
  done
done
echo "hier_real: $OUT" >&2
