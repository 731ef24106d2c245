#!/usr/bin/env bash
# tools/ci_times.sh: each line of .ci/run, timed, in a fresh clone of this
# repository's HEAD (/tmp/ci). One line per part in /tmp/ci.summary, logs
# in /tmp/ci.<part>.log: the per-part CI times the closing notes report.
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rm -rf /tmp/ci && git clone -q "$ROOT" /tmp/ci && cd /tmp/ci || exit 1
git log --oneline -1 >/tmp/ci.summary
grep -v '^#\|^set \|^cd \|^$' .ci/run | while IFS= read -r line; do
  start=$(date +%s)
  # stdin from /dev/null: a part that reads it would eat .ci/run's next lines
  bash -c "$line" </dev/null >"/tmp/ci.$(echo "$line" | tr -c 'a-zA-Z' _ | cut -c1-40).log" 2>&1
  echo "$line rc=$? $(($(date +%s) - start)) s" | tee -a /tmp/ci.summary
done
