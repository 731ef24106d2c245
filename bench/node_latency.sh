#!/usr/bin/env bash
# Small messages on real cores (issue 61): collx's node-aware algorithms
# and its classics against the MPI's own, two ranks on two cores, bound,
# not oversubscribed, in one run per MPI.
#
#   bench/node_latency.sh [OUT_DIR]      (default results/node-latency)
#
# For each MPI built here (MPIS, default every one of openmpi mpich
# openmpi5 mpich5 mpich5abi impi with build/<mpi>/bench/collbench): collbench -c
# (every result checked) at 8, 64, 512 B for bcast, allreduce, allgather
# (native, hier, hier_ms) and reduce (native, hier); also collx's binomial
# bcast, recursive_doubling allreduce and bruck allgather beside the MPI's
# own same algorithm, 8 B, forced the MPI's way (Open MPI 4/5: coll_tuned
# bcast 6, allreduce 3, allgather 2; MPICH 4/5: MPIR_CVAR_*_INTRA_ALGORITHM,
# its device collectives off; Intel MPI: I_MPI_ADJUST_* 1, 1, 2, pt2pt
# within the node); under Open MPI 5 also its own
# hierarchical han (coll_han_priority 100) as a row "han" beside native.
# RUNS runs (default 3) of ITERS calls (default 300);
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
  local bin="$ROOT/build/$mpi/bench/collbench" mpis="$ROOT/build/mpis"
  case "$mpi" in
    openmpi) env "${envs[@]}" /usr/bin/mpirun.openmpi -n 2 --bind-to core "$bin" "$@" ;;
    mpich) env "${envs[@]}" /usr/bin/mpiexec.mpich -n 2 -bind-to core "$bin" "$@" ;;
    openmpi5) env "${envs[@]}" "$mpis/openmpi5/bin/mpirun" -n 2 --bind-to core "$bin" "$@" ;;
    mpich5|mpich5abi) env "${envs[@]}" "$mpis/mpich5/bin/mpiexec" -n 2 -bind-to core "$bin" "$@" ;;
    # Intel's Hydra pins by its own variables (one rank per core here).
    impi) env I_MPI_PIN=1 I_MPI_PIN_PROCESSOR_LIST=0,1 "${envs[@]}" \
            "$mpis/impi/bin/mpiexec" -n 2 "$bin" "$@" ;;
  esac
}

# forced MPI COLL ALG: the environment that makes the MPI run its own ALG
forced() {
  case "$1:$2" in
    openmpi*:bcast) echo OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_bcast_algorithm=6 ;;
    openmpi*:allreduce) echo OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_allreduce_algorithm=3 ;;
    openmpi*:allgather) echo OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_allgather_algorithm=2 ;;
    # MPICH's device (CH4 POSIX) collectives come first unless turned
    # off: without it the "forced" call is its shared-memory bcast.
    mpich*:bcast) echo MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_BCAST_INTRA_ALGORITHM=binomial ;;
    mpich*:allreduce) echo MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling ;;
    mpich*:allgather) echo MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM=brucks ;;
    # Intel's shared-memory collectives likewise (I_MPI_COLL_INTRANODE)
    impi:bcast) echo I_MPI_COLL_INTRANODE=pt2pt I_MPI_ADJUST_BCAST=1 ;;
    impi:allreduce) echo I_MPI_COLL_INTRANODE=pt2pt I_MPI_ADJUST_ALLREDUCE=1 ;;
    impi:allgather) echo I_MPI_COLL_INTRANODE=pt2pt I_MPI_ADJUST_ALLGATHER=2 ;;
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

