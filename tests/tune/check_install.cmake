# Installs the build into a scratch prefix and checks that every shipped
# rules file (share/collx/rules) and its README land in share/collx/rules.
#   cmake -DBUILD=dir -DSRC=dir -DPREFIX=dir -P check_install.cmake
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
file(GLOB shipped RELATIVE ${SRC}/share/collx/rules ${SRC}/share/collx/rules/*)
foreach(f ${shipped})
  if(NOT EXISTS ${PREFIX}/share/collx/rules/${f})
    message(FATAL_ERROR "not installed: share/collx/rules/${f}")
  endif()
endforeach()
list(LENGTH shipped n)
message("installed ${n} files in ${PREFIX}/share/collx/rules")
file(REMOVE_RECURSE ${PREFIX})
