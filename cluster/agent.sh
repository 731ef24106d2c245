#!/usr/bin/env bash
# cluster/agent.sh HOST COMMAND...: the launcher agent mpirun/mpiexec call
# instead of ssh (Open MPI: --mca plm_rsh_agent, MPICH: -launcher-exec).
# Like ssh, it joins COMMAND into one shell command line and runs it on
# HOST: inside that node's namespaces (cluster/common.sh: cluster_in).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
host="${1:?usage: agent.sh HOST COMMAND...}"; shift
cluster_in "$host" /bin/sh -c "$*"
