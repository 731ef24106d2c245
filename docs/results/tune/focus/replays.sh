#!/bin/bash
# Replays the tuner at an eighth of six exhaustive grids' cost with this
# checkout's tuner and with BASE's (default 38a1277, before "the job's own
# sizes first"), and scores both rule sets against each grid (score.py).
#   docs/results/tune/focus/replays.sh [OUT]      (about 10 minutes, one core)
set -e
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
HERE=$ROOT/docs/results/tune/focus
OUT=${1:-/tmp/collx-replays}
BASE=${BASE:-38a1277}
mkdir -p "$OUT"
WT=$OUT/base-tree
[ -d "$WT" ] || git -C "$ROOT" worktree add --detach "$WT" "$BASE" >/dev/null
git -C "$WT" checkout -q --detach "$BASE"
PY=/usr/bin/python3
one() {   # name grid budget args...
  name=$1 grid=$2 budget=$3; shift 3
  for side in after before; do
    root=$ROOT; [ $side = before ] && root=$WT
    d=$OUT/$name/$side; mkdir -p "$d"
    PYTHONPATH=$root/python $PY -m collx tune --replay "$grid" --budget "$budget" \
      --out "$d/rules.json" --report "$d" --no-check "$@" > "$d/log" 2>&1
  done
  echo "== $name (budget $budget host s)"
  PYTHONPATH=$ROOT/python $PY "$HERE/score.py" "$grid" "$OUT/$name/after/rules.json" \
    "$OUT/$name/before/rules.json"
}
one dev64 "$HERE/dev64-grid/tune.json" 247 \
  --colls allgather,allreduce,alltoall,bcast,reduce_scatter_block --sizes 8:64K
one nine-nodes "$ROOT/docs/results/tune/nine-nodes/grid/tune.json" 180 \
  --colls allreduce,bcast,allgather --sizes 8:256K --comm-sizes 32,48,72
for p in gige-18x8 cse-2switch-30x8 fattree-256x16 ib-qdr-36x16; do
  g=$ROOT/docs/results/tune/$p/grid/tune.json
  read -r b sz cs colls < <($PY -c "
import json; d = json.load(open('$g')); s = d['sizes']
print(round(d['spent_s'] / 8), f'{min(s)}:{max(s)}', ','.join(map(str, d['comm_sizes'])),
      ','.join(d['colls']))")
  one "$p" "$g" "$b" --colls "$colls" --sizes "$sz" --comm-sizes "$cs"
done
# the 64-rank grid's held-out sizes (24, 1000, 20000 B at 64 and 32 ranks)
PYTHONPATH=$ROOT/python $PY -m collx tune validate --from "$HERE/dev64-heldout.json" \
  --rules "$OUT/dev64/after/rules.json" --rules "$OUT/dev64/before/rules.json" \
  --colls allgather,allreduce,alltoall,bcast,reduce_scatter_block --out "$OUT/dev64-heldout"
