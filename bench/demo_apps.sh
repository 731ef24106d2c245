#!/usr/bin/env bash
# bench/demo_apps.sh OUT — the demo's applications step (bench/demo.sh calls
# it after the tune step; a few minutes): LAMMPS from Debian (peptide, PPPM
# with MPI_Alltoallv transposes) on the emulated cluster (cluster "demo": 4
# nodes x 2, two switches, 100 Mbit/s uplink; brought down at the end):
# its profile, the oracle over the algorithms of its main collectives
# (each forced once, and its result checked against native's), the tuner in
# its own launch, then native / tuned / online / oracle in 3 ABBA rounds;
# OUT/apps/ as `collx apps` lays it out (report.md, apps-lammps.png).
# The full runs (3 applications, 5 rounds, two placements): ./run apps,
# docs/results/apps/. Env: DEMO_APPS=0 skips the step (the report says so);
# DEMO_APPS_ROUNDS (3), DEMO_APPS_BUDGET (60 s of tuning).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:?usage: bench/demo_apps.sh OUT}"
D="$OUT/apps"
rm -rf "$D"
if [ "${DEMO_APPS:-1}" = 0 ]; then
  echo "[demo apps] skipped (DEMO_APPS=0)" >&2
  exit 0
fi
collx() { PYTHONPATH="$ROOT/python" /usr/bin/python3 -m collx "$@"; }
export COLLX_CLUSTER="${COLLX_CLUSTER:-demo}"
t0=$(date +%s)
collx apps setup --apps lammps || exit 1
"$ROOT/cluster/up.sh" 4x2 --switches 2 --uplink-rate 100mbit || exit 1
collx apps time --apps lammps --placements block --rounds "${DEMO_APPS_ROUNDS:-3}" \
  --budget "${DEMO_APPS_BUDGET:-60}" --oracle-share 0.3 --out "$D"
rc=$?
"$ROOT/cluster/down.sh" --quiet || true
collx apps report "$D" >/dev/null || rc=1
printf "%-28s %4d s%s\n" "apps (LAMMPS, cluster)" $(( $(date +%s) - t0 )) \
  "$([ "$rc" = 0 ] || echo "  FAILED")" >> "$OUT/timings.txt"
exit "$rc"
