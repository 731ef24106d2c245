#!/usr/bin/env bash
# What online tuning costs per call once its sites have settled
# (docs/results/tune/online.md): bench/overhead under
# LD_PRELOAD=libcollx_pmpi.so (MPI_ through collx against PMPI_ in the same
# run, alternating blocks, the fastest block of each kept) in three
# configurations, on 1 and 4 ranks:
#   none    nothing selected (the interposer's pass-through);
#   rules   COLLX_RULES = the cache file online tuning wrote (the same
#           choices, looked up by the rules' size classes);
#   online  COLLX_TUNE_ONLINE=1 starting from that cache (every site
#           settled at its first call, looked up by online tuning).
# A first online run writes the cache (its sites settle during overhead's
# warm-up blocks). Each configuration runs REPS times; the table keeps the
# smallest time of each.
#   [COLLX_MPI=openmpi|mpich] bench/online_overhead.sh [BUILD=build/openmpi] [REPS=5] > table.md
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build/openmpi}" && pwd)"
REPS="${2:-5}"
# shellcheck source=bench/mpi_env.sh
. "$ROOT/bench/mpi_env.sh"
MPI="${COLLX_MPI:-$(basename "$BUILD")}"   # whose launcher: openmpi or mpich
LAUNCH="$(mpi_launcher "$MPI")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

run() {   # run NP CSV NAME=VALUE...
    local np="$1" csv="$2" preload="$BUILD/libcollx_pmpi.so" env=()
    shift 2
    if [ "$MPI" = mpich ]; then
        preload="$preload${LD_PRELOAD:+:$LD_PRELOAD}"   # the yield helper, if given
        env=(-genv LD_PRELOAD "$preload")
        for kv in "$@"; do env+=(-genv "${kv%%=*}" "${kv#*=}"); done
    else
        env=(-x "LD_PRELOAD=$preload")
        for kv in "$@"; do env+=(-x "$kv"); done
    fi
    $LAUNCH -n "$np" "${env[@]}" "$BUILD/bench/overhead" --calls 2000 --blocks 51 \
        --stat min --csv "$csv" > /dev/null
}

for np in 1 4; do
    cache="$tmp/cache$np"
    run "$np" "$tmp/prime$np.csv" COLLX_TUNE_ONLINE=1 "COLLX_TUNE_CACHE=$cache"
    file="$(ls "$cache"/*.json)"
    cp "$file" "$tmp/rules$np.json"
    for r in $(seq "$REPS"); do
        run "$np" "$tmp/np$np.none.rep$r.csv"
        run "$np" "$tmp/np$np.rules.rep$r.csv" "COLLX_RULES=$tmp/rules$np.json"
        run "$np" "$tmp/np$np.online.rep$r.csv" COLLX_TUNE_ONLINE=1 "COLLX_TUNE_CACHE=$cache"
    done
    echo "p=$np: what online tuning settled on (the cache):" >&2
    /usr/bin/python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["rules"]:
    print(" ", r["collective"], r["comm_size"]["min"], r["msg_size"], r["algorithm"], "--", r["comment"])' \
        "$tmp/rules$np.json" >&2
done

/usr/bin/python3 - "$tmp" "$REPS" <<'EOF'
import csv, glob, os, sys
tmp, reps = sys.argv[1], sys.argv[2]
best = {}   # (ranks, comm, collective, config) -> [min us_mpi, min us_pmpi]
for path in glob.glob(os.path.join(tmp, "np*.csv")):
    np_, config = os.path.basename(path).split(".")[:2]
    for row in csv.DictReader(open(path)):
        key = (int(np_[2:]), row["comm"], row["collective"], config)
        cur = best.setdefault(key, [float("inf"), float("inf")])
        cur[0] = min(cur[0], float(row["us_mpi"]))
        cur[1] = min(cur[1], float(row["us_pmpi"]))
print("| ranks | comm | collective | PMPI_ | none: MPI_ - PMPI_ | rules: MPI_ - PMPI_ "
      "| online: MPI_ - PMPI_ | online - rules |")
print("|---|---|---|---|---|---|---|---|")
for key in sorted(k for k in best if k[3] == "online"):
    np_, comm, coll, _ = key
    n, r, o = (best[(np_, comm, coll, c)] for c in ("none", "rules", "online"))
    pm = min(n[1], r[1], o[1])
    print(f"| {np_} | {comm} | {coll} | {pm:.3f} | {n[0] - n[1]:.3f} | {r[0] - r[1]:.3f} "
          f"| {o[0] - o[1]:.3f} | {o[0] - r[0]:+.3f} |")
print(f"\nus per call; each time the smallest of {reps} runs, each run the fastest of 51 "
      f"blocks (self: 2000 calls per block, world: 100); MPI_ - PMPI_ within one run")
EOF
