#!/usr/bin/env bash
# pkg-config as README.md ("Using collx from C") says, on an install that
# was moved after `cmake --install`: PKG_CONFIG_PATH=PREFIX/lib/pkgconfig,
# `mpicc $(pkg-config --cflags --libs collx)`, and the program runs under
# the launcher without LD_LIBRARY_PATH (the rpath in collx.pc's Libs),
# with the moved prefix's libcollx.
#   pkgconfig.sh BUILD MPICC APP.c LAUNCHER NP_FLAG [LAUNCHER FLAGS...]
set -u
build="$1" mpicc="$2" app="$3" launcher="$4" npf="$5"
shift 5
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$tmp/installed" >/dev/null || fail "cmake --install $build"
mv "$tmp/installed" "$tmp/moved"
pc="$(cd "$tmp/moved" && find . -name collx.pc -path '*/pkgconfig/*' | head -1)"
[ -n "$pc" ] || fail "no collx.pc under the prefix"
export PKG_CONFIG_PATH="$tmp/moved/$(dirname "${pc#./}")"
unset LD_LIBRARY_PATH PKG_CONFIG_LIBDIR
echo "PKG_CONFIG_PATH=$PKG_CONFIG_PATH"

flags="$(pkg-config --cflags --libs collx)" || fail "pkg-config --cflags --libs collx"
echo "pkg-config --cflags --libs collx: $flags"
case "$flags" in *"$tmp/installed"*) fail "collx.pc still names the old prefix: $flags" ;; esac
case "$flags" in *"$tmp/moved/"*) ;; *) fail "collx.pc does not name the moved prefix: $flags" ;; esac

cd "$tmp" || exit 1
# shellcheck disable=SC2086  # pkg-config's words, as a user types it
"$mpicc" -o pkg_app "$app" $flags || fail "$mpicc -o pkg_app pkg_app.c \$(pkg-config --cflags --libs collx)"
lib="$(ldd ./pkg_app | grep 'libcollx\.so')"
echo "ldd: $lib"
case "$lib" in *"$tmp/moved/"*) ;; *) fail "pkg_app does not load the moved prefix's libcollx: $lib" ;; esac

out="$(timeout 120 "$launcher" "$@" "$npf" 2 ./pkg_app 2>&1)"
rc=$?
echo "$out"
[ "$rc" = 0 ] || fail "$launcher $npf 2 ./pkg_app: exit code $rc"
grep -q '^pkg_app: OK (2 ranks)' <<<"$out" || fail "no 'pkg_app: OK (2 ranks)'"
echo "pkgconfig: OK"
