#!/usr/bin/env bash
# cluster/down.sh [--quiet]: removes everything of cluster $COLLX_CLUSTER:
# the processes inside its namespaces, the namespaces, its links and
# bridges, /etc/netns/<name>-*, its state directory. Found by the name
# prefix, not by the state `up` wrote, so a half-made cluster goes too.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cluster_check_name
quiet=""
[ "${1:-}" = --quiet ] && quiet=1

# Slurm's daemons by their pid files (munged lives outside the namespaces).
"$CLUSTER_SRC/slurm.sh" down
mapfile -t spaces < <(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$CLUSTER_NAME-" || true)
# Processes first (mpirun, orted, hydra proxies, ranks): only ours live in
# these namespaces. TERM, then KILL what is left after 3 s.
pids() { for ns in "${spaces[@]}"; do ip netns pids "$ns" 2>/dev/null || true; done; }
mapfile -t left < <(pids)
if ((${#left[@]})); then
  kill -TERM "${left[@]}" 2>/dev/null || true
  for _ in $(seq 30); do
    mapfile -t left < <(pids)
    ((${#left[@]})) || break
    sleep 0.1
  done
  ((${#left[@]} == 0)) || kill -KILL "${left[@]}" 2>/dev/null || true
fi
for ns in "${spaces[@]}"; do ip netns del "$ns"; done
# Hostname and IPC namespaces are held by bind mounts in the state dir.
if [ -d "$CLUSTER_DIR" ]; then
  for f in "$CLUSTER_DIR"/*/uts "$CLUSTER_DIR"/*/ipc; do
    [ -e "$f" ] && umount "$f" 2>/dev/null || true
  done
fi
# Deleting one end of a veth pair deletes both; bridges last.
mapfile -t links < <(ip -o link show 2>/dev/null | awk -F': ' '{sub(/@.*/, "", $2); print $2}' |
                     grep "^$CLUSTER_NAME-" || true)
for l in "${links[@]}"; do
  [[ "$l" == "$CLUSTER_NAME-s"* || "$l" == "$CLUSTER_NAME-core" ]] && continue
  ip link del "$l" 2>/dev/null || true
done
for l in "${links[@]}"; do
  [[ "$l" == "$CLUSTER_NAME-s"* || "$l" == "$CLUSTER_NAME-core" ]] && ip link del "$l"
done
rm -rf /etc/netns/"$CLUSTER_NAME"-* "$CLUSTER_DIR"
rmdir /etc/netns "$CLUSTER_RUN" 2>/dev/null || true
[ -n "$quiet" ] || cluster_log "down: ${#spaces[@]} namespaces, ${#links[@]} links removed"
