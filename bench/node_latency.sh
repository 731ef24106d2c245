#!/usr/bin/env bash
# Small messages on real cores (issue 61): collx's node-aware algorithms
# and its classics against the MPI's own, two ranks on two cores, bound,
# not oversubscribed, in one run per MPI.
#
#   bench/node_latency.sh [OUT_DIR]      (default results/node-latency)
#
# For each MPI built here (build/openmpi, build/mpich): collbench -c (every
# result checked) at 8, 64, 512 B for bcast, allreduce, allgather (native,
# hier, hier_ms) and reduce (native, hier); under Open MPI also collx's
# binomial bcast, recursive_doubling allreduce and bruck allgather beside
# Open MPI's own same algorithm (coll_tuned forced: bcast 6, allreduce 3,
# allgather 2), 8 B. RUNS runs (default 3) of ITERS calls (default 300);
# per case the best run's median. Writes OUT_DIR/<mpi>.csv (collbench's
# rows, a column run added) and OUT_DIR/summary.md (speed vs native, the
# geometric mean and the worst), and prints the summary.
#
# Needs two free cores: on a loaded or oversubscribed machine it measures
# the scheduler. Not for SMPI (sim/README.md: node_sync calibrates it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/results/node-latency}"
RUNS="${RUNS:-3}" ITERS="${ITERS:-300}"
mkdir -p "$OUT"
# Open MPI as root, no CMA in the sandbox; nothing that makes ranks yield
# (bench/mpi_env.sh sets those for the tests) and no oversubscription.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
unset OMPI_MCA_rmaps_base_oversubscribe OMPI_MCA_mpi_yield_when_idle

say() { echo "[node-latency] $*" >&2; }

launch() {   # MPI ENV... -- collbench args
  local mpi="$1"; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local bin="$ROOT/build/$mpi/bench/collbench"
  case "$mpi" in
    openmpi) env "${envs[@]}" /usr/bin/mpirun.openmpi -n 2 --bind-to core "$bin" "$@" ;;
    mpich) env "${envs[@]}" /usr/bin/mpiexec.mpich -n 2 -bind-to core "$bin" "$@" ;;
  esac
}

measure() {   # MPI RUN TAG ENV... -- collbench args: rows into $OUT/MPI.csv
  local mpi="$1" run="$2" tag="$3"; shift 3
  local tmp
  tmp="$(mktemp)"
  launch "$mpi" "$@" -i "$ITERS" -f -c -q --csv "$tmp" >/dev/null
  awk -v run="$run" -v tag="$tag" 'NR > 1 {print run "," tag "," $0}' "$tmp" >> "$OUT/$mpi.csv"
  rm -f "$tmp"
}

for mpi in openmpi mpich; do
  if [ ! -x "$ROOT/build/$mpi/bench/collbench" ]; then
    say "$mpi: build/$mpi not built (COLLX_MPI=$mpi ./run build); left out"
    continue
  fi
  echo "run,tag,kind,platform,coll,alg,p,ppn,root,size_bytes,problem,b,m,m_pad,max_delay_ms,seed,warmup,iters,metric,min_us,median_us,mean_us,max_us,valid,ref,ref_us,ratio,violated,ran,host_s,nodes,shape,first_us" > "$OUT/$mpi.csv"
  for run in $(seq 1 "$RUNS"); do
    say "$mpi: run $run of $RUNS"
    for coll in bcast allreduce allgather reduce; do
      algs=native,hier,hier_ms
      [ "$coll" = reduce ] && algs=native,hier
      measure "$mpi" "$run" node -- --coll "$coll" --algs "$algs" -m 8,64,512
    done
    if [ "$mpi" = openmpi ]; then
      for pair in bcast:binomial:6 allreduce:recursive_doubling:3 allgather:bruck:2; do
        IFS=: read -r coll alg id <<< "$pair"
        measure "$mpi" "$run" classic -- --coll "$coll" --algs "$alg" -m 8
        measure "$mpi" "$run" classic OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
          "OMPI_MCA_coll_tuned_${coll}_algorithm=$id" -- --coll "$coll" --algs native -m 8
      done
    fi
  done
done

python3 - "$OUT" <<'EOF'
import csv, glob, math, os, sys
out = sys.argv[1]
lines = []
for path in sorted(glob.glob(os.path.join(out, "*.csv"))):
    mpi = os.path.basename(path)[:-4]
    best = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["metric"] != "r" or r["valid"] not in ("1", ""):
                if r["metric"] == "r" and r["valid"] == "0":
                    sys.exit("node_latency: %s %s %s %s B gave a wrong result" %
                             (mpi, r["coll"], r["alg"], r["size_bytes"]))
                continue
            forced = r["tag"] == "classic" and r["alg"] == "native"
            key = (r["tag"], r["coll"], "own" if forced else r["alg"], int(r["size_bytes"]))
            best[key] = min(best.get(key, 1e30), float(r["median_us"]))
    rows, ratios = [], []
    for (tag, coll, alg, size), t in sorted(best.items()):
        if tag != "node" or alg == "native":
            continue
        nat = best.get(("node", coll, "native", size))
        if nat:
            ratios.append(nat / t)
            rows.append("| %s | %s | %d | %.2f | %.2f | %.2fx |" % (coll, alg, size, nat, t, nat / t))
    if not rows:
        continue
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    lines += ["## %s, p = 2 (two cores, bound): median us, best of the runs" % mpi, "",
              "| collective | collx | size (B) | native | collx | speed vs native |",
              "|---|---|---|---|---|---|"] + rows
    lines += ["", "Geometric mean %.2fx, worst %.2fx (> 1: collx faster)." %
              (geo, min(ratios)), ""]
    classic = [(c, a) for (tag, c, a, s) in best if tag == "classic" and a != "own"]
    if classic:
        lines += ["Same algorithm, 8 B: collx's against the MPI's own (forced):", "",
                  "| collective | algorithm | MPI's own | collx | collx / own |", "|---|---|---|---|---|"]
        for c, a in sorted(classic):
            own, mine = best.get(("classic", c, "own", 8)), best[("classic", c, a, 8)]
            if own:
                lines.append("| %s | %s | %.2f | %.2f | %.2fx |" % (c, a, own, mine, mine / own))
        lines.append("")
text = "\n".join(lines)
open(os.path.join(out, "summary.md"), "w").write(text + "\n")
print(text)
EOF
