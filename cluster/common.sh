# Sourced by the cluster scripts: names and paths of one emulated cluster.
#
# A cluster is named by COLLX_CLUSTER (default "cx"; 1-8 of [a-z0-9],
# starting with a letter). Everything it makes carries "<name>-": network
# namespaces <name>-node0.. and <name>-head, interfaces <name>-s0 (switch
# bridges), <name>-n0 (node links), <name>-u0/<name>-c0 (uplinks to the
# core bridge <name>-core), <name>-h (the head's link), /etc/netns/<name>-*/
# and the state directory $CLUSTER_RUN/<name>. Two clusters with different
# names never share a name, an address space or a file.

CLUSTER_NAME="${COLLX_CLUSTER:-cx}"
CLUSTER_RUN="${COLLX_CLUSTER_RUN:-/run/collx-cluster}"
CLUSTER_DIR="$CLUSTER_RUN/$CLUSTER_NAME"
CLUSTER_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Addresses live only inside the cluster's own namespaces (no address in
# the host's namespace), so every cluster may use the same private subnet.
CLUSTER_NET=10.99.0
CLUSTER_SUBNET="$CLUSTER_NET.0/24"
CLUSTER_HEAD_IP="$CLUSTER_NET.254"

cluster_log() { echo "[cluster $CLUSTER_NAME] $*" >&2; }
cluster_die() { echo "[cluster $CLUSTER_NAME] error: $*" >&2; exit 1; }

cluster_check_name() {
  [[ "$CLUSTER_NAME" =~ ^[a-z][a-z0-9]{0,7}$ ]] ||
    cluster_die "COLLX_CLUSTER='$CLUSTER_NAME': want 1-8 of [a-z0-9], starting with a letter" \
                "(interface names have at most 15 characters)"
}

cluster_ns() { echo "$CLUSTER_NAME-$1"; }          # node0 | head -> namespace
cluster_node_ip() { echo "$CLUSTER_NET.$(($1 + 1))"; }

# cluster_load: the configuration `up` wrote (NODES PPN SWITCHES ...).
cluster_load() {
  [ -f "$CLUSTER_DIR/config" ] ||
    cluster_die "not up (no $CLUSTER_DIR/config): ./run cluster up NODESxPPN first"
  # shellcheck source=/dev/null
  . "$CLUSTER_DIR/config"
}

# cluster_switch_of K: the switch of node K (nodes split evenly, in order).
cluster_switch_of() { echo $(($1 * SWITCHES / NODES)); }

# cluster_in HOST CMD...: run CMD (argv kept) on HOST (node0.. or head):
# its network namespace (with /etc/netns/<ns>/ over /etc), its hostname
# and IPC namespace (UCX and MPI see separate machines), its TMPDIR.
cluster_in() {
  local host="$1" ns; shift
  ns="$(cluster_ns "$host")"
  [ -e "/run/netns/$ns" ] || cluster_die "no host '$host' in this cluster (no namespace $ns)"
  TMPDIR="$CLUSTER_DIR/$host/tmp" exec ip netns exec "$ns" \
    nsenter --uts="$CLUSTER_DIR/$host/uts" --ipc="$CLUSTER_DIR/$host/ipc" -- "$@"
}
