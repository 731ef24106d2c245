# The SMPI interposer (issue 63): src/pmpi's wrappers, the very files of
# libcollx_pmpi.so, compiled with smpicc into libcollx_smpi_interpose.a.
# SMPI loads a program as a shared object of its own (no LD_PRELOAD), and
# smpi.h declares every MPI_ call weak, so weak references pull nothing out
# of an archive: a program links this one whole (--whole-archive), then
# libcollx.a, plus collx's MPI_Init/MPI_Finalize (-u, api/smpi_finalize.smpi.c).
# bin/collx-smpicc and bin/collx-smpif90 (from bin/collx-smpi.in) add
# exactly that to smpicc / smpif90; COLLX_SMPI_LINK_FLAGS spells it for a
# build tree. Included from the SMPI branch of the top-level CMakeLists.txt.

# What SimGrid lacks is found, not assumed from its version: MPI-4's
# persistent collectives (MPI_<Name>_init; SimGrid 3.32 has none).
include(CheckSymbolExists)
check_symbol_exists(PMPI_Allreduce_init mpi.h COLLX_SMPI_HAVE_COLL_INIT)

add_library(collx_smpi_interpose STATIC src/pmpi/interpose.c src/pmpi/complete.c
            src/pmpi/persistent.c src/pmpi/fortran.c src/pmpi/fortran_complete.c
            src/pmpi/fortran_init.smpi.c)
target_include_directories(collx_smpi_interpose PRIVATE include
                           ${CMAKE_CURRENT_BINARY_DIR}/generated)
# the wrappers' own PMPI_ calls drop collx's host time as the library's do
target_compile_options(collx_smpi_interpose PRIVATE
  "SHELL:-include ${CMAKE_CURRENT_SOURCE_DIR}/src/core/util/smpi_bench.h")
if(COLLX_SMPI_HAVE_COLL_INIT)
  target_compile_definitions(collx_smpi_interpose PRIVATE CX_HAVE_COLL_INIT=1)
endif()

# For targets of this tree (the tests): the interposer whole, then collx.
set(COLLX_SMPI_LINK_FLAGS
    "LINKER:--whole-archive" $<TARGET_FILE:collx_smpi_interpose> "LINKER:--no-whole-archive"
    collx)

# The wrappers: one script, told its compiler. In a build tree they sit in
# bin/ and find the archives one level up; installed, in <libdir>.
foreach(pair "collx-smpicc;smpicc" "collx-smpif90;smpif90")
  list(GET pair 0 COLLX_SMPI_WRAPPER)
  list(GET pair 1 COLLX_SMPI_COMPILER)
  configure_file(bin/collx-smpi.in ${CMAKE_CURRENT_BINARY_DIR}/bin/${COLLX_SMPI_WRAPPER} @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                 GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  install(PROGRAMS ${CMAKE_CURRENT_BINARY_DIR}/bin/${COLLX_SMPI_WRAPPER}
          DESTINATION ${CMAKE_INSTALL_BINDIR})
endforeach()
install(TARGETS collx_smpi_interpose ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES man/collx-smpicc.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES man/collx-smpicc.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
        RENAME collx-smpif90.1)
