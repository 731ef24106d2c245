#!/usr/bin/env bash
# smpi_csv.sh SIMRUN PLATFORM NP COLLBENCH OUT args...: runs collbench in
# SMPI twice, checks that the CSV parses (rows, numbers, valid results) and
# that both runs wrote byte-identical CSV (determinism).
set -euo pipefail
simrun="$1" plat="$2" np="$3" bin="$4" out="$5"; shift 5
mkdir -p "$(dirname "$out")"
"$simrun" "$plat" "$np" -- "$bin" -q --csv "$out.1.csv" "$@" >/dev/null
"$simrun" "$plat" "$np" -- "$bin" -q --csv "$out.2.csv" "$@" >/dev/null
/usr/bin/python3 - "$out.1.csv" "$plat" "$np" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows, "no rows"
for r in rows:
    assert r["platform"] == sys.argv[2] and int(r["p"]) == int(sys.argv[3]), r
    for k in ("min_us", "median_us", "mean_us", "max_us"):
        float(r[k])
    assert float(r["min_us"]) >= 0 and float(r["min_us"]) <= float(r["max_us"]), r
    assert r["valid"] in ("", "1"), "wrong result: %s" % r
print("csv ok: %d rows" % len(rows))
PY
cmp "$out.1.csv" "$out.2.csv" && echo "deterministic: identical CSV"
