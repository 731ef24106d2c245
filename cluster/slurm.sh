#!/usr/bin/env bash
# cluster/slurm.sh up|down: Slurm on the emulated cluster $COLLX_CLUSTER
# (Debian's slurmctld, slurmd, munge; no systemd). `./run cluster up ...
# --slurm` calls `up` after the network exists, `down.sh` calls `down`.
#   - one munged per cluster (its own key and socket under the state
#     directory: two clusters never share credentials);
#   - slurmctld on the head (hostname head, 10.99.0.254), one slurmd per
#     node, each in the node's network, UTS and IPC namespaces plus a
#     mount namespace of its own where the node's hosts file lies over
#     /etc/hosts (not `ip netns exec`: its /sys remount breaks slurmd);
#   - per-node spool, TmpFS and task TMPDIR (PMIx steps of two nodes must
#     not share a directory), job ids that start at random (no two clusters
#     share MPI file names in /dev/shm), PMIx fences by the ring (mpi.conf:
#     Slurm 22.05's tree fence let Open MPI ranks crash in MPI_Init under
#     load), oversubscription allowed (`config_overrides`: a node
#     declares PPN CPUs whatever the machine has);
#   - every daemon's pid file under $CLUSTER_DIR/slurm: `down` kills by them.
# Jobs: `./run cluster run --launcher srun ...` (cluster/run.sh) runs srun
# on the head with SLURM_CONF pointing here.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SLURM_DIR="$CLUSTER_DIR/slurm"
CONF="$SLURM_DIR/slurm.conf"

need() {
  local tool="$1" pkg="$2"
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] ||
    cluster_die "--slurm: '$tool' not found (Debian package $pkg; ./run setup installs it)"
}

# in_node HOST CMD...: CMD in HOST's network, UTS and IPC namespaces and in
# a mount namespace of its own with HOST's hosts file on /etc/hosts.
in_node() {
  local host="$1" ns; shift
  ns="$(cluster_ns "$host")"
  nsenter --net="/run/netns/$ns" --uts="$CLUSTER_DIR/$host/uts" --ipc="$CLUSTER_DIR/$host/ipc" -- \
    unshare --mount --propagation private -- /bin/sh -c \
      'mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/resolv.conf && shift 2 && exec "$@"' \
      sh "/etc/netns/$ns/hosts" "/etc/netns/$ns/resolv.conf" "$@"
}

write_conf() {
  local k
  # Every task's TMPDIR is its node's own directory (Slurm takes the
  # "export" lines a TaskProlog prints into the task's environment).
  cat >"$SLURM_DIR/task_prolog" <<EOF
#!/bin/sh
echo "export TMPDIR=$SLURM_DIR/\$SLURMD_NODENAME/tmp"
EOF
  chmod +x "$SLURM_DIR/task_prolog"
  cat >"$CONF" <<EOF
# Slurm of the collx emulated cluster $CLUSTER_NAME (cluster/slurm.sh)
ClusterName=collx$CLUSTER_NAME
SlurmctldHost=head($CLUSTER_HEAD_IP)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SLURM_DIR/munge.socket
StateSaveLocation=$SLURM_DIR/ctld
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdSpoolDir=$SLURM_DIR/%n/spool
SlurmdPidFile=$SLURM_DIR/%n/slurmd.pid
SlurmdLogFile=$SLURM_DIR/%n/slurmd.log
TmpFS=$SLURM_DIR/%n/tmp
TaskProlog=$SLURM_DIR/task_prolog
# Job ids of their own: two clusters on one machine have the same host
# names, and MPIs name shared-memory files in /dev/shm by host and job
# (Open MPI's vader segments under srun: one cluster's clean-up removed
# the other's files).
FirstJobId=$FIRST_JOB_ID
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
EOF
  # PMIx fences between nodes by the ring: with Slurm 22.05's default
  # (tree) fence, under load a rank of Open MPI 4.1 got a peer's first
  # message while it still waited in MPI_Init's modex fence, before its
  # PML had registered any receive callback, and called a null pointer
  # (btl_tcp -> reg->cbfunc; 6 crashes in 45 srun jobs on a loaded
  # machine, 0 in 45 with the ring).
  echo "PMIxCollFence=ring" >"$SLURM_DIR/mpi.conf"
  for ((k = 0; k < NODES; k++)); do
    echo "NodeName=node$k NodeAddr=$(cluster_node_ip $k) CPUs=$PPN State=UNKNOWN"
  done >>"$CONF"
  echo "PartitionName=collx Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE" >>"$CONF"
}

