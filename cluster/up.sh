#!/usr/bin/env bash
# cluster/up.sh NODESxPPN [--switches S] [--node-rate R] [--uplink-rate U]
#               [--delay D] [--slurm]
# Brings up the emulated cluster $COLLX_CLUSTER (cluster/common.sh): NODES
# network namespaces with their own hostname (node0..) and IPC namespace,
# one bridge per switch (nodes split evenly, in order), switches joined by
# uplinks to a core bridge, a head namespace (where mpirun runs), links
# shaped with tc tbf (R on node links, U on uplinks, both directions; tc
# rates such as 1gbit, 100mbit; "none" = unshaped), hosts files, hostfiles
# and the launcher agent. --delay D (e.g. 1ms, per link and direction)
# needs tc netem. Idempotent: the same cluster again is left as it is,
# another one replaces it. On any failure everything made is removed.
# --slurm also starts Slurm on it (cluster/slurm.sh): slurmctld on the
# head, slurmd on every node, munge; `run --launcher srun` uses it.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() { sed -n '2,14p' "$0" >&2; exit 2; }
SPEC="" SWITCHES=1 NODE_RATE=1gbit UPLINK_RATE="" DELAY="" SLURM=0
while (($#)); do
  case "$1" in
    --switches) SWITCHES="${2:?}"; shift 2 ;;
    --node-rate) NODE_RATE="${2:?}"; shift 2 ;;
    --uplink-rate) UPLINK_RATE="${2:?}"; shift 2 ;;
    --delay) DELAY="${2:?}"; shift 2 ;;
    --slurm) SLURM=1; shift ;;
    -h|--help) usage ;;
    [0-9]*x[0-9]*) SPEC="$1"; shift ;;
    *) echo "cluster up: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ "$SPEC" =~ ^([0-9]+)x([0-9]+)$ ]] || usage
NODES="${BASH_REMATCH[1]}" PPN="${BASH_REMATCH[2]}"
UPLINK_RATE="${UPLINK_RATE:-$NODE_RATE}"
cluster_check_name
((NODES >= 1 && NODES <= 200)) || cluster_die "NODES must be 1..200 (got $NODES)"
((PPN >= 1)) || cluster_die "PPN must be at least 1"
[[ "$SWITCHES" =~ ^[0-9]+$ ]] && ((SWITCHES >= 1 && SWITCHES <= NODES)) ||
  cluster_die "--switches must be 1..NODES (got $SWITCHES)"

# rate_bits R: R (tc syntax: 100mbit, 1gbit, 500kbit) in bit/s.
rate_bits() {
  [[ "$1" =~ ^([0-9]+)(bit|kbit|mbit|gbit)$ ]] ||
    cluster_die "rate '$1': want <integer>bit|kbit|mbit|gbit, or none"
  local n="${BASH_REMATCH[1]}"
  case "${BASH_REMATCH[2]}" in
    bit) echo "$n" ;; kbit) echo $((n * 1000)) ;;
    mbit) echo $((n * 1000000)) ;; gbit) echo $((n * 1000000000)) ;;
  esac
}
for r in "$NODE_RATE" "$UPLINK_RATE"; do [ "$r" = none ] || rate_bits "$r" >/dev/null; done

# --- what this machine must have: say which part is missing, never skip
[ "$(id -u)" = 0 ] ||
  cluster_die "must run as root: network namespaces, bridges and tc need CAP_SYS_ADMIN and CAP_NET_ADMIN"
