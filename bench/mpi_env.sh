# Sourced by ./run and the bench/test scripts: how collx starts MPI here.
# Open MPI refuses root and more ranks than cores unless told; the sandbox
# has no ptrace, so no CMA single-copy either.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_mpi_yield_when_idle=1

# mpi_launcher openmpi|mpich: that MPI's launcher (append -n N program...)
mpi_launcher() {
  case "$1" in
    openmpi) echo "/usr/bin/mpirun.openmpi --oversubscribe" ;;
    mpich)   echo "/usr/bin/mpiexec.mpich" ;;
    *) echo "mpi_launcher: want openmpi or mpich, got '$1'" >&2; return 1 ;;
  esac
}
