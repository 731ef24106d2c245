#!/usr/bin/env bash
# The README's quick start, as written, as a new user runs it: a non-root
# user, a copy of the sources, an install prefix in its home (not the
# build tree), a login's environment and nothing else: no MPI setting the
# block does not show (no oversubscription: the block's rank count must
# fit this machine's cores). The block runs under bash -e: any failing
# line fails the test; then its output must show the version, the
# algorithm collx chose, a rules file that `collx rules check` accepts and
# the program's own results correct. Once per MPI: with mpich, the user's
# PATH starts with a folder whose mpicc/mpirun/mpiexec are MPICH's, as on a
# machine whose MPI is MPICH (Debian's alternatives, a module).
#   tests/install/quickstart.sh [--mpi openmpi|mpich|both] [WORKDIR]
#   (./run quickstart: both)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
say() { echo "[quickstart] $*"; }
fail() { echo "[quickstart] FAIL: $*" >&2; exit 1; }

mpis=openmpi
if [ "${1:-}" = --mpi ]; then mpis="$2"; shift 2; fi
case "$mpis" in
  both) mpis="openmpi mpich" ;;
  openmpi|mpich) ;;
  *) fail "--mpi takes openmpi, mpich or both (got '$mpis')" ;;
esac

block="$(awk '/<!-- quick-start -->/ {m = 1; next}
              m == 1 && /^```sh/ {m = 2; next}
              m == 2 && /^```/ {exit}
              m == 2 {print}' "$ROOT/README.md")"
[ -n "$block" ] || fail "README.md has no \`\`\`sh block after <!-- quick-start -->"

# A non-root user with a home of its own (root: a user made for it).
if [ "$(id -u)" = 0 ]; then
  user=collx-quickstart
  id "$user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$user"
  home="$(getent passwd "$user" | cut -d: -f6)"
  as_user() { runuser -u "$user" -- "$@"; }
else
  user="$(id -un)"
  home="${1:-$(mktemp -d)}"
  as_user() { "$@"; }
fi
printf '%s\n' "$block" >"$home/quickstart.block.sh"

check() {  # check LOG WHAT REGEX
  grep -Eq -- "$3" "$1" || fail "$2: no line matching /$3/ in $1"
  say "ok: $2"
}

# run_with MPI: the block, from a fresh copy of the sources and an empty
# prefix, with MPI's mpicc/mpirun first on the user's PATH.
run_with() {
  local mpi="$1" path=/usr/local/bin:/usr/bin:/bin
  rm -rf "$home/collx" "$home/.local" "$home/mpi-$mpi"
  mkdir -p "$home/collx"
  # The sources as a clone has them (tracked files, this working tree's text).
  (cd "$ROOT" && git ls-files -z | xargs -0 cp --parents -t "$home/collx")
  if [ "$mpi" = mpich ]; then
    # Scripts, not links: MPICH's launcher finds its proxy beside itself.
    mkdir -p "$home/mpi-$mpi"
    for tool in mpicc mpirun mpiexec; do
      printf '#!/bin/sh\nexec /usr/bin/%s.mpich "$@"\n' "$tool" >"$home/mpi-$mpi/$tool"
      chmod 755 "$home/mpi-$mpi/$tool"
    done
    path="$home/mpi-$mpi:$path"
  fi
  [ "$(id -u)" = 0 ] && chown -R "$user:" "$home"

  say "[$mpi] the README's quick start as $user in $home/collx, PATH=$path:"
  sed 's/^/    /' "$home/quickstart.block.sh"
  local log="$home/quickstart.$mpi.log" start rc
  start=$(date +%s)
  # A clean environment, as a login gives: no MPI setting comes along.
  set +e
  as_user env -i HOME="$home" USER="$user" PATH="$path" LANG=C.UTF-8 \
    bash -c 'set -eo pipefail; set -x; cd "$HOME/collx"; . "$HOME/quickstart.block.sh"' 2>&1 |
    tee "$log" | grep --line-buffered -E '^\+ |collx:|my_app:|\[tune|error|Error' | sed 's/^/  | /'
  rc=${PIPESTATUS[0]}
  set -e
  say "[$mpi] the block took $(( $(date +%s) - start )) s, exit status $rc"
  [ "$rc" = 0 ] || fail "[$mpi] a line of the quick start failed (full output: $log)"

  local family='Open MPI'
  [ "$mpi" = mpich ] && family=MPICH
  check "$log" "collx_info --version" "^collx [0-9]+\.[0-9]+\.[0-9]+ for $family"
  check "$log" "collxrun --verbose: the banner" 'collx: collx [0-9.]+ for .*, running on .*; 2 ranks, settings the same on every rank; rules: none'
  check "$log" "collxrun --verbose: what served the allreduce" 'collx: MPI_Allreduce -> [a-z_]+'
  check "$log" "the tuner wrote rules" '\[tune .*\] wrote .*rules.json'
  [ "$(grep -c 'my_app: OK (2 ranks, 0 wrong values)' "$log")" = 2 ] ||
    fail "[$mpi] my_app did not print OK in both runs ($log)"
  say "ok: my_app correct in both runs"
  as_user env -i HOME="$home" PATH="$home/.local/bin:$path" \
    bash -c 'cd "$HOME/collx" && collx rules check rules.json' | sed 's/^/  | /'
  say "ok: collx rules check rules.json"
}

for mpi in $mpis; do run_with "$mpi"; done
say "PASS ($mpis)"
