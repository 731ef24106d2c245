#!/usr/bin/env bash
# What online tuning settles on at p ranks of this machine, and what that
# is worth (docs/results/tune/online.md): collbench --algs selected beside
# native and every candidate forced, under COLLX_TUNE_ONLINE=1 with no
# cache, REPS runs per collective. Each site's trials end within
# collbench's 80 warm-ups (10 + at most 64 trial calls), so its 200 timed
# calls run the settled choice. Per size: the choice of each run (from the
# COLLX_STATS CSV), and the smallest over runs of the median run time r of
# selected, native and the best forced algorithm.
#   [COLLX_MPI=openmpi|mpich] bench/online_choices.sh [BUILD=build/openmpi] [NP=4] [REPS=3] > table.md
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build/openmpi}" && pwd)"
NP="${2:-4}"
REPS="${3:-3}"
# shellcheck source=bench/mpi_env.sh
. "$ROOT/bench/mpi_env.sh"
MPI="${COLLX_MPI:-$(basename "$BUILD")}"
LAUNCH="$(mpi_launcher "$MPI")"
SIZES=8,256,8K,256K,1M
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

declare -A ALGS=(
    [allreduce]=selected,native,recursive_doubling,rabenseifner,reduce_bcast,hier,hier_ms
    [bcast]=selected,native,linear,binomial,hier,hier_ms)

for coll in allreduce bcast; do
    for r in $(seq "$REPS"); do
        env=(COLLX_TUNE_ONLINE=1 COLLX_TUNE_CACHE=off "COLLX_STATS=$tmp/$coll.$r.stats.csv")
        if [ "$MPI" = mpich ]; then
            args=(); for kv in "${env[@]}"; do args+=(-genv "${kv%%=*}" "${kv#*=}"); done
        else
            args=(); for kv in "${env[@]}"; do args+=(-x "$kv"); done
        fi
        $LAUNCH -n "$NP" "${args[@]}" "$BUILD/bench/collbench" --coll "$coll" \
            --algs "${ALGS[$coll]}" -m "$SIZES" -x 80 -i 200 -q \
            --csv "$tmp/$coll.$r.csv" > /dev/null
    done
done

/usr/bin/python3 - "$tmp" "$REPS" "$NP" <<'EOF'
import csv, glob, os, sys
tmp, reps, np_ = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for coll in ("allreduce", "bcast"):
    chose, med = {}, {}   # size class low -> [choice per run]; (alg, size) -> [median r]
    for r in range(1, reps + 1):
        for row in csv.DictReader(open(os.path.join(tmp, f"{coll}.{r}.stats.csv"))):
            if row["table"] == "online":
                chose.setdefault(int(row["bytes"]), []).append(row["algorithm"])
        for row in csv.DictReader(open(os.path.join(tmp, f"{coll}.{r}.csv"))):
            if row["metric"] == "r":
                med.setdefault((row["alg"], int(row["size_bytes"])), []).append(
                    float(row["median_us"]))
    sizes = sorted({m for _, m in med})
    print(f"\n{coll}, p={np_}: us, the smallest over {reps} runs of the median run time r "
          "(200 calls)\n")
    print("| size (B) | settled on, run by run | selected | native | best forced | "
          "selected / native | selected / best |")
    print("|---|---|---|---|---|---|---|")
    for m in sizes:
        cls = 1 << (m.bit_length() - 1)
        best = {a: min(v) for (a, s), v in med.items() if s == m}
        sel, nat = best.pop("selected"), best["native"]
        oracle = min(best, key=best.get)
        print(f"| {m} | {', '.join(chose.get(cls, ['?']))} | {sel:.1f} | {nat:.1f} | "
              f"{oracle} {best[oracle]:.1f} | {sel / nat:.2f} | {sel / best[oracle]:.2f} |")
EOF