caps=$((16#$(awk '/^CapEff/ {print $2}' /proc/self/status)))
((caps >> 12 & 1 && caps >> 21 & 1)) ||
  cluster_die "root without CAP_NET_ADMIN and CAP_SYS_ADMIN (an unprivileged container?): network namespaces, bridges and tc need both"
for tool in ip:iproute2 tc:iproute2 unshare:util-linux nsenter:util-linux; do
  command -v "${tool%%:*}" >/dev/null ||
    cluster_die "'${tool%%:*}' not found (Debian package ${tool#*:}; ./run setup installs it)"
done

# try WHAT HINT CMD...: run CMD; on failure stop with what failed and why.
try() {
  local what="$1" hint="$2" err rc=0; shift 2
  err="$("$@" 2>&1)" || rc=$?
  ((rc == 0)) || cluster_die "$what failed: ${err:-exit status $rc}${hint:+ ($hint)}; command: $*"
}

((SLURM == 0)) || "$CLUSTER_SRC/slurm.sh" check

WANT="NODES=$NODES PPN=$PPN SWITCHES=$SWITCHES NODE_RATE=$NODE_RATE UPLINK_RATE=$UPLINK_RATE DELAY=$DELAY SLURM=$SLURM"
if [ -f "$CLUSTER_DIR/config" ] && grep -qxF "# $WANT" "$CLUSTER_DIR/config" &&
   [ -e "/run/netns/$(cluster_ns "node$((NODES - 1))")" ] && [ -e "/run/netns/$(cluster_ns head)" ]; then
  cluster_log "already up: ${NODES}x$PPN, $SWITCHES switch(es) ($CLUSTER_DIR)"
  exit 0
fi
"$CLUSTER_SRC/down.sh" --quiet
trap 'rc=$?; if ((rc)); then cluster_log "up failed: removing what was made"; "$CLUSTER_SRC/down.sh" --quiet || true; fi' EXIT
trap 'exit 130' INT TERM

mkdir -p "$CLUSTER_DIR"

# shape DEV RATE [NS]: egress of DEV (in namespace NS) at RATE, plus DELAY
# (RATE empty: neither). tbf's bucket holds 2 ms of traffic (at least
# 16 KiB), its queue 50 ms.
shape() {
  local dev="$1" rate="$2" ns="${3:-}" burst parent=root
  local -a in=()
  [ -n "$rate" ] || return 0
  [ -n "$ns" ] && in=(ip netns exec "$ns")
  if [ -n "$DELAY" ]; then
    try "netem on $dev" "kernel sch_netem" "${in[@]}" tc qdisc replace dev "$dev" root handle 1: netem delay "$DELAY"
    parent="parent 1:1"
  fi
  [ "$rate" = none ] && return 0
  burst=$(($(rate_bits "$rate") / 8 / 500))
  ((burst >= 16384)) || burst=16384
  # shellcheck disable=SC2086
  try "tc tbf on $dev" "kernel sch_tbf" "${in[@]}" tc qdisc replace dev "$dev" $parent handle 10: \
    tbf rate "$rate" burst "$burst" latency 50ms
}

# bridge NAME: a switch (no spanning tree delay, up).
bridge() {
  try "bridge $1" "kernel bridge driver (CONFIG_BRIDGE)" ip link add "$1" type bridge forward_delay 0
  try "bridge $1 up" "" ip link set "$1" up
}

# host NAME IP BRIDGE RATE: namespace <name>-NAME with hostname NAME and its
# own IPC namespace, eth0 at IP, linked to BRIDGE at RATE both ways. An
# IPC namespace per node keeps UCX (MPICH) from taking the other nodes'
# processes for local ones: its shared-memory transports compare IPC
# namespaces, so MPICH's traffic between nodes crosses the links (TCP).
host() {
  local name="$1" ip="$2" br="$3" rate="$4" ns dev k
  ns="$(cluster_ns "$name")" dev="$CLUSTER_NAME-${name:0:1}${name//[a-z]/}"
  try "network namespace $ns" "needs network namespaces (CONFIG_NET_NS)" ip netns add "$ns"
  try "veth $dev" "kernel veth driver (CONFIG_VETH)" ip link add "$dev" type veth peer name "$dev-x"
  try "moving $dev-x into $ns" "" ip link set "$dev-x" netns "$ns" name eth0
  try "attaching $dev to $br" "" ip link set "$dev" master "$br" up
  try "addresses in $ns" "" ip -n "$ns" addr add "$ip/24" dev eth0
  try "links up in $ns" "" ip -n "$ns" link set eth0 up
  try "loopback in $ns" "" ip -n "$ns" link set lo up
  shape "$dev" "$rate"
  shape eth0 "$rate" "$ns"
  # Hostname and IPC namespace, kept alive by bind mounts on these files.
  mkdir -p "$CLUSTER_DIR/$name/tmp"
  touch "$CLUSTER_DIR/$name/uts" "$CLUSTER_DIR/$name/ipc"
  try "UTS and IPC namespaces of $name" "needs CONFIG_UTS_NS and CONFIG_IPC_NS" \
    unshare --uts="$CLUSTER_DIR/$name/uts" --ipc="$CLUSTER_DIR/$name/ipc" hostname "$name"
  # ip netns exec puts /etc/netns/<ns>/* over /etc: names of the cluster
  # only, and no name server (nothing leaves the namespaces).
  mkdir -p "/etc/netns/$ns"
  echo "# collx emulated cluster $CLUSTER_NAME: no name server" >"/etc/netns/$ns/resolv.conf"
  {
    echo "127.0.0.1 localhost"
    echo "$CLUSTER_HEAD_IP head"
    for ((k = 0; k < NODES; k++)); do echo "$(cluster_node_ip $k) node$k"; done
  } >"/etc/netns/$ns/hosts"
}

for ((s = 0; s < SWITCHES; s++)); do bridge "$CLUSTER_NAME-s$s"; done
if [ -n "$DELAY" ]; then
  # Probed on our own first switch: the kernel has sch_netem or not.
  tc qdisc add dev "$CLUSTER_NAME-s0" root netem delay "$DELAY" 2>/dev/null ||
    cluster_die "--delay needs tc netem, which this kernel lacks (sch_netem): latency cannot be emulated here; leave out --delay"
  tc qdisc del dev "$CLUSTER_NAME-s0" root
fi
if ((SWITCHES > 1)); then
  # Every switch has one uplink to the core: traffic between two switches
  # crosses two links of rate U, so U is its bottleneck.
  bridge "$CLUSTER_NAME-core"
  for ((s = 0; s < SWITCHES; s++)); do
    up="$CLUSTER_NAME-u$s" core="$CLUSTER_NAME-c$s"
    try "uplink $up" "kernel veth driver (CONFIG_VETH)" ip link add "$up" type veth peer name "$core"
    try "uplink $up up" "" ip link set "$up" master "$CLUSTER_NAME-s$s" up
    try "uplink $core up" "" ip link set "$core" master "$CLUSTER_NAME-core" up
    shape "$up" "$UPLINK_RATE"
    shape "$core" "$UPLINK_RATE"
  done
fi
host head "$CLUSTER_HEAD_IP" "$CLUSTER_NAME-s0" ""   # launchers only: not shaped
for ((k = 0; k < NODES; k++)); do
  host "node$k" "$(cluster_node_ip $k)" "$CLUSTER_NAME-s$(cluster_switch_of $k)" "$NODE_RATE"
done

for ((k = 0; k < NODES; k++)); do echo "node$k slots=$PPN"; done >"$CLUSTER_DIR/hostfile"
for ((k = 0; k < NODES; k++)); do echo "node$k:$PPN"; done >"$CLUSTER_DIR/machinefile"
# The launcher agent (mpirun's rsh/ssh): AGENT HOST COMMAND...
cat >"$CLUSTER_DIR/agent" <<EOF
#!/bin/sh
COLLX_CLUSTER=$CLUSTER_NAME COLLX_CLUSTER_RUN=$CLUSTER_RUN exec $CLUSTER_SRC/agent.sh "\$@"
EOF
chmod +x "$CLUSTER_DIR/agent"
{
  echo "# $WANT"
  echo "$WANT OWNER=${COLLX_CLUSTER_OWNER:-}"
} >"$CLUSTER_DIR/config"
((SLURM == 0)) || "$CLUSTER_SRC/slurm.sh" up

switches="" slurm_note=""
((SLURM == 0)) || slurm_note="Slurm up (./run cluster run --launcher srun); "
for ((k = 0; k < NODES; k++)); do switches+=" node$k:s$(cluster_switch_of $k)"; done
cluster_log "up: $NODES nodes x $PPN slots,$switches; node links $NODE_RATE, uplinks" \
            "$( ((SWITCHES > 1)) && echo "$UPLINK_RATE" || echo "none (one switch)"),"\
            "latency ${DELAY:-not emulated}; ${slurm_note}subnet $CLUSTER_SUBNET, head $CLUSTER_HEAD_IP;" \
            "agent $CLUSTER_DIR/agent"
