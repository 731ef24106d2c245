# The catalogue as CMake reads it, in one place.
#
# collx_catalogue(OUT): the (collective, algorithm) pairs of the library, as
# "coll.alg" (native for every collective, then the CX_ALG rows of the
# families' catalogues, src/*/register.c), read at configure time so that
# tests can be registered per algorithm. The one reader of the catalogues
# for CMake (tests/contract, tests/cluster); contract.catalogue checks at
# run time that it equals the registry collx_info and CX_Algorithm_* show.
# collx_collectives(OUT): the collectives' lower-case names, in the order
# of CX_COLLECTIVES in include/collx_colls.h.
function(collx_collectives out)
  set(header ${PROJECT_SOURCE_DIR}/include/collx_colls.h)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${header})
  # (the header's lines end in a backslash, which would join list items:
  # match the rows, not the lines)
  file(READ ${header} colls_h)
  string(REGEX MATCHALL "\n *X\\([A-Z_]+, *[A-Za-z_]+, *[a-z_]+\\)" rows "${colls_h}")
  set(colls "")
  foreach(row ${rows})
    string(REGEX REPLACE ".*, *([a-z_]+)\\)$" "\\1" coll "${row}")
    list(APPEND colls ${coll})
  endforeach()
  set(${out} "${colls}" PARENT_SCOPE)
endfunction()

function(collx_catalogue out)
  file(GLOB catalogues ${PROJECT_SOURCE_DIR}/src/*/register.c)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${catalogues})
  collx_collectives(colls)
  set(pairs "")
  foreach(coll ${colls})
    list(APPEND pairs "${coll}.native")
  endforeach()
  foreach(f ${catalogues})
    file(READ ${f} text)
    string(REGEX MATCHALL "CX_ALG\\([A-Z_]+, *\"[a-z0-9_]+\"" rows "${text}")
    foreach(row ${rows})
      string(REGEX REPLACE "CX_ALG\\(([A-Z_]+), *\"([a-z0-9_]+)\"" "\\1;\\2" parts "${row}")
      list(GET parts 0 coll)
      list(GET parts 1 alg)
      string(TOLOWER "${coll}" coll)
      list(APPEND pairs "${coll}.${alg}")
    endforeach()
  endforeach()
  set(${out} "${pairs}" PARENT_SCOPE)
endfunction()
