#!/usr/bin/env bash
# tests/cluster/registry_mpi.sh NAME p2|contract PROGRAM: one of the
# registry's MPIs (openmpi5, mpich5, impi: tools/install_mpi.sh) across
# emulated nodes through `./run cluster run` (run_test.sh), in the tree
# built with it (where the other cluster tests skip by name). p2: two
# nodes of one rank, PROGRAM (collbench) validates native, hier and
# recursive doubling against the MPI's own result at 8 B and 64 KiB.
# contract: three nodes of up to three ranks on two switches (3+3+2),
# PROGRAM (contract) checks every registered algorithm of every
# collective (`--nodes --quick all`). Exit 77 (skipped, saying why)
# where ./run cluster run cannot start that MPI.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
name="${1:?usage: registry_mpi.sh openmpi5|mpich5|impi p2|contract PROGRAM}"
mode="${2:?}" prog="${3:?}"
need="$ROOT/build/mpis/$name/bin/mpiexec"   # what cluster/run.sh starts
if [ ! -x "$need" ]; then
  echo "skipped: no $need (tools/install_mpi.sh $name)"
  exit 77
fi
export COLLX_MPI="$name"
fail() { echo "$out"; echo "FAIL: $*"; exit 1; }
if [ "$mode" = p2 ]; then
  out="$("$ROOT/tests/cluster/run_test.sh" 2x1 -n 2 -- "$prog" \
    --coll allreduce --algs native,hier,recursive_doubling -m 8,64K -i 5 -c 2>&1)" ||
    fail "./run cluster run with $name ended with an error"
  grep -q "nodes=2" <<<"$out" || fail "the ranks are not on two nodes"
  ok=$(grep -c "^  allreduce .* ok$" <<<"$out" || true)
  ((ok == 6)) || fail "$ok of 6 cases validated"
  echo "$out"
  echo "$name across two nodes: 6 of 6 cases validated"
else
  out="$(COLLX_CLUSTER_TEST_TIMEOUT=1400 "$ROOT/tests/cluster/run_test.sh" 3x3 --switches 2 -n 8 \
    -- "$prog" --nodes --quick all 2>&1)" ||
    fail "the contract with $name across three nodes ended with an error"
  grep -q "nodes: 0 0 0 1 1 1 2 2" <<<"$out" || fail "the ranks are not 3+3+2 on three nodes"
  grep -q "^contract: OK" <<<"$out" || fail "no 'contract: OK'"
  echo "$out"
  echo "$name across three nodes: the contract of every algorithm OK"
fi
