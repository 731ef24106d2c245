# -DCOLLX_TEST_EACH_ALG=ON: one launch per algorithm, registered when ctest
# starts (a TEST_INCLUDE_FILES script, included by each_alg_tests.cmake,
# which the configuration generated with its paths and layouts) from the
# catalogue the library holds: `collx_info --list`, never a list read from
# the sources. Tests: contract.<coll>.<alg>.p<N> (every layout),
# contract.mpi.<alg>.p3/p5, contract.persist.<alg>.p5 and
# contract.mpi.persist.<alg>.p3 (its collectives only).
execute_process(COMMAND ${COLLX_INFO} --list OUTPUT_VARIABLE pairs RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(rc OR NOT pairs)
  # ctest still runs the other tests; this one says why the rest is missing
  add_test(contract.each_alg.catalogue ${CMAKE_EXE} -E false)
  message(WARNING "COLLX_TEST_EACH_ALG: ${COLLX_INFO} --list failed (${rc}): ${err}")
  return()
endif()
string(REGEX REPLACE "\n$" "" pairs "${pairs}")
string(REPLACE "\n" ";" pairs "${pairs}")

# One test: NAME NP PRELOAD(0/1) "ENV" "EXPECT regexes" ARGS...
function(each_test name np preload env expects)
  set(defs "")
  set(n 0)
  foreach(re ${expects})
    math(EXPR n "${n} + 1")
    list(APPEND defs "-DEXPECT${n}=${re}")
  endforeach()
  set(launch ${LAUNCH} ${np} ${LAUNCH_FLAGS})
  set(cmd ${CONTRACT} ${ARGN})
  if(preload AND PRELOAD)
    list(APPEND launch ${PRELOAD})
  elseif(preload)
    set(cmd env LD_PRELOAD=${PRELOAD_LIB} ${cmd})
  endif()
  set(vars "")
  foreach(v ${env})   # (unquoted: the empty items drop out)
    list(APPEND vars "${v}")
  endforeach()
  add_test(${name} ${CMAKE_EXE} ${defs} -P ${EXPECT_SCRIPT} -- ${launch} ${cmd})
  set_tests_properties(${name} PROPERTIES TIMEOUT 600)
  if(vars)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${vars}")
  endif()
endfunction()

set(algs "")
foreach(pair ${pairs})
  string(REGEX REPLACE "\\..*" "" coll "${pair}")
  string(REGEX REPLACE "^[a-z_]+\\." "" alg "${pair}")
  list(APPEND algs ${alg})
  list(APPEND colls_${alg} ${coll})
  foreach(np 1 2 3 4 5 6 8)
    each_test(contract.${coll}.${alg}.p${np} ${np} 0 "${layout_env_${np}}"
      "nodes: ${layout_nodes_${np}};algorithms ${alg}[^a-z_0-9];contract: OK"
      --nodes --algs ${alg} ${coll})
  endforeach()
endforeach()
list(REMOVE_DUPLICATES algs)
foreach(alg ${algs})
  foreach(np 3 5)
    each_test(contract.mpi.${alg}.p${np} ${np} 1 "${layout_env_${np}};${MPI_ASAN_ENV}"
      "nodes: ${layout_nodes_${np}};contract: OK" --mpi --nodes --algs ${alg} ${colls_${alg}})
  endforeach()
  each_test(contract.persist.${alg}.p5 5 0 "${layout_env_5}"
    "nodes: ${layout_nodes_5};contract: OK" --persistent --nodes --algs ${alg} ${colls_${alg}})
  each_test(contract.mpi.persist.${alg}.p3 3 1 "${layout_env_3};${MPI_ASAN_ENV}"
    "nodes: ${layout_nodes_3};contract: OK" --mpi --persistent --nodes --algs ${alg}
    ${colls_${alg}})
endforeach()
