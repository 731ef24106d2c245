#!/usr/bin/env bash
# collxrun (bin/collxrun.in) as a user meets it: a real launch through the
# build's collxrun, settings from options, the environment and a config
# file reaching every rank; and every bad input a message and exit code 2,
# never a hang or a silent native run.
#   collxrun.sh COLLXRUN LAUNCHER NP_FLAG APP OTHER_MPI_APP|- [LAUNCHER FLAGS...]
# APP: tests/robust/settings.c (plain MPI; "missing" mode checks results).
set -u
collxrun="$1" launcher="$2" npf="$3" app="$4" other="$5"
shift 5
flags=("$@")
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fails=0

# expect NAME RC REGEX -- command...: the exit status and a line of output
# (and, while $reject is set, no line matching it)
reject=""
expect() {
  local name="$1" rc="$2" re="$3"
  shift 4
  local out got
  out="$(timeout 120 "$@" 2>&1)"
  got=$?
  if [ "$got" = "$rc" ] && grep -Eq -- "$re" <<<"$out" &&
     { [ -z "$reject" ] || ! grep -Eq -- "$reject" <<<"$out"; }; then
    echo "ok   $name"
  else
    echo "FAIL $name: exit $got (want $rc), output wants /$re/${reject:+, not /$reject/}:"
    sed 's/^/     | /' <<<"$out"
    fails=$((fails + 1))
  fi
}

run=("$launcher" "${flags[@]}" "$npf")

# A real run: the algorithm forced and verbose by options; the program
# checks its results (settings ... OK).
expect option.algorithm 0 'MPI_Allreduce -> recursive_doubling.*' -- \
  "$collxrun" --verbose --algorithm allreduce=recursive_doubling -- "${run[@]}" 3 "$app" missing
expect option.result 0 'settings missing: .* 0 failures: OK' -- \
  "$collxrun" --algorithm allreduce=rabenseifner -- "${run[@]}" 3 "$app" missing
# The environment's COLLX_ settings, and a config file (options and
# variables; the command line wins over both).
printf '# a config file\n--verbose\nCOLLX_BCAST_ALGORITHM=binomial\n--algorithm allreduce=recursive_doubling\n' \
  >"$tmp/collx.conf"
# COLLX_CONFIG is collxrun's own: not handed to the ranks, so the library
# (verbose here) does not call it an unknown setting.
reject='COLLX_CONFIG'
expect config.file 0 'MPI_Bcast -> binomial' -- \
  env COLLX_CONFIG="$tmp/collx.conf" "$collxrun" -- "${run[@]}" 2 "$app" missing
reject=""
# Started without collxrun, the library says what COLLX_CONFIG is (verbose).
expect config.without_collxrun 0 "COLLX_CONFIG is collxrun's config file, which the library does not read" -- \
  "${run[@]}" 2 env LD_PRELOAD="$(dirname "$collxrun")/../libcollx_pmpi.so" COLLX_VERBOSE=1 \
  COLLX_CONFIG="$tmp/collx.conf" "$app" missing
expect config.cmdline_wins 0 'MPI_Allreduce -> rabenseifner' -- \
  env COLLX_CONFIG="$tmp/collx.conf" "$collxrun" --algorithm allreduce=rabenseifner -- \
  "${run[@]}" 2 "$app" missing
expect env.forwarded 0 'MPI_Allreduce -> rabenseifner' -- \
  env COLLX_VERBOSE=1 COLLX_ALLREDUCE_ALGORITHM=rabenseifner "$collxrun" -- "${run[@]}" 2 "$app" missing
# A misspelled setting: rank 0 names the one meant (src/core/util/knob_names.c).
expect misspelled 0 'COLLX_HIER_INTRE is not a collx setting: did you mean COLLX_HIER_INTER\?' -- \
  "$collxrun" --set COLLX_HIER_INTRE=ring -- "${run[@]}" 2 "$app" missing
# The settings the ranks get, by launcher (printed, not run).
expect dryrun.rules 0 "COLLX_RULES[= ]/.*/rules.json" -- \
  bash -c "echo '{}' >'$tmp/rules.json' && cd '$tmp' && '$collxrun' --dry-run --rules rules.json -- ${run[*]} 2 '$app'"

