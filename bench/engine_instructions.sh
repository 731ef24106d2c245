#!/usr/bin/env bash
# Where collx's own time goes per call, in instructions (issue 61): rank 0
# of a two-rank Open MPI launch runs collbench under callgrind, counting
# only inside cx_dispatch (collbench's own loop and MPI_Init left out),
# and the instructions of collx's library are summed per room of the
# source tree (core/call, core/select, core/engine, ..., the family).
# Instructions, not time: the count does not move with the machine's load
# (a 2-core machine shared with other work gives the same figures), and
# says what a change removed. Waiting is left out: collx's spin and poll
# loops (their count is how long the other rank took) and everything in
# the MPI's library (its own work and its progress loop alike).
#
#   bench/engine_instructions.sh [OUT_DIR]   (default results/engine-instructions)
#
# ITERS calls per case (default 20000; the first call's set-up is spread
# over them: a few instructions a call). Cases: CASES="coll:alg:bytes ..."
# (default: native, binomial, hier bcast; native, recursive_doubling,
# hier allreduce; native, bruck, hier allgather; all 8 B). Writes
# OUT_DIR/instructions.csv (case, room, instructions per call) and
# OUT_DIR/instructions.md, and prints the table. Needs valgrind.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/results/engine-instructions}"
ITERS="${ITERS:-20000}"
CASES="${CASES:-bcast:native:8 bcast:binomial:8 bcast:hier:8 allreduce:native:8 allreduce:recursive_doubling:8 allreduce:hier:8 allgather:native:8 allgather:bruck:8 allgather:hier:8}"
BIN="${BIN:-$ROOT/build/openmpi/bench/collbench}"
command -v valgrind >/dev/null || { echo "engine_instructions: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
[ -x "$BIN" ] || { echo "engine_instructions: build/openmpi not built (./run build)" >&2; exit 2; }
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
wrap="$OUT/rank0_callgrind.sh"
cat > "$wrap" <<'EOF'
#!/bin/bash
# rank 0 under callgrind (inside cx_dispatch only), the other plain
if [ "${OMPI_COMM_WORLD_RANK:-}" = 0 ]; then
  exec valgrind --tool=callgrind --collect-atstart=no --toggle-collect=cx_dispatch \
       --callgrind-out-file="$CG_OUT" "$@"
fi
exec "$@"
EOF
chmod +x "$wrap"
for c in $CASES; do
  IFS=: read -r coll alg bytes <<< "$c"
  echo "[engine-instructions] $coll $alg $bytes B, $ITERS calls under callgrind ..." >&2
  CG_OUT="$OUT/$coll.$alg.$bytes.callgrind" /usr/bin/mpirun.openmpi -n 2 -x CG_OUT \
    --bind-to none "$wrap" "$BIN" --coll "$coll" --algs "$alg" -m "$bytes" -i "$ITERS" \
    -x 10 -q >/dev/null 2>"$OUT/$coll.$alg.$bytes.log"
done
python3 - "$OUT" "$ITERS" "$ROOT" $CASES <<'PY'
import collections, csv, os, re, subprocess, sys
out, iters, root, cases = (os.path.abspath(sys.argv[1]), int(sys.argv[2]) + 10, sys.argv[3],
                           sys.argv[4:])
# collx's waiting: how long the other rank took, not collx's work
WAIT = ("polls_hold", "spun", "spin_until", "round_held", "asked_held", "cx_sched_idle",
        "cx_wait_poll",
        "hier_guard_published")
# "file:function [object]"; code inlined from another file: no object
line = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S+?):(\S+)(?: \[(.+)\])?$")
rows, rooms = [], []
algo = collections.Counter()
for c in cases:
    coll, alg, size = c.split(":")
    text = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no",
                           os.path.join(out, f"{coll}.{alg}.{size}.callgrind")],
                          capture_output=True, text=True, check=True,
                          cwd="/").stdout   # (paths printed whole, not from here)
    per = collections.Counter()
    for l in text.splitlines():
        m = line.match(l)
        if (not m or m.group(3).split(".")[0] in WAIT or
                ("libcollx" not in (m.group(4) or "") and
                 not m.group(2).startswith(os.path.join(root, "src") + "/"))):
            continue
        path = re.sub(r"^(.*/)?src/", "", m.group(2))
        room = "/".join(path.split("/")[:2]) if path.startswith("core/") else path.split("/")[0]
        n = int(m.group(1).replace(",", ""))
        per[room] += n
        # the algorithm: its family's code and the executor running its
        # schedule (exec.c: messages; dtype.c: its copies and reductions);
        # collx's own: everything else on the way
        if not path.startswith("core/") or path in ("core/engine/exec.c",
                                                     "core/engine/dtype.c"):
            algo[c] += n
    for room, n in per.items():
        rows.append((c, room, n / iters))
        if room not in rooms:
            rooms.append(room)
rooms.sort()
with open(os.path.join(out, "instructions.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["case", "room", "instructions_per_call"])
    for r in rows:
        w.writerow([r[0], r[1], round(r[2], 1)])
    for c in cases:   # the split of the total: the algorithm's run, collx's own
        total = sum(n for cc, _, n in rows if cc == c)
        w.writerow([c, "=algorithm", round(algo[c] / iters, 1)])
        w.writerow([c, "=own", round(total - algo[c] / iters, 1)])
tab = {(c, r): n for c, r, n in rows}
md = ["collx's own instructions per call, rank 0 of 2 (Open MPI), waiting left out;",
      "algorithm: its family's code and the executor running its schedule",
      "(core/engine/exec.c, dtype.c), own: the rest (the path to it and back):", "",
      "| case | " + " | ".join(rooms) + " | total | algorithm | own |",
      "|---" * (len(rooms) + 4) + "|"]
for c in cases:
    vals = [tab.get((c, r), 0.0) for r in rooms]
    a = algo[c] / iters
    md.append(f"| {c} | " + " | ".join(f"{v:.0f}" for v in vals) +
              f" | {sum(vals):.0f} | {a:.0f} | {sum(vals) - a:.0f} |")
text = "\n".join(md) + "\n"
open(os.path.join(out, "instructions.md"), "w").write(text)
print(text)
PY
