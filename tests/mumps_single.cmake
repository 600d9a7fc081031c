# Single-precision MUMPS LU (src/solver/mumps_single.c): against a manufactured solution and
# PETSc's double LU, as a kept preconditioner against the double MUMPS factor, refactorisation
# and a singular matrix.
tribodyn_test_program(test_mumps_single test_mumps_single.c unit)
if(TRIBODYN_MPIEXEC)
  # on 2 ranks: a MATMPIAIJ matrix (MUMPS's distributed input), MUMPS's double LU as the reference
  add_test(NAME test_mumps_single_mpi2 COMMAND ${TRIBODYN_MPIEXEC} -n 2 $<TARGET_FILE:test_mumps_single>)
  set_tests_properties(test_mumps_single_mpi2 PROPERTIES LABELS "unit;mpi" TIMEOUT 600)
endif()
