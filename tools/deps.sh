#!/bin/sh
# tools/deps.sh [DIR]: which functions each .c file of DIR (default
# src/rma) calls that another .c file of DIR defines, and whether those
# calls go round in a circle (exit 1 if they do). Read from the compiled
# objects (nm), so macros and static helpers cannot mislead it; needs only
# a C compiler with MPI's headers (MPICC, default mpicc).
set -eu
cd "$(dirname "$0")/.."
dir=${1:-src/rma}
cc=${MPICC:-mpicc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$dir"/*.c; do
    b=$(basename "$f")
    "$cc" -std=c11 -w -Iinclude -c "$f" -o "$tmp/$b.o"
    nm -g --defined-only "$tmp/$b.o" | awk 'NF == 3 { print $3 }' | sort > "$tmp/$b.def"
    nm -u "$tmp/$b.o" | awk '{ print $NF }' | sort > "$tmp/$b.use"
done
echo "calls between the files of $dir (caller -> callee: what it calls)"
: > "$tmp/edges"
for f in "$dir"/*.c; do
    a=$(basename "$f")
    echo "$a $a" >> "$tmp/edges"   # a node even without edges
    found=0
    for g in "$dir"/*.c; do
        b=$(basename "$g")
        [ "$a" = "$b" ] && continue
        calls=$(comm -12 "$tmp/$a.use" "$tmp/$b.def" | tr '\n' ' ' | sed 's/ $//')
        [ -z "$calls" ] && continue
        echo "  $a -> $b: $calls"
        echo "$a $b" >> "$tmp/edges"
        found=1
    done
    [ "$found" = 1 ] || echo "  $a -> (nothing in $dir)"
done
if order=$(tsort < "$tmp/edges" 2> "$tmp/loop"); then
    echo "no circle; callers before callees: $(echo "$order" | tr '\n' ' ' | sed 's/ $//')"
else
    echo "CIRCLE through: $(sed -n '/loop/!s/^tsort: //p' "$tmp/loop" | tr '\n' ' ' | sed 's/ $//')"
    exit 1
fi
