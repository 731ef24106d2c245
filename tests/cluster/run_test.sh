#!/usr/bin/env bash
# tests/cluster/run_test.sh NODESxPPN [up options] [--placement P]
#                           [--launcher L] [--collxrun "OPTIONS"] -n P
#                           -- PROGRAM ARGS...
# One cluster test: brings up an emulated cluster of its own (a fresh
# name, so tests and CI jobs never share one), runs PROGRAM on it through
# `./run cluster run` with $COLLX_MPI, and removes the cluster when it
# ends, also on failure or a signal. The run is cut at
# $COLLX_CLUSTER_TEST_TIMEOUT seconds (default 540), before CTest's own
# timeout would kill this script and leave the cluster behind.
# CLUSTER_TEST_PRELOAD: put in front of LD_PRELOAD for the run only.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

up_args=() run_args=()
while (($#)) && [ "$1" != -- ]; do
  case "$1" in
    --placement|--launcher|-n) run_args+=("$1" "${2:?}"); shift 2 ;;
    --collxrun) run_args+=("$1" "${2?}"); shift 2 ;;
    *) up_args+=("$1"); shift ;;
  esac
done
[ "${1:-}" = -- ] || { echo "usage: run_test.sh NODESxPPN [...] -n P -- PROGRAM ARGS" >&2; exit 2; }
shift

export COLLX_CLUSTER_RUN="${COLLX_CLUSTER_RUN:-/run/collx-cluster}"
# Clusters of test runs that died without cleaning up (their owner is gone).
# (Another test may be removing its own cluster meanwhile: a config gone
# between the listing and the read is no cluster to reap.)
for config in "$COLLX_CLUSTER_RUN"/t*/config; do
  owner="$(sed -n 's/.* OWNER=\([0-9]*\)$/\1/p' "$config" 2>/dev/null || true)"
  if [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null; then
    COLLX_CLUSTER="$(basename "$(dirname "$config")")" "$ROOT/cluster/down.sh"
  fi
done
# A name no other cluster has: t + 6 hex digits.
while :; do
  COLLX_CLUSTER="$(printf 't%06x' $(((RANDOM << 9 ^ RANDOM ^ $$) & 0xffffff)))"
  [ -e "$COLLX_CLUSTER_RUN/$COLLX_CLUSTER" ] || [ -e "/run/netns/$COLLX_CLUSTER-head" ] || break
done
export COLLX_CLUSTER COLLX_CLUSTER_OWNER=$$
child=""
trap '"$ROOT/cluster/down.sh"' EXIT
# bash runs a trap only once its foreground command is done: the run goes
# in the background, and a signal stops it (down.sh ends the rest).
trap '[ -z "$child" ] || kill -TERM "$child" 2>/dev/null; exit 143' INT TERM
# The layout collx finds must be the cluster's: no fake nodes.
unset COLLX_FAKE_NODES COLLX_RANKS_PER_NODE

"$ROOT/cluster/up.sh" "${up_args[@]}"
# CLUSTER_TEST_PRELOAD: the LD_PRELOAD of the `./run cluster run` command
# line (as a user would write it), not of this script and CMake.
preload="${CLUSTER_TEST_PRELOAD:-}${CLUSTER_TEST_PRELOAD:+${LD_PRELOAD:+:}}${LD_PRELOAD:-}"
LD_PRELOAD="$preload" timeout -k 10 "${COLLX_CLUSTER_TEST_TIMEOUT:-540}" \
  "$ROOT/run" cluster run "${run_args[@]}" -- "$@" &
child=$!
rc=0
wait "$child" || rc=$?
((rc != 124)) || echo "run_test.sh: cut after ${COLLX_CLUSTER_TEST_TIMEOUT:-540} s" >&2
exit "$rc"
