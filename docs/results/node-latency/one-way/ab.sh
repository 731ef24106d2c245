#!/usr/bin/env bash
# hier's bcast before and after the one-way small bcast (b8328f8), two
# ranks bound to the two cores, libcollx of each commit taken in turn
# (collbench's RUNPATH overridden by LD_LIBRARY_PATH; the machine's
# small-message times drift between launches, so the two alternate):
#
#   OLD=/tmp/ab/old NEW=/tmp/ab/new docs/results/node-latency/one-way/ab.sh MPI ROUNDS > OUT
#
# COLL (bcast) and SIZES (8,64,512) choose another collective: the
# alltoall's one-exchange path (5340aa3) was measured with
# COLL=alltoall SIZES=8,64,512,2048.
#
# OLD/NEW/<mpi>/libcollx.so.0: `cp -L build/<mpi>/libcollx.so.0` after
# `ninja` at each commit. Rows: round, build, algorithm, bytes, the
# median run time r (us) and the median mean elapsed time e (us) of 1000
# calls; summary.py takes the medians over rounds.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
mpi="$1" rounds="${2:-6}" coll="${COLL:-bcast}" sizes="${SIZES:-8,64,512}"
for round in $(seq 1 "$rounds"); do
  for v in old new; do
    lib="$( [ $v = old ] && echo "$OLD" || echo "$NEW" )/$mpi"
    case "$mpi" in
      openmpi) launch=(mpirun.openmpi --allow-run-as-root -n 2 --bind-to core -x LD_LIBRARY_PATH="$lib") ;;
      mpich) launch=(mpiexec.mpich -n 2 -bind-to core -genv LD_LIBRARY_PATH "$lib") ;;
      mpich5) launch=(build/mpis/mpich5/bin/mpiexec -n 2 -bind-to core -genv LD_LIBRARY_PATH "$lib") ;;
    esac
    "${launch[@]}" "build/$mpi/bench/collbench" --coll "$coll" --algs native,hier -m "$sizes" \
      -i 1000 -f 2>/dev/null | grep -E "^  $coll " |
      awk -v v="$mpi-$v" -v r="$round" '{print r, v, $2, $3, "rmed", $8, "emed", $10}'
  done
done
