#!/usr/bin/env bash
# docs/reference/ is generated from collx_info (tools/gen_reference.sh):
# regenerate it into a temporary folder and compare with the committed
# files, so that a variable or an algorithm added to the code without
# regenerating fails here.
#
# usage: reference.sh ROOT COLLX_INFO [LAUNCHER ARGS...]
set -euo pipefail
ROOT="$1" INFO="$2"
shift 2
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
launch=""
if (($#)); then
  launch="$* -n 1"
fi
"$ROOT/tools/gen_reference.sh" --info "$INFO" --launch "$launch" --out "$tmp"
status=0
for f in variables.md algorithms.md; do
  if ! diff -u "$ROOT/docs/reference/$f" "$tmp/$f"; then
    status=1
  fi
done
if ((status)); then
  echo "docs/reference is stale: run tools/gen_reference.sh"
  exit 1
fi
echo "docs/reference: variables.md and algorithms.md match collx_info"
