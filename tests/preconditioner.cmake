# Near-null space of the bodies for algebraic multigrid (src/solver/preconditioner.c): the rigid-
# body modes in ANCF coordinates against the stiffness of a free, rotated body, on 1 and 2 ranks.
tribodyn_test_program(test_near_null_space test_near_null_space.c unit)
target_compile_definitions(test_near_null_space PRIVATE TRIBODYN_SOURCE_DIR="${TRIBODYN_SOURCE_DIR}")
if(TRIBODYN_MPIEXEC)
  add_test(NAME test_near_null_space_mpi2 COMMAND ${TRIBODYN_MPIEXEC} -n 2 $<TARGET_FILE:test_near_null_space>)
  set_tests_properties(test_near_null_space_mpi2 PROPERTIES LABELS "mpi" TIMEOUT 120)
endif()
