#!/usr/bin/env bash
# tests/cluster/registry_mpi.sh NAME: one of the registry's MPIs
# (openmpi5, mpich5, impi: tools/install_mpi.sh) across two emulated nodes
# through `./run cluster run` (run_test.sh), whatever MPI this tree was
# built with: collbench validates native, hier and recursive doubling
# against the MPI's own result, 8 B and 64 KiB. Exit 77 (skipped, saying
# why) where that MPI or collx's build of it is not here.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
name="${1:?usage: registry_mpi.sh openmpi5|mpich5|impi}"
for need in "$ROOT/build/mpis/$name/bin/mpiexec" "$ROOT/build/$name/bench/collbench"; do
  if [ ! -x "$need" ]; then
    echo "skipped: no $need (tools/install_mpi.sh $name; COLLX_MPI=$name ./run build)"
    exit 77
  fi
done
export COLLX_MPI="$name"
out="$("$ROOT/tests/cluster/run_test.sh" 2x1 -n 2 -- "$ROOT/build/$name/bench/collbench" \
  --coll allreduce --algs native,hier,recursive_doubling -m 8,64K -i 5 -c 2>&1)" || {
  echo "$out"; echo "FAIL: ./run cluster run with $name ended with an error"; exit 1; }
echo "$out"
grep -q "nodes=2" <<<"$out" || { echo "FAIL: the ranks are not on two nodes"; exit 1; }
ok=$(grep -c "^  allreduce .* ok$" <<<"$out" || true)
((ok == 6)) || { echo "FAIL: $ok of 6 cases validated"; exit 1; }
echo "$name across two nodes: 6 of 6 cases validated"
