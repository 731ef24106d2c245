#!/usr/bin/env bash
# tools/loaded_runs.sh [N] [COMMIT]: N (default 3) fresh clones in a row,
# each running `./run test` beside two CPU-bound busy loops, as issue 49
# asks of the suite ("passes while the machine is busy, three times in a
# row"). Logs: /tmp/loaded<i>.log; one line per run in /tmp/loaded.summary.
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${1:-3}" commit="${2:-HEAD}"
commit="$(git -C "$ROOT" rev-parse --short "$commit")"
for i in $(seq 1 "$n"); do
  dir="/tmp/loaded-clone$i"
  rm -rf "$dir"
  git clone -q "$ROOT" "$dir" && git -C "$dir" checkout -q "$commit"
  (while :; do :; done) & h1=$!
  (while :; do :; done) & h2=$!
  start=$(date +%s)
  (cd "$dir" && ./run test) >"/tmp/loaded$i.log" 2>&1
  rc=$?
  kill "$h1" "$h2"
  echo "run $i rc=$rc $(($(date +%s) - start)) s $commit" | tee -a /tmp/loaded.summary
done
