#!/bin/sh
# install.sh BUILD SIM_RUN SOURCE: this SMPI build installed into a scratch
# prefix, which is then moved (the wrappers find the archives beside
# themselves); the installed collx-smpicc builds plain_app.c, which runs
# MPI_Allreduce through collx under sim/run. The prefix is removed.
set -eu
build=$1 simrun=$2 src=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/collx-smpi-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
mv "$tmp/prefix" "$tmp/moved"
[ -f "$tmp/moved/share/man/man1/collx-smpicc.1" ] || { echo "no man page installed"; exit 1; }
cd "$tmp"
"$tmp/moved/bin/collx-smpicc" -O1 -o app "$src"
out=$(COLLX_VERBOSE=1 COLLX_ALLREDUCE_ALGORITHM=recursive_doubling "$simrun" ib-6x8 4 -- ./app 2>&1)
echo "$out"
if echo "$out" | grep -q "^collx: MPI_Allreduce -> recursive_doubling (p=4" &&
   echo "$out" | grep -q "^plain_app: 4 ranks, 0 failed checks$"; then
  echo OK
else
  echo "FAIL: collx did not serve MPI_Allreduce, or the program's checks failed"
  exit 1
fi
