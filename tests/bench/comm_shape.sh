#!/usr/bin/env bash
# collbench --comm-shape NxK: K ranks of each of the first N nodes, nodes as
# collx sees them. With 6 ranks faked as 3 nodes of 2 (COLLX_RANKS_PER_NODE),
# --comm-shape 3x1 measures 3 ranks, one per node: the CSV says p 3, ppn 1,
# nodes 3, shape 3x1, and hier (which needs several nodes) runs as itself;
# a shape the world lacks (4x1) is refused with a message, non-zero, at once.
#   comm_shape.sh OUT launcher -n 6 ... collbench
set -euo pipefail
out=$1; shift
export COLLX_RANKS_PER_NODE=2
timeout 60 "$@" --coll allreduce --algs native,hier -m 8,1K -i 2 -x 1 -c -q \
  --comm-shape 3x1 --csv "$out.csv" >/dev/null
/usr/bin/python3 - "$out.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["metric"] == "r"]
bad = [r for r in rows if (r["p"], r["ppn"], r["nodes"], r["shape"]) != ("3", "1", "3", "3x1")
       or r["ran"] != r["alg"] or r["valid"] != "1"]
for r in bad:
    print(f"FAIL {r['alg']} {r['size_bytes']} B: p {r['p']} ppn {r['ppn']} nodes {r['nodes']} "
          f"shape {r['shape']!r} ran {r['ran']!r} valid {r['valid']!r}")
if len(rows) != 4 or bad:
    print(f"comm shape: FAILED ({len(rows)} rows)")
    sys.exit(1)
print("comm shape 3x1: p 3, ppn 1, nodes 3, hier ran: OK")
PY
rc=0
err="$(timeout 60 "$@" --coll allreduce -m 8 -i 1 -x 0 -q --comm-shape 4x1 2>&1 >/dev/null)" || rc=$?
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || ! grep -q "needs 4 nodes" <<<"$err"; then
  echo "comm shape 4x1 of 3 nodes: want a message and a non-zero exit, got rc=$rc:"
  echo "$err"
  exit 1
fi
echo "comm shape 4x1 of 3 nodes refused (rc=$rc): $(grep "needs 4 nodes" <<<"$err" | head -1)"
