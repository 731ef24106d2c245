#!/usr/bin/env bash
# The installed bin/collx runs the Python configure chose (one with numpy,
# which collx tune needs), not the first python3 on PATH: a pyenv or
# module python3 without numpy first on PATH must not stop `collx tune`.
# Where the chosen one is gone (the prefix on another machine), it takes
# the first python3 on PATH that has numpy. $COLLX_PYTHON still wins.
#   collx_python.sh BUILD
set -u
build="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null || { echo "FAIL cmake --install"; exit 1; }
collx="$tmp/prefix/bin/collx"
good="$(sed -n 's/^  py="\(.*\)"$/\1/p' "$collx")"   # what configure chose
echo "bin/collx runs: ${good:-?}"
if [ -z "$good" ] || ! "$good" -c 'import numpy' 2>/dev/null; then
  # ./run setup installs python3-numpy: a configure without it is broken
  echo "FAIL configure found no python3 with numpy (./run setup installs python3-numpy)"
  exit 1
fi
# A python3 without numpy, first on PATH: says so if it is run.
mkdir "$tmp/nonumpy"
printf '#!/bin/sh\necho "the python3 without numpy ran" >&2\nexit 3\n' >"$tmp/nonumpy/python3"
chmod +x "$tmp/nonumpy/python3"

# check NAME WANT_REGEX -- command...: exit code 0 and the regex in the output
check() {
  local name="$1" re="$2"
  shift 3
  local out rc
  out="$("$@" 2>&1)"
  rc=$?
  if [ "$rc" = 0 ] && grep -Eq -- "$re" <<<"$out"; then
    echo "ok   $name"
  else
    fail "$name: exit $rc, output wants /$re/:"
    sed 's/^/     | /' <<<"$out"
  fi
}

check configured '^usage: collx tune' -- env PATH="$tmp/nonumpy:$PATH" "$collx" tune --help
check configured.version "^collx " -- env PATH="$tmp/nonumpy:$PATH" "$collx" --version
# The chosen Python gone: the script as installed, with a path that is not.
sed "s|^  py=\".*\"\$|  py=\"$tmp/gone/python3\"|" "$collx" >"$tmp/prefix/bin/collx-moved"
chmod +x "$tmp/prefix/bin/collx-moved"
grep -q "$tmp/gone/python3" "$tmp/prefix/bin/collx-moved" || fail "collx.in: the chosen Python's line not found"
check fallback.path '^usage: collx tune' -- \
  env PATH="$tmp/nonumpy:$(dirname "$good"):$PATH" "$tmp/prefix/bin/collx-moved" tune --help
# COLLX_PYTHON wins over everything.
check env.wins 'the python3 without numpy ran' -- \
  bash -c "COLLX_PYTHON='$tmp/nonumpy/python3' '$collx' --version; [ \$? = 3 ]"

if [ "$fails" -gt 0 ]; then
  echo "collx_python: $fails case(s) failed"
  exit 1
fi
echo "collx_python: all cases passed"