for mpi in ${MPIS:-openmpi mpich openmpi5 mpich5 mpich5abi impi}; do
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
    if [ "$mpi" = openmpi5 ]; then
      for coll in bcast allreduce allgather reduce; do
        measure "$mpi" "$run" han OMPI_MCA_coll_han_priority=100 -- --coll "$coll" --algs native -m 8,64,512
      done
    fi
    for pair in bcast:binomial allreduce:recursive_doubling allgather:bruck; do
      IFS=: read -r coll alg <<< "$pair"
      measure "$mpi" "$run" classic -- --coll "$coll" --algs "$alg" -m 8
      # shellcheck disable=SC2046   # forced's words are VAR=value pairs
      measure "$mpi" "$run" classic $(forced "$mpi" "$coll") -- --coll "$coll" --algs native -m 8
    done
  done
done

# Summary. This machine's two vCPUs move between fast and slow placements
# (an 8-B exchange 0.2 or 0.8 us) from one minute to the next, so a
# ratio is taken within one run (native and collx in one launch; the
# classics' two launches back to back) and the median over runs reported,
# with the range; the times are each case's best run.
python3 - "$OUT" <<'EOF'
import csv, glob, math, os, statistics, sys
out = sys.argv[1]
lines = []
for path in sorted(glob.glob(os.path.join(out, "*.csv"))):
    mpi = os.path.basename(path)[:-4]
    t = {}   # (run, tag, coll, alg, size) -> median us
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["metric"] != "r":
                continue
            if r["valid"] == "0":
                sys.exit("node_latency: %s %s %s %s B gave a wrong result" %
                         (mpi, r["coll"], r["alg"], r["size_bytes"]))
            tag, alg = r["tag"], r["alg"]
            if tag == "classic" and alg == "native":
                alg = "own"
            if tag == "han":   # Open MPI 5's own hierarchical, a row beside hier
                tag, alg = "node", "han(MPI)"
            t[(r["run"], tag, r["coll"], alg, int(r["size_bytes"]))] = float(r["median_us"])
    runs = sorted({k[0] for k in t})

    def row(tag, coll, alg, size, ref):
        """best times of alg and ref, per-run ratios ref/alg"""
        rs = [t[(u, tag, coll, ref, size)] / t[(u, tag, coll, alg, size)] for u in runs
              if (u, tag, coll, ref, size) in t and (u, tag, coll, alg, size) in t]
        best = lambda a: min(t[k] for k in t if k[1:] == (tag, coll, a, size))
        return (best(ref), best(alg), rs) if rs else (0, 0, rs)

    cases = sorted({k[1:] for k in t})
    rows, ratios = [], []
    for tag, coll, alg, size in cases:
        if tag != "node" or alg == "native":
            continue
        nat, mine, rs = row(tag, coll, alg, size, "native")
        if not rs:
            continue
        med = statistics.median(rs)
        if not alg.endswith("(MPI)"):   # the targets are collx's
            ratios.append(med)
        rows.append("| %s | %s | %d | %.2f | %.2f | %.2fx (%.2f-%.2f) |" %
                    (coll, alg, size, nat, mine, med, min(rs), max(rs)))
    if not ratios:
        continue
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    lines += ["## %s, p = 2 (two cores, bound): median us, best run; speed: median of %d runs (range)" % (mpi, len(runs)), "",
              "| collective | collx | size (B) | native | collx | speed vs native |",
              "|---|---|---|---|---|---|"] + rows
    lines += ["", "Geometric mean %.2fx, worst %.2fx (> 1: collx faster)." %
              (geo, min(ratios)), ""]
    classic = sorted({(c, a) for (tag, c, a, s) in cases if tag == "classic" and a != "own"})
    if classic:
        lines += ["Same algorithm, 8 B: collx's against the MPI's own (forced), per run:", "",
                  "| collective | algorithm | MPI's own | collx | collx / own |", "|---|---|---|---|---|"]
        for c, a in classic:
            own, mine, rs = row("classic", c, a, 8, "own")
            if rs:
                inv = [1 / x for x in rs]
                lines.append("| %s | %s | %.2f | %.2f | %.2fx (%.2f-%.2f) |" %
                             (c, a, own, mine, statistics.median(inv), min(inv), max(inv)))
        lines.append("")
text = "\n".join(lines)
open(os.path.join(out, "summary.md"), "w").write(text + "\n")
print(text)
EOF