# wait_for WHAT SECONDS CMD...: until CMD succeeds, or stop saying WHAT.
wait_for() {
  local what="$1" secs="$2" i; shift 2
  for ((i = 0; i < secs * 10; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  cluster_die "--slurm: $what did not come up in ${secs} s (logs in $SLURM_DIR)"
}

slurm_check() {
  need munged munge; need slurmctld slurmctld; need slurmd slurmd; need srun slurm-client
}

slurm_up() {
  local k
  slurm_check
  cluster_load
  mkdir -p "$SLURM_DIR/ctld"
  chmod 700 "$SLURM_DIR"
  # munge: a key of this cluster's own; munged wants root-owned, private paths.
  dd if=/dev/urandom of="$SLURM_DIR/munge.key" bs=1024 count=1 status=none
  chmod 400 "$SLURM_DIR/munge.key"
  munged --force --socket="$SLURM_DIR/munge.socket" --key-file="$SLURM_DIR/munge.key" \
    --pid-file="$SLURM_DIR/munged.pid" --log-file="$SLURM_DIR/munged.log" \
    --seed-file="$SLURM_DIR/munged.seed" ||
    cluster_die "--slurm: munged did not start (log: $SLURM_DIR/munged.log)"
  FIRST_JOB_ID=$(( (RANDOM << 10 ^ RANDOM ^ $$) % 60000000 + 1000 ))
  write_conf
  for ((k = 0; k < NODES; k++)); do mkdir -p "$SLURM_DIR/node$k/spool" "$SLURM_DIR/node$k/tmp"; done
  # -i: ignore saved state (a fresh cluster every time).
  in_node head /usr/sbin/slurmctld -i -f "$CONF" ||
    cluster_die "--slurm: slurmctld did not start (log: $SLURM_DIR/slurmctld.log)"
  wait_for "slurmctld" 20 in_node head env SLURM_CONF="$CONF" scontrol ping
  for ((k = 0; k < NODES; k++)); do
    in_node "node$k" /usr/sbin/slurmd -f "$CONF" -N "node$k" ||
      cluster_die "--slurm: slurmd on node$k did not start (log: $SLURM_DIR/node$k/slurmd.log)"
  done
  wait_for "the nodes (sinfo: idle)" 30 nodes_idle
  cluster_log "slurm up: slurmctld on head, slurmd on node0..node$((NODES - 1)), partition collx ($NODES nodes x $PPN CPUs); SLURM_CONF=$CONF"
}

nodes_idle() {
  local n
  n="$(in_node head env SLURM_CONF="$CONF" sinfo -h -N -t idle -o %N | sort -u | wc -l)"
  ((n == NODES))
}

# slurm_down: the daemons by their pid files (slurmd, then slurmctld,
# then munged); `down.sh` removes the namespaces afterwards.
slurm_down() {
  local f pid pids=()
  [ -d "$SLURM_DIR" ] || return 0
  for f in "$SLURM_DIR"/node*/slurmd.pid "$SLURM_DIR"/slurmctld.pid "$SLURM_DIR"/munged.pid; do
    [ -f "$f" ] || continue
    pid="$(cat "$f")"
    [[ "$pid" =~ ^[0-9]+$ ]] && kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
  done
  for _ in $(seq 50); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || return 0
    sleep 0.1
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
}

case "${1:-}" in
  check) slurm_check ;;
  up) slurm_up ;;
  down) slurm_down ;;
  *) echo "usage: cluster/slurm.sh check|up|down" >&2; exit 2 ;;
esac
