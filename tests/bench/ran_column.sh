#!/usr/bin/env bash
# collbench's column ran: with a rules file, --algs selected runs what the
# rules pick per size; an algorithm that cannot serve (hier above
# COLLX_SHM_MAX) shows its fallback.
#   ran_column.sh CSV_OUT launcher... collbench
set -euo pipefail
out=$1; shift
COLLX_RULES="$(dirname "$0")/rules_ran.json" \
  "$@" --coll allreduce --algs selected -m 8:4K -i 2 -x 1 -q --csv "$out.allreduce" >/dev/null
COLLX_SHM_MAX=1024 "$@" --coll gather --algs hier -m 8:4K -i 2 -x 1 -q --csv "$out.gather" >/dev/null
cat "$out.allreduce" > "$out"
tail -n +2 "$out.gather" >> "$out"
/usr/bin/python3 - "$out" <<'PY'
import csv, sys
bad = 0
for r in csv.DictReader(open(sys.argv[1])):
    if r["metric"] != "r":
        continue
    size = int(r["size_bytes"])
    if r["alg"] == "selected":
        want = "recursive_doubling" if size <= 64 else "rabenseifner"
    else:   # hier's gather: two halves of 3 blocks each exceed 1 KiB from 1 KiB on
        want = "hier" if size < 1024 else "native"
    if r["ran"] != want:
        print(f"FAIL {r['alg']} {size} B: ran {r['ran']!r}, want {want!r}")
        bad += 1
fell = [r for r in csv.DictReader(open(sys.argv[1])) if r["alg"] == "hier" and r["ran"] == "native"]
if not fell:
    print("FAIL hier never fell back to native under COLLX_SHM_MAX=1024")
    bad += 1
print("ran column:", "FAILED" if bad else "OK")
sys.exit(1 if bad else 0)
PY
