# COLLX_MPI_FLAVOUR: openmpi or mpich (or "mpi"), from the MPI's own mpi.h;
# it names the interposer's install folder lib/collx/<flavour>/.
include(CheckSymbolExists)
set(CMAKE_REQUIRED_INCLUDES ${MPI_C_INCLUDE_DIRS})
check_symbol_exists(OMPI_MAJOR_VERSION mpi.h COLLX_HAVE_OMPI)
check_symbol_exists(MPICH_VERSION mpi.h COLLX_HAVE_MPICH)
unset(CMAKE_REQUIRED_INCLUDES)
if(COLLX_HAVE_OMPI)
  set(COLLX_MPI_FLAVOUR openmpi)
elseif(COLLX_HAVE_MPICH)
  set(COLLX_MPI_FLAVOUR mpich)
else()
  set(COLLX_MPI_FLAVOUR mpi)
endif()
