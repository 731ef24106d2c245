#!/usr/bin/env bash
# The rules file's cost per call (docs/results/tune/lookup.md): bench/overhead
# under LD_PRELOAD=libcollx_pmpi.so with COLLX_RULES = a file of N rules
# (tools/gen_rules.py: every timed collective walks ~195 rules whose
# msg_size misses before the one that sends it to native) and without
# rules, on 1 and 4 ranks. overhead times MPI_ (through collx) against
# PMPI_ (never interposed) in the same run, in alternating short blocks of
# calls, and keeps the fastest block of each (a block the scheduler did not
# interrupt: the machine is shared); each configuration runs REPS times and
# the table keeps the smallest time of each and their difference.
#   [COLLX_MPI=openmpi|mpich] bench/lookup.sh [BUILD=build/openmpi] [N=1000] [REPS=5] > table.md
# (COLLX_MPI: the launcher, by default the build folder's name)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$(cd "${1:-$ROOT/build/openmpi}" && pwd)"
N="${2:-1000}"
REPS="${3:-5}"
# shellcheck source=bench/mpi_env.sh
. "$ROOT/bench/mpi_env.sh"
MPI="${COLLX_MPI:-$(basename "$BUILD")}"   # whose launcher: openmpi or mpich
LAUNCH="$(mpi_launcher "$MPI")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$ROOT/tools/gen_rules.py" "$N" > "$tmp/rules.json"

run() {   # run NP RULES_FILE CSV
    local env=(-x "LD_PRELOAD=$BUILD/libcollx_pmpi.so")
    [ "$MPI" = mpich ] && env=(-genv LD_PRELOAD "$BUILD/libcollx_pmpi.so")
    if [ -n "$2" ]; then
        if [ "$MPI" = mpich ]; then env+=(-genv COLLX_RULES "$2"); else env+=(-x "COLLX_RULES=$2"); fi
    fi
    # shellcheck disable=SC2086
    $LAUNCH -n "$1" "${env[@]}" "$BUILD/bench/overhead" --calls 2000 --blocks 51 \
        --stat min --csv "$3" > /dev/null
}

for np in 1 4; do
    for rules in none "$N"; do
        for r in $(seq "$REPS"); do
            file=""
            [ "$rules" != none ] && file="$tmp/rules.json"
            run "$np" "$file" "$tmp/np$np.rules$rules.rep$r.csv"
        done
    done
done

/usr/bin/python3 - "$tmp" "$N" "$REPS" <<'EOF'
import csv, glob, os, sys
tmp, n, reps = sys.argv[1], sys.argv[2], sys.argv[3]
best = {}   # (ranks, comm, collective, rules) -> [min us_mpi, min us_pmpi]
for path in glob.glob(os.path.join(tmp, "np*.csv")):
    np_, rules = os.path.basename(path).split(".")[:2]
    for row in csv.DictReader(open(path)):
        key = (int(np_[2:]), row["comm"], row["collective"], rules[5:])
        cur = best.setdefault(key, [float("inf"), float("inf")])
        cur[0] = min(cur[0], float(row["us_mpi"]))
        cur[1] = min(cur[1], float(row["us_pmpi"]))
print(f"| ranks | comm | collective | no rules: MPI_ - PMPI_ | {n} rules: MPI_ | PMPI_ "
      f"| {n} rules: MPI_ - PMPI_ |")
print("|---|---|---|---|---|---|---|")
for key in sorted(k for k in best if k[3] == n):
    np_, comm, coll, _ = key
    m0, p0 = best[(np_, comm, coll, "none")]
    m, p = best[key]
    print(f"| {np_} | {comm} | {coll} | {m0 - p0:.3f} | {m:.3f} | {p:.3f} | {m - p:.3f} |")
print(f"\nus per call; each time the smallest of {reps} runs, each run the fastest of 51 "
      f"blocks (self: 2000 calls per block, world: 100)")
EOF
