#!/usr/bin/env bash
# Short one-sided broadcast demo (under 2 minutes; bench/demo.sh calls it):
# SMPI ib-6x8 p=16 (2 MiB) and gige-18x8 p=16 (2 and 16 KiB: LL), rma_linear vs
# rma_binomial vs native vs two-sided binomial; then a real-MPI run (Open
# MPI, p=4). Writes OUTDIR/rma_demo.csv (same columns as rma_sweep.sh).
# usage: bench/rma_demo.sh OUTDIR
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/docs/results/rma}"
mkdir -p "$OUT"
CSV="$OUT/rma_demo.csv"
rm -f "$CSV"

RMA_CSV="$CSV" IB_P=16 GIGE_P=32 bash -c '
  ROOT='"$ROOT"'
  CB="$ROOT/build/smpi/bench/collbench"
  echo "platform,p,m,alg,min,median,mean,max" > "$RMA_CSV"
  for pt in "ib-6x8 16 2097152" "gige-18x8 16 2048" "gige-18x8 16 16384"; do
    set -- $pt
    echo "[rma demo] SMPI $1 p=$2 m=$3" >&2
    tmp=$(mktemp)
    "$ROOT/sim/run" "$1" "$2" -- "$CB" --coll bcast --algs native,binomial,rma_linear,rma_binomial \
        -m "$3:$3" -x 5 -i 10 -f -q --csv "$tmp" > /dev/null
    awk -F, -v plat="$1" '"'"'NR > 1 && $17 == "r" {print plat "," $5 "," $8 "," $4 "," $18 "," $19 "," $20 "," $21}'"'"' "$tmp" >> "$RMA_CSV"
    rm -f "$tmp"
  done'
echo "[rma demo] real MPI (Open MPI, p=4, 1 MiB)" >&2
. "$ROOT/bench/mpi_env.sh"
tmp=$(mktemp)
/usr/bin/mpirun.openmpi --oversubscribe -n 4 "$ROOT/build/openmpi/bench/collbench" --coll bcast \
    --algs native,binomial,rma_linear,rma_binomial -m 1048576:1048576 -x 5 -i 10 -f -q --csv "$tmp" > /dev/null
awk -F, 'NR > 1 && $17 == "r" {print "real-openmpi," $5 "," $8 "," $4 "," $18 "," $19 "," $20 "," $21}' "$tmp" >> "$CSV"
rm -f "$tmp"
column -s, -t < "$CSV"
