# tribodyn's COO map of the Jacobian (src/solver/coo_map.c), on 1, 2 and 4 ranks: pattern, values
# and product against sums formed from all ranks' COO triplets, on 1-3 threads, and a second
# pattern replacing the first.
tribodyn_test_program(test_coo_map test_coo_map.c unit)
if(TRIBODYN_MPIEXEC)
  foreach(np 2 4)
    add_test(NAME test_coo_map_mpi${np} COMMAND ${TRIBODYN_MPIEXEC} -n ${np} $<TARGET_FILE:test_coo_map>)
    set_tests_properties(test_coo_map_mpi${np} PROPERTIES LABELS "unit;mpi" TIMEOUT 600)
  endforeach()
endif()
