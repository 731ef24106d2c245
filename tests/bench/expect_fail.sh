#!/usr/bin/env bash
# expect_fail.sh REGEX command...: passes when the command exits non-zero
# and its stderr matches REGEX (a clear message, not a crash).
re="$1"; shift
err="$("$@" 2>&1 >/dev/null)"; rc=$?
if [ "$rc" -eq 0 ]; then echo "expected a non-zero exit, got 0"; exit 1; fi
if ! grep -qE -- "$re" <<<"$err"; then echo "stderr does not match '$re':"; echo "$err"; exit 1; fi
if ! grep -q "usage:" <<<"$err"; then echo "no usage text in stderr"; echo "$err"; exit 1; fi
echo "ok (rc=$rc): $(grep -E -- "$re" <<<"$err" | head -1)"
