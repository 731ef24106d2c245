#!/usr/bin/env bash
# same_output.sh WANT_COMMAND... -- COMMAND...: passes when COMMAND exits 0
# and prints on stdout exactly what WANT_COMMAND prints (e.g. a tool under
# mpirun -n 2, whose rank 0 alone prints, against the tool alone).
want=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do want+=("$1"); shift; done
shift
w="$("${want[@]}")" || { echo "FAIL: ${want[*]}: exit code $?"; exit 1; }
g="$("$@")"; rc=$?
[ "$rc" = 0 ] || { echo "FAIL: $*: exit code $rc"; exit 1; }
if [ "$w" != "$g" ]; then
  echo "FAIL: $* printed (${#g} bytes):"; echo "$g" | head -20
  echo "want, from ${want[*]} (${#w} bytes):"; echo "$w" | head -20
  exit 1
fi
echo "ok: $(wc -l <<<"$g") line(s), as ${want[*]}: $(head -1 <<<"$g")"
