#!/usr/bin/env bash
# The hierarchical figures re-stated with SMPI's node model calibrated to
# real cores (issue 61): fattree-256x16, one node (p = 16), 4 and 16 nodes
# (p = 64, 256), bcast / allreduce / allgather at 8 B - 4 KiB, flat native
# and collx's hier_ms (its defaults), each under
#   uncalibrated  COLLX_SMPI_SYNC=0 COLLX_SMPI_SYNC_RANK=0 COLLX_SMPI_CALL=0
#                 (a node's flags and collx's own work cost nothing: the
#                 model of the published figures)
#   calibrated    the platform's collx:sync, collx:sync_rank, collx:call
#                 (sim/gen_platforms.py NODE, measured by bench/node_sync)
# beside the published figure of the same point (../hier.csv, made before
# issue 61's node phase). Writes node_model.csv and node_model.md here.
# About 3 minutes of host time.
#
#   docs/results/hier/node-model/run.sh     (after ./run build)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
CB="$ROOT/build/smpi/bench/collbench"
[ -x "$CB" ] || { echo "run.sh: build SMPI first (./run build)" >&2; exit 2; }
OUT="$HERE/node_model.csv"
echo "model,coll,alg,p,size_bytes,r_us" > "$OUT"
for p in 16 64 256; do
  for coll in bcast allreduce allgather; do
    for model in uncalibrated calibrated; do
      echo "[node-model] p=$p $coll $model" >&2
      envs=()
      [ "$model" = uncalibrated ] &&
        envs=(COLLX_SMPI_SYNC=0 COLLX_SMPI_SYNC_RANK=0 COLLX_SMPI_CALL=0)
      tmp="$(mktemp)"
      env "${envs[@]}" "$ROOT/sim/run" fattree-256x16 "$p" -- "$CB" --coll "$coll" \
        --algs native,hier_ms -m 8,64,512,4096 -i 2 -x 1 -q --csv "$tmp" >/dev/null
      awk -F, -v m="$model" 'NR > 1 && $17 == "r" {print m "," $3 "," $4 "," $5 "," $8 "," $19}' \
        "$tmp" >> "$OUT"
      rm -f "$tmp"
    done
  done
done
python3 - "$OUT" "$HERE/../hier.csv" "$HERE/node_model.md" <<'PY'
import csv, sys
rows, pub = {}, {}
for r in csv.DictReader(open(sys.argv[1])):
    rows[(r["model"], r["coll"], r["alg"], int(r["p"]), int(r["size_bytes"]))] = float(r["r_us"])
for r in csv.DictReader(open(sys.argv[2])):
    if r["metric"] == "r" and r["alg"] in ("native", "hier_ms"):
        pub[(r["coll"], r["alg"], int(r["p"]), int(r["size_bytes"]))] = float(r["median_us"])
out = ["| p | collective | size (B) | native | hier_ms published | hier_ms uncalibrated | hier_ms calibrated | speed-up published / uncalibrated / calibrated |",
       "|---|---|---|---|---|---|---|---|"]
keys = sorted({k[1:] for k in rows if k[2] == "hier_ms"}, key=lambda k: (k[2], k[0], k[3]))
for coll, alg, p, size in keys:
    nat = rows[("calibrated", coll, "native", p, size)]
    un, ca = rows[("uncalibrated", coll, alg, p, size)], rows[("calibrated", coll, alg, p, size)]
    pb = pub.get((coll, alg, p, size))
    pn = pub.get((coll, "native", p, size))
    sp = "%.2fx" % (pn / pb) if pb and pn else "-"
    out.append("| %d | %s | %d | %.2f | %s | %.2f | %.2f | %s / %.2fx / %.2fx |" % (
        p, coll, size, nat, "%.2f" % pb if pb else "-", un, ca, sp, nat / un, nat / ca))
open(sys.argv[3], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
