#!/usr/bin/env bash
# The README's quick start, verbatim, as a new user runs it: a non-root
# user, a copy of the sources, an install prefix in its home (not the
# build tree), a plain MPI program as ./my_app (tests/install/my_app.c).
# The block runs under bash -e: any failing line fails the test; then its
# output must show the version, the algorithm collx chose, a rules file
# that `collx rules check` accepts and the program's own results correct.
#   tests/install/quickstart.sh [WORKDIR]     (./run quickstart)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
say() { echo "[quickstart] $*"; }
fail() { echo "[quickstart] FAIL: $*" >&2; exit 1; }

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
rm -rf "$home/collx" "$home/.local"
mkdir -p "$home/collx"
# The sources as a clone has them (tracked files, this working tree's text).
(cd "$ROOT" && git ls-files -z | xargs -0 cp --parents -t "$home/collx")
mpicc -O2 -o "$home/collx/my_app" "$ROOT/tests/install/my_app.c"
[ "$(id -u)" = 0 ] && chown -R "$user:" "$home"

say "running the README's quick start as $user in $home/collx:"
sed 's/^/    /' <<<"$block"
log="$home/quickstart.log"
start=$(date +%s)
# A clean environment, as a login would give; only Open MPI's settings for
# this machine (more ranks than cores; no CMA in a sandbox) come along.
set +e
as_user env -i HOME="$home" USER="$user" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
  OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1 \
  OMPI_MCA_btl_vader_single_copy_mechanism=none \
  bash -c "set -eo pipefail; set -x; cd \"\$HOME/collx\"; $block" 2>&1 | tee "$log" |
  grep --line-buffered -E '^\+ |collx:|my_app:|\[tune|error|Error' | sed 's/^/  | /'
rc=${PIPESTATUS[0]}
set -e
say "the block took $(( $(date +%s) - start )) s, exit status $rc"
[ "$rc" = 0 ] || fail "a line of the quick start failed (full output: $log)"

check() {  # check WHAT REGEX
  grep -Eq -- "$2" "$log" || fail "$1: no line matching /$2/ in $log"
  say "ok: $1"
}
check "collx_info --version" '^collx [0-9]+\.[0-9]+\.[0-9]+ for (Open MPI|MPICH)'
check "collxrun --verbose: the banner" 'collx: collx [0-9.]+ for .*, running on .*; 4 ranks, settings the same on every rank; rules: none'
check "collxrun --verbose: what served the allreduce" 'collx: MPI_Allreduce -> [a-z_]+'
check "the tuner wrote rules" '\[tune .*\] wrote .*rules.json'
[ "$(grep -c 'my_app: OK (4 ranks, 0 wrong values)' "$log")" = 2 ] ||
  fail "my_app did not print OK in both runs ($log)"
say "ok: my_app correct in both runs"
as_user env -i HOME="$home" PATH="$home/.local/bin:/usr/bin:/bin" \
  bash -c 'cd "$HOME/collx" && collx rules check rules.json' | sed 's/^/  | /'
say "ok: collx rules check rules.json"
say "PASS"
