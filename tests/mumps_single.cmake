# Single-precision MUMPS LU (src/solver/mumps_single.c): against a manufactured solution and
# PETSc's double LU, as a kept preconditioner against the double MUMPS factor, refactorisation
# and a singular matrix.
tribodyn_test_program(test_mumps_single test_mumps_single.c unit)
