#!/usr/bin/env bash
# ./run apps (no action): the applications end to end, as apps/README.md
# describes: install them (Debian), check each algorithm forced on fake
# nodes and on the emulated cluster, time native / tuned / online / oracle
# on the cluster (block and cyclic placement), write the report.
# Results: build/apps/<time>/ (report.md, plots, CSV, JSON). About 1.5 h on
# 2 cores. COLLX_APPS=a,b picks applications; COLLX_APPS_ROUNDS the ABBA
# rounds (default 5); COLLX_CLUSTER the cluster's name (default apps).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export COLLX_CLUSTER="${COLLX_CLUSTER:-apps}"
apps="${COLLX_APPS:-}"
out="$ROOT/build/apps/$(date +%Y%m%d-%H%M%S)"
collx() { "$ROOT/run" apps "$@" ${apps:+--apps "$apps"} --out "$out"; }
step() { echo "[apps] == $* ($(date +%H:%M:%S))" >&2; }

step "install the applications"
"$ROOT/run" apps setup ${apps:+--apps "$apps"}
step "the emulated cluster: 4 nodes x 2, two switches, 1 Gbit/s links, 100 Mbit/s uplink"
"$ROOT/run" cluster up 4x2 --switches 2 --uplink-rate 100mbit
rc=0
step "correct, fake nodes (8 ranks, 2 per node), every algorithm forced"
collx correct --where fake || rc=1
step "correct, the emulated cluster (block), every algorithm forced"
collx correct --where cluster || rc=1
step "end to end: profile, oracle, tune, ABBA (block, cyclic)"
collx time --rounds "${COLLX_APPS_ROUNDS:-5}" || rc=1
"$ROOT/run" apps report "$out"
step "done: $out/report.md"
exit $rc
