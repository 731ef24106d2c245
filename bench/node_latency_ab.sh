#!/usr/bin/env bash
# Two builds of collx measured in turn (issue 61): the node cases of
# bench/node_latency.sh (bcast, allreduce, allgather at 8, 64, 512 B with
# native, hier, hier_ms; reduce with native, hier), Open MPI, two ranks on
# two cores (--bind-to core), for each checkout given, RUNS rounds taking
# them in turn (small-message times on a shared machine drift between
# launches: taking the trees in turn spreads the drift over both).
#
#   bench/node_latency_ab.sh OUT_DIR TREE_A TREE_B ...
#
# A TREE is a checkout with build/openmpi built (e.g. a clone of the
# commit before: git clone . /tmp/before && git -C /tmp/before checkout
# REV && (cd /tmp/before && ./run build)). Writes OUT_DIR/all.csv
# (collbench's rows, the tree first) and OUT_DIR/summary.md: per point
# each tree's best median (us) and its speed against its own native, and
# per tree the geometric mean and the worst point. RUNS (default 4),
# ITERS (default 1000).
set -euo pipefail
OUT="$1"; shift
RUNS="${RUNS:-4}" ITERS="${ITERS:-1000}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
unset OMPI_MCA_rmaps_base_oversubscribe OMPI_MCA_mpi_yield_when_idle
mkdir -p "$OUT"
rm -f "$OUT/all.csv"
tmp="$(mktemp)"
for run in $(seq 1 "$RUNS"); do
  for tree in "$@"; do
    echo "[node-latency-ab] round $run of $RUNS: $tree" >&2
    for coll in bcast allreduce allgather reduce; do
      algs=native,hier,hier_ms
      [ "$coll" = reduce ] && algs=native,hier
      /usr/bin/mpirun.openmpi -n 2 --bind-to core "$tree/build/openmpi/bench/collbench" \
        --coll "$coll" --algs "$algs" -m 8,64,512 -i "$ITERS" -f -c -q --csv "$tmp" >/dev/null
      [ -f "$OUT/all.csv" ] || { printf 'tree,'; head -1 "$tmp"; } > "$OUT/all.csv"
      awk -v t="$tree" 'NR > 1 {print t "," $0}' "$tmp" >> "$OUT/all.csv"
    done
  done
done
rm -f "$tmp"
python3 - "$OUT" "$@" <<'PY'
import csv, math, sys
out, trees = sys.argv[1], sys.argv[2:]
best = {}
with open(out + "/all.csv") as f:
    for r in csv.DictReader(f):
        if r["metric"] != "r":
            continue
        if r["valid"] == "0":
            sys.exit(f"node_latency_ab: {r['tree']} {r['coll']} {r['alg']} gave a wrong result")
        k = (r["tree"], r["coll"], r["alg"], int(r["size_bytes"]))
        best[k] = min(best.get(k, 1e30), float(r["median_us"]))
points = sorted({k[1:] for k in best if k[2] != "native"})
lines = ["Best median (us) of the rounds and speed against the same tree's native "
         "(> 1: collx faster), Open MPI, p = 2, bound:", "",
         "| collective | collx | size (B) | " +
         " | ".join(f"{t}: native, collx, speed" for t in trees) + " |",
         "|---|---|---|" + "---|" * len(trees)]
ratios = {t: [] for t in trees}
for c, a, s in points:
    cells = []
    for t in trees:
        nat, mine = best.get((t, c, "native", s)), best.get((t, c, a, s))
        if nat and mine:
            ratios[t].append(nat / mine)
            cells.append(f"{nat:.2f}, {mine:.2f}, {nat / mine:.2f}x")
        else:
            cells.append("-")
    lines.append(f"| {c} | {a} | {s} | " + " | ".join(cells) + " |")
lines.append("")
for t in trees:
    r = ratios[t]
    if r:
        lines.append(f"{t}: geometric mean {math.exp(sum(map(math.log, r)) / len(r)):.2f}x, "
                     f"worst {min(r):.2f}x")
text = "\n".join(lines) + "\n"
open(out + "/summary.md", "w").write(text)
print(text)
PY