# Bad input: a message that says what to do, exit code 2.
expect err.no_launcher 2 'no launcher' -- "$collxrun" --verbose
expect err.unknown_launcher 2 "'bash' is not a launcher collxrun knows" -- \
  "$collxrun" -- bash -c true
expect err.missing_launcher 2 "launcher 'no-such-mpirun' not found" -- \
  "$collxrun" -- no-such-mpirun -n 2 "$app"
expect err.algorithm_form 2 '--algorithm wants COLL=ALG' -- \
  "$collxrun" --algorithm ring -- "${run[@]}" 2 "$app"
expect err.collective 2 "no collective 'allreduc'" -- \
  "$collxrun" --algorithm allreduc=ring -- "${run[@]}" 2 "$app"
# An algorithm the registry lacks (collx_info --list), from any source:
# said before the launch, with the valid names; the winning value counts.
expect err.algorithm 2 "'nosuch' is not an allreduce algorithm \(--algorithm allreduce=nosuch on the command line\); valid: native, recursive_doubling" -- \
  "$collxrun" --algorithm allreduce=nosuch -- "${run[@]}" 2 "$app" missing
expect err.algorithm_env 2 "'nope' is not a bcast algorithm \(COLLX_BCAST_ALGORITHM=nope in the environment\); valid: native, " -- \
  env COLLX_BCAST_ALGORITHM=nope "$collxrun" -- "${run[@]}" 2 "$app" missing
expect err.algorithm_config 2 "'zz' is not an alltoall algorithm \(COLLX_ALLTOALL_ALGORITHM=zz in .*bad_alg.conf:1\)" -- \
  bash -c "printf 'COLLX_ALLTOALL_ALGORITHM=zz\n' >'$tmp/bad_alg.conf' && '$collxrun' --config '$tmp/bad_alg.conf' -- ${run[*]} 2 '$app' missing"
expect algorithm.overridden 0 "COLLX_BCAST_ALGORITHM[= ]binomial" -- \
  env COLLX_BCAST_ALGORITHM=nope "$collxrun" --dry-run --algorithm bcast=binomial -- "${run[@]}" 2 "$app"
expect err.option 2 "unknown option '--fast'" -- "$collxrun" --fast -- "${run[@]}" 2 "$app"
expect err.rules 2 '--rules .*cannot read it' -- \
  "$collxrun" --rules /nonexistent.json -- "${run[@]}" 2 "$app"
expect err.rules_dir 2 '--rules .*: a directory, not a rules file' -- \
  "$collxrun" --rules "$tmp" -- "${run[@]}" 2 "$app"
# The MPI's own tuning file a rules file was decided with, cut short: the
# MPI would run without it and say nothing, so collxrun stops and says where.
printf '# cut\n1\n2    # allreduce\n1\n2\n' >"$tmp/ompi_cut.txt"
printf '{"version": 1, "rules": [], "provenance": {"mpi_tuning": {"file": "%s", "env": {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1", "OMPI_MCA_coll_tuned_dynamic_rules_filename": "%s"}}}}\n' \
  "$tmp/ompi_cut.txt" "$tmp/ompi_cut.txt" >"$tmp/rules_cut.json"
expect err.rules_mpi_file_cut 2 'ompi_cut.txt, is broken: the file ends where the count of message sizes should be' -- \
  "$collxrun" --rules "$tmp/rules_cut.json" -- "${run[@]}" 2 "$app"
expect err.set 2 "'FOO' is not a collx setting" -- "$collxrun" --set FOO=1 -- "${run[@]}" 2 "$app"
printf 'COLLX_VERBOSE=1\nverbose\n' >"$tmp/bad.conf"
expect err.config 2 'bad.conf:2: want COLLX_NAME=VALUE' -- \
  env COLLX_CONFIG="$tmp/bad.conf" "$collxrun" -- "${run[@]}" 2 "$app"
# A program of the other MPI: this build has no interposer for it.
if [ "$other" != - ]; then
  expect err.other_mpi 2 'the program uses .*, but the collx in .* was built for another MPI' -- \
    "$collxrun" -- "${run[@]}" 2 "$other" missing
fi

if [ "$fails" -gt 0 ]; then
  echo "collxrun: $fails case(s) failed"
  exit 1
fi
echo "collxrun: all cases passed"
