# Element kernels (formulation.md §1): ANCF 3843 shape functions, mass, force, tangent.
tribodyn_test_program(test_ancf3843 test_ancf3843.c unit)
